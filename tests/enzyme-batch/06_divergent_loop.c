/* Divergent loops: a trip count that differs per lane (Collatz steps) and
 * an escape-time loop (Mandelbrot), at widths 4, 8 and 16. */
#include "enzyme.h"

extern i32x8 __enzyme_batch_i8(...);
extern i32x16 __enzyme_batch_i16(...);
extern i32x4 __enzyme_batch_i4(...);

__attribute__((noinline)) int collatz(unsigned n) {
  int steps = 0;
  while (n > 1 && steps < 1000) {
    n = (n & 1) ? 3 * n + 1 : n / 2;
    steps++;
  }
  return steps;
}

__attribute__((noinline)) int mandel(float cx, float cy) {
  float x = 0.0f, y = 0.0f;
  int i = 0;
  while (i < 200 && x * x + y * y <= 4.0f) {
    float t = x * x - y * y + cx;
    y = 2.0f * x * y + cy;
    x = t;
    i++;
  }
  return i;
}

int main(void) {
  unsigned n[16];
  int want[16];
  for (int k = 0; k < 16; k++) n[k] = 1u + 7u * k * k;
  for (int k = 0; k < 16; k++) want[k] = collatz(n[k]);
  i32x16 c16 = __enzyme_batch_i16(collatz, enzyme_width, 16, n[0], n[1], n[2], n[3], n[4], n[5], n[6], n[7], n[8],
                                  n[9], n[10], n[11], n[12], n[13], n[14], n[15]);
  CHECK_LANES("collatz width 16", c16.v, want, 16);
  i32x4 c4 = __enzyme_batch_i4(collatz, enzyme_width, 4, n[4], n[5], n[6], n[7]);
  CHECK_LANES("collatz width 4", c4.v, &want[4], 4);

  float cx[8], cy[8];
  int wm[8];
  for (int k = 0; k < 8; k++) {
    cx[k] = -2.0f + 0.33f * k;
    cy[k] = (k & 1) ? 0.1f * k : -0.05f * k;
  }
  for (int k = 0; k < 8; k++) wm[k] = mandel(cx[k], cy[k]);
  i32x8 m8 = __enzyme_batch_i8(mandel, enzyme_width, 8, cx[0], cx[1], cx[2], cx[3], cx[4], cx[5], cx[6], cx[7],
                               cy[0], cy[1], cy[2], cy[3], cy[4], cy[5], cy[6], cy[7]);
  CHECK_LANES("mandel width 8", m8.v, wm, 8);
  FINISH("06_divergent_loop");
}
