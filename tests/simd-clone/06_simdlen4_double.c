/* SUITE-XFAIL: a@armv8-a+sve clang asks only for fixed-length SVE variants (simdlen) here, which batchify does not build (docs/aarch64-abi.md) */
/* simdlen(4) double with a uniform scale and a ternary. */
#include "harness.h"

#ifdef SIMD_FUNCS
DS(simdlen(4) uniform(s) notinbranch)
SCALAR double F(soft)(double x, double s) BODY({
  double y = x * s;
  return y < 0.0 ? y / (1.0 - y) : y / (1.0 + y);
})
#else
#define N 1000
static double x[N], r1[N], r2[N];

int main(void) {
  for (int i = 0; i < N; i++)
    x[i] = (double)rnd_float(20.0f);
#pragma omp simd simdlen(4)
  for (int i = 0; i < N; i++)
    r1[i] = soft(x[i], 0.75);
  for (int i = 0; i < N; i++)
    r2[i] = soft(x[i], -2.0);
  for (int i = 0; i < N; i++) {
    CHECK_EQ("simd loop", i, r1[i], ref_soft(x[i], 0.75));
    CHECK_EQ("plain loop", i, r2[i], ref_soft(x[i], -2.0));
  }
  SIMD_DONE();
}
#endif
