/* Result shapes: a struct returned in two SSE registers ({double, double}),
 * one coerced to {<2 x float>, <2 x float>}, one in memory (sret), and a
 * function returning void that writes through a varying pointer. */
#include "enzyme.h"

extern f64x2 __enzyme_batch_d2(...);
extern f32x4 __enzyme_batch_f4(...);
extern f64x16 __enzyme_batch_d16(...);
extern void __enzyme_batch_v(...);

__attribute__((noinline)) double cube_or_half(double x) { return x > 1.0 ? x * x * x : x * 0.5; }
__attribute__((noinline)) float clampf(float x) { return x < -1.0f ? -1.0f : (x > 1.0f ? 1.0f : x); }
__attribute__((noinline)) void store_sq(float *out, float x) {
  if (x != x) return; /* NaN lanes write nothing */
  *out = x * x;
}

int main(void) {
  double d[16], wd[16];
  for (int k = 0; k < 16; k++) d[k] = 0.2 * k - 0.5;
  for (int k = 0; k < 16; k++) wd[k] = cube_or_half(d[k]);
  f64x2 r2 = __enzyme_batch_d2(cube_or_half, enzyme_width, 2, d[0], d[9]);
  double w2[2] = {wd[0], wd[9]};
  CHECK_LANES("{double, double}", r2.v, w2, 2);
  f64x16 r16 = __enzyme_batch_d16(cube_or_half, enzyme_width, 16, d[0], d[1], d[2], d[3], d[4], d[5], d[6], d[7],
                                  d[8], d[9], d[10], d[11], d[12], d[13], d[14], d[15]);
  CHECK_LANES("sret, width 16", r16.v, wd, 16);

  float f[4] = {-3.0f, -0.5f, 0.75f, 8.0f}, wf[4];
  for (int k = 0; k < 4; k++) wf[k] = clampf(f[k]);
  f32x4 r4 = __enzyme_batch_f4(clampf, enzyme_width, 4, f[0], f[1], f[2], f[3]);
  CHECK_LANES("{<2 x float>, <2 x float>}", r4.v, wf, 4);

  float out[4] = {7, 7, 7, 7}, wout[4] = {7, 7, 7, 7};
  float in[4] = {1.5f, __builtin_nanf(""), -2.0f, 3.0f};
  for (int k = 0; k < 4; k++) store_sq(&wout[k], in[k]);
  __enzyme_batch_v(store_sq, enzyme_width, 4, &out[0], &out[1], &out[2], &out[3], in[0], in[1], in[2], in[3]);
  CHECK_LANES("void, stores through varying pointers", out, wout, 4);
  FINISH("04_struct_return");
}
