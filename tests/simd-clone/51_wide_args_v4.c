/* SUITE-CALLER-MARCH: x86-64-v4
 * SUITE-NEEDS-CPU: avx512f
 * AVX-512 callers passing vectors wider than 256 bits: bar's 8-lane
 * variant takes and returns <8 x long> (one zmm register each), and foo's
 * 16-lane variant, called from a loop that also updates chars (so LLVM
 * picks 16 lanes), takes <16 x long> (two zmm registers; through the
 * caller side's adapter in clang). x86-64-v4 prefers 256-bit vectors: a
 * caller whose min-legal-vector-width stayed 0 passed them in ymm halves
 * while the variants read zmm registers (docs/gcc-abi.md, "Vector
 * registers across calls"). */
#include "harness.h"

#ifdef SIMD_FUNCS
DS(simdlen(8) notinbranch)
SCALAR long F(bar)(int a, int b, long c) BODY({ return a + (long)b * 3 + c; })
DS(notinbranch)
SCALAR int F(foo)(long a, int b, int c) BODY({ return (int)(a >> 3) + b - c; })
#else
#define N 1024
static int a[N], b[N], r2[N], r4[N];
static long c[N], r1[N], r3[N];
static unsigned char d[N];

int main(void) {
  for (int i = 0; i < N; i++) {
    a[i] = rnd_int(-100000, 100000);
    b[i] = rnd_int(-100000, 100000);
    c[i] = (long)rnd() << 20 | rnd();
    d[i] = (unsigned char)i;
  }
#pragma omp simd
  for (int i = 0; i < N; i++)
    r1[i] = bar(a[i], b[i], c[i]);
#pragma omp simd
  for (int i = 0; i < N; i++) {
    r2[i] = foo(c[i], a[i], b[i]);
    d[i]++;
  }
  for (int i = 0; i < N; i++) {
    r3[i] = bar(b[i], a[i], c[i]);
    r4[i] = foo(c[i] ^ 5, b[i], a[i]);
  }
  for (int i = 0; i < N; i++) {
    CHECK_EQ("simd loop bar", i, r1[i], ref_bar(a[i], b[i], c[i]));
    CHECK_EQ("simd loop foo", i, r2[i], ref_foo(c[i], a[i], b[i]));
    CHECK_EQ("simd loop chars", i, d[i], (unsigned char)(i + 1));
    CHECK_EQ("plain loop bar", i, r3[i], ref_bar(b[i], a[i], c[i]));
    CHECK_EQ("plain loop foo", i, r4[i], ref_foo(c[i] ^ 5, b[i], a[i]));
  }
  SIMD_DONE();
}
#endif
