/* Nested calls with varying arguments: the batched function calls other
 * functions of the module (one with its own divergent loop) with per-lane
 * values. Enzyme's batcher passes `undef` there; each lane must get its own. */
#include "enzyme.h"

extern f64x4 __enzyme_batch_d4(...);
extern f64x8 __enzyme_batch_d8(...);

__attribute__((noinline)) double power(double x, int n) {
  double r = 1.0;
  for (int i = 0; i < n; i++) r *= x;
  return r;
}

__attribute__((noinline)) double poly(double x, double c) { return power(x, 3) - c * power(x, 2) + x; }

__attribute__((noinline)) double outer(double x, int n) {
  double s = poly(x, 0.5 * n);
  if (n > 2) s += power(x - 1.0, n);
  return s;
}

int main(void) {
  double x[8];
  int n[8];
  double want[8];
  for (int k = 0; k < 8; k++) {
    x[k] = 0.5 + 0.25 * k;
    n[k] = k % 5;
  }
  for (int k = 0; k < 8; k++) want[k] = outer(x[k], n[k]);
  f64x4 r4 = __enzyme_batch_d4(outer, enzyme_width, 4, x[0], x[1], x[2], x[3], n[0], n[1], n[2], n[3]);
  CHECK_LANES("width 4", r4.v, want, 4);
  f64x8 r8 = __enzyme_batch_d8(outer, enzyme_width, 8, x[0], x[1], x[2], x[3], x[4], x[5], x[6], x[7], n[0], n[1],
                               n[2], n[3], n[4], n[5], n[6], n[7]);
  CHECK_LANES("width 8", r8.v, want, 8);
  FINISH("07_nested_calls");
}
