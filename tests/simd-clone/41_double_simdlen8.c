/* SUITE-XFAIL: a@armv8-a+sve clang asks only for fixed-length SVE variants (simdlen) here, which batchify does not build (docs/aarch64-abi.md) */
/* simdlen(8) double on AVX2: eight doubles per argument in two ymm
 * registers, and an <8 x double> result wider than one register. */
#include "harness.h"

#ifdef SIMD_FUNCS
DS(simdlen(8) notinbranch)
SCALAR double F(blend)(double x, double y) BODY({
  return x > y ? x * 0.75 + y : y - x * 0.5;
})
#else
#define N 1000
static double x[N], y[N], r1[N], r2[N];

int main(void) {
  for (int i = 0; i < N; i++) {
    x[i] = (double)rnd_float(100.0f);
    y[i] = (double)rnd_float(100.0f);
  }
#pragma omp simd simdlen(8)
  for (int i = 0; i < N; i++)
    r1[i] = blend(x[i], y[i]);
  for (int i = 0; i < N; i++)
    r2[i] = blend(y[i], x[i]);
  for (int i = 0; i < N; i++) {
    CHECK_EQ("simd loop", i, r1[i], ref_blend(x[i], y[i]));
    CHECK_EQ("plain loop", i, r2[i], ref_blend(y[i], x[i]));
  }
  SIMD_DONE();
}
#endif
