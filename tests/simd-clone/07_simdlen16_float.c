/* SUITE-XFAIL: a@armv8-a+sve clang asks only for fixed-length SVE variants (simdlen) here, which batchify does not build (docs/aarch64-abi.md) */
/* simdlen(16) float: wider than one AVX2 register (two ymm per argument). */
#include "harness.h"

#ifdef SIMD_FUNCS
DS(simdlen(16) notinbranch)
SCALAR float F(poly)(float x, float y) BODY({
  float r = ((x * 0.5f + y) * x - 3.0f) * y;
  return r > 100.0f ? 100.0f : r;
})
#else
#define N 1024
static float x[N], y[N], r1[N], r2[N];

int main(void) {
  for (int i = 0; i < N; i++) {
    x[i] = rnd_float(8.0f);
    y[i] = rnd_float(8.0f);
  }
#pragma omp simd simdlen(16)
  for (int i = 0; i < N; i++)
    r1[i] = poly(x[i], y[i]);
  for (int i = 0; i < N; i++)
    r2[i] = poly(y[i], x[i]);
  for (int i = 0; i < N; i++) {
    CHECK_EQ("simd loop", i, r1[i], ref_poly(x[i], y[i]));
    CHECK_EQ("plain loop", i, r2[i], ref_poly(y[i], x[i]));
  }
  SIMD_DONE();
}
#endif
