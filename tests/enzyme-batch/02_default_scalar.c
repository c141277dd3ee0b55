/* Default (unmarked) vector arguments, enzyme_scalar arguments shared by
 * every lane (a double and an int), and the width given last. */
#include "enzyme.h"

extern f64x4 __enzyme_batch_d4(...);
extern f64x8 __enzyme_batch_d8(...);

__attribute__((noinline)) double axpyn(double a, double x, int n, double y) {
  double r = y;
  for (int i = 0; i < n; i++) r = a * x + r * 0.5;
  return r;
}

int main(void) {
  double x[8], y[8], want[8];
  double a = 1.75;
  int n = 3;
  for (int k = 0; k < 8; k++) {
    x[k] = 0.3 * k - 1.0;
    y[k] = 10.0 / (k + 1);
  }
  for (int k = 0; k < 8; k++) want[k] = axpyn(a, x[k], n, y[k]);
  f64x4 r4 = __enzyme_batch_d4(axpyn, enzyme_scalar, a, x[0], x[1], x[2], x[3], enzyme_scalar, n, y[0], y[1], y[2],
                               y[3], enzyme_width, 4);
  CHECK_LANES("width 4, width last", r4.v, want, 4);
  f64x8 r8 = __enzyme_batch_d8(axpyn, enzyme_width, 8, enzyme_scalar, a, x[0], x[1], x[2], x[3], x[4], x[5], x[6],
                               x[7], enzyme_scalar, n, enzyme_vector, y[0], y[1], y[2], y[3], y[4], y[5], y[6], y[7]);
  CHECK_LANES("width 8", r8.v, want, 8);
  FINISH("02_default_scalar");
}
