/* enzyme_vector arguments at widths 2, 4, 8 and 16 (float promoted to
 * double by the variadic call, as in C), with a branch on the lane value. */
#include "enzyme.h"

extern f32x2 __enzyme_batch2(...);
extern f32x4 __enzyme_batch4(...);
extern f32x8 __enzyme_batch8(...);
extern f32x16 __enzyme_batch16(...);

__attribute__((noinline)) float smooth(float x, float y) {
  float t = x * 0.5f + y;
  if (t < 0.0f) t = -t * 0.25f;
  return t * t * (3.0f - 2.0f * t);
}

int main(void) {
  float x[16], y[16], want[16];
  for (int k = 0; k < 16; k++) {
    x[k] = (float)k * 0.37f - 2.5f;
    y[k] = (k % 3 == 0) ? -1.0f : 0.125f * (float)k;
  }
  x[5] = -0.0f;
  x[11] = __builtin_inff();
  for (int k = 0; k < 16; k++) want[k] = smooth(x[k], y[k]);

  f32x2 r2 = __enzyme_batch2(smooth, enzyme_width, 2, enzyme_vector, x[0], x[1], enzyme_vector, y[0], y[1]);
  CHECK_LANES("width 2", r2.v, want, 2);
  f32x4 r4 = __enzyme_batch4(smooth, enzyme_width, 4, enzyme_vector, x[0], x[1], x[2], x[3], enzyme_vector, y[0],
                             y[1], y[2], y[3]);
  CHECK_LANES("width 4", r4.v, want, 4);
  f32x8 r8 = __enzyme_batch8(smooth, enzyme_width, 8, enzyme_vector, x[0], x[1], x[2], x[3], x[4], x[5], x[6], x[7],
                             enzyme_vector, y[0], y[1], y[2], y[3], y[4], y[5], y[6], y[7]);
  CHECK_LANES("width 8", r8.v, want, 8);
  f32x16 r16 = __enzyme_batch16(smooth, enzyme_width, 16, enzyme_vector, x[0], x[1], x[2], x[3], x[4], x[5], x[6],
                                x[7], x[8], x[9], x[10], x[11], x[12], x[13], x[14], x[15], enzyme_vector, y[0], y[1],
                                y[2], y[3], y[4], y[5], y[6], y[7], y[8], y[9], y[10], y[11], y[12], y[13], y[14],
                                y[15]);
  CHECK_LANES("width 16", r16.v, want, 16);
  FINISH("01_vector_widths");
}
