/* A lane-divergent branch, as in Enzyme's XFAIL test vec-branch.ll (a
 * branch on each lane's own argument), with a select-free body on both
 * sides and an early return. */
#include "enzyme.h"

extern f64x4 __enzyme_batch_d4(...);
extern f64x8 __enzyme_batch_d8(...);

__attribute__((noinline)) double branchy(double x, double y) {
  if (x > y) {
    double t = x - y;
    if (t > 10.0) return 1.0 / t;
    return t * t;
  }
  return y * 2.0 + x;
}

int main(void) {
  double x[8] = {1.0, 5.0, -2.0, 30.0, 0.0, -0.0, 7.5, 100.0};
  double y[8] = {2.0, 1.0, -3.0, 3.0, 0.0, 0.0, 7.5, -100.0};
  double want[8];
  for (int k = 0; k < 8; k++) want[k] = branchy(x[k], y[k]);
  f64x4 r4 = __enzyme_batch_d4(branchy, enzyme_width, 4, enzyme_vector, x[0], x[1], x[2], x[3], enzyme_vector, y[0],
                               y[1], y[2], y[3]);
  CHECK_LANES("width 4", r4.v, want, 4);
  f64x8 r8 = __enzyme_batch_d8(branchy, enzyme_width, 8, x[0], x[1], x[2], x[3], x[4], x[5], x[6], x[7], y[0], y[1],
                               y[2], y[3], y[4], y[5], y[6], y[7]);
  CHECK_LANES("width 8", r8.v, want, 8);
  FINISH("05_divergent_branch");
}
