/* SUITE-XFAIL: a@armv8-a+sve clang asks only for fixed-length SVE variants (simdlen) here, which batchify does not build (docs/aarch64-abi.md) */
/* SUITE-CALLER-MARCH: x86-64-v2
 * short and char parameters and results of 2- and 4-lane variants: GCC
 * passes a vector of at most 32 bits (2 shorts, 4 chars) as an integer in a
 * general register, LLVM would pass it in an xmm register
 * (docs/gcc-abi.md). SSE callers use the 2-lane variants. */
#include "harness.h"

#ifdef SIMD_FUNCS
DS(simdlen(2) notinbranch)
SCALAR double F(wsum)(short s, signed char c, double d) BODY({ return d * s + c; })
DS(simdlen(2) notinbranch)
SCALAR short F(halve)(short x, short y) BODY({ return (short)(x / 2 + (y & 15)); })
DS(simdlen(4) notinbranch)
SCALAR int F(pack)(signed char a, signed char b) BODY({ return a * 3 - b; })
#else
#define N 1000
static short s[N], h1[N], h2[N];
static signed char c[N], e[N];
static double d[N], r1[N], r2[N];
static int p1[N], p2[N];

int main(void) {
  for (int i = 0; i < N; i++) {
    s[i] = (short)rnd();
    c[i] = (signed char)rnd();
    e[i] = (signed char)rnd();
    d[i] = (double)rnd_float(100.0f);
  }
#pragma omp simd
  for (int i = 0; i < N; i++)
    r1[i] = wsum(s[i], c[i], d[i]);
#pragma omp simd
  for (int i = 0; i < N; i++)
    h1[i] = halve(s[i], (short)c[i]);
#pragma omp simd
  for (int i = 0; i < N; i++)
    p1[i] = pack(c[i], e[i]);
  for (int i = 0; i < N; i++) {
    r2[i] = wsum(s[i], e[i], d[i]);
    h2[i] = halve((short)e[i], s[i]);
    p2[i] = pack(e[i], c[i]);
  }
  for (int i = 0; i < N; i++) {
    CHECK_EQ("simd loop wsum", i, r1[i], ref_wsum(s[i], c[i], d[i]));
    CHECK_EQ("simd loop halve", i, h1[i], ref_halve(s[i], (short)c[i]));
    CHECK_EQ("simd loop pack", i, p1[i], ref_pack(c[i], e[i]));
    CHECK_EQ("plain loop wsum", i, r2[i], ref_wsum(s[i], e[i], d[i]));
    CHECK_EQ("plain loop halve", i, h2[i], ref_halve((short)e[i], s[i]));
    CHECK_EQ("plain loop pack", i, p2[i], ref_pack(e[i], c[i]));
  }
  SIMD_DONE();
}
#endif
