/* SUITE-XFAIL: a@armv8-a+sve clang asks only for fixed-length SVE variants (simdlen) here, which batchify does not build (docs/aarch64-abi.md) */
/* A long result from int arguments with simdlen(8): the AVX2 variant
 * _ZGVdN8vvv_ returns <8 x long>, wider than one ymm register (GCC returns
 * it in memory through a hidden pointer). */
#include "harness.h"

#ifdef SIMD_FUNCS
DS(simdlen(8) notinbranch)
SCALAR long F(widen3)(int a, int b, int c) BODY({
  return (long)a * 100003 + ((long)b << 20) - c;
})
#else
#define N 1000
static int a[N], b[N], c[N];
static long r1[N], r2[N];

int main(void) {
  for (int i = 0; i < N; i++) {
    a[i] = (int)rnd();
    b[i] = -(int)rnd();
    c[i] = rnd_int(-50, 50);
  }
#pragma omp simd simdlen(8)
  for (int i = 0; i < N; i++)
    r1[i] = widen3(a[i], b[i], c[i]);
  for (int i = 0; i < N; i++)
    r2[i] = widen3(c[i], a[i], b[i]);
  for (int i = 0; i < N; i++) {
    CHECK_EQ("simd loop", i, r1[i], ref_widen3(a[i], b[i], c[i]));
    CHECK_EQ("plain loop", i, r2[i], ref_widen3(c[i], a[i], b[i]));
  }
  SIMD_DONE();
}
#endif
