/* SUITE-XFAIL: a@armv8-a+sve clang asks only for fixed-length SVE variants (simdlen) here, which batchify does not build (docs/aarch64-abi.md) */
/* Several declare simd directives on one function: simdlen(4) and
 * simdlen(8), unmasked and masked; loops asking for each width. */
#include "harness.h"

#ifdef SIMD_FUNCS
DS(simdlen(4) notinbranch)
DS(simdlen(8) notinbranch)
DS(simdlen(8) inbranch)
SCALAR int F(gcd_steps)(int a, int b) BODY({
  int n = 0;
  a = a < 0 ? -a : a;
  b = b < 0 ? -b : b;
  while (b != 0) {
    int t = a % b;
    a = b;
    b = t;
    n++;
  }
  return n * 1000 + a;
})
#else
#define N 1000
static int a[N], b[N], r1[N], r2[N], r3[N];

int main(void) {
  for (int i = 0; i < N; i++) {
    a[i] = rnd_int(-100000, 100000);
    b[i] = rnd_int(-5000, 5000);
    r3[i] = -5;
  }
#pragma omp simd simdlen(4)
  for (int i = 0; i < N; i++)
    r1[i] = gcd_steps(a[i], b[i]);
#pragma omp simd simdlen(8)
  for (int i = 0; i < N; i++)
    r2[i] = gcd_steps(b[i], i);
#pragma omp simd simdlen(8)
  for (int i = 0; i < N; i++)
    if (a[i] > 0)
      r3[i] = gcd_steps(a[i], b[i] + 1);
  for (int i = 0; i < N; i++) {
    CHECK_EQ("simdlen(4) loop", i, r1[i], ref_gcd_steps(a[i], b[i]));
    CHECK_EQ("simdlen(8) loop", i, r2[i], ref_gcd_steps(b[i], i));
    CHECK_EQ("masked loop", i, r3[i], a[i] > 0 ? ref_gcd_steps(a[i], b[i] + 1) : -5);
  }
  SIMD_DONE();
}
#endif
