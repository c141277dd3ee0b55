/* long result with simdlen(8): on AVX2 the <8 x long> return value is wider
 * than one register (GCC returns it in memory). */
#include "harness.h"

#ifdef SIMD_FUNCS
DS(simdlen(8) notinbranch)
SCALAR long F(scale3)(long a, long b, long c) BODY({
  return a * 3 + (b >> 2) - c;
})
#else
#define N 1000
static long a[N], b[N], c[N], r1[N], r2[N];

int main(void) {
  for (int i = 0; i < N; i++) {
    a[i] = (long)rnd() * 1234567;
    b[i] = -(long)rnd();
    c[i] = rnd_int(-50, 50);
  }
#pragma omp simd simdlen(8)
  for (int i = 0; i < N; i++)
    r1[i] = scale3(a[i], b[i], c[i]);
  for (int i = 0; i < N; i++)
    r2[i] = scale3(c[i], a[i], b[i]);
  for (int i = 0; i < N; i++) {
    CHECK_EQ("simd loop", i, r1[i], ref_scale3(a[i], b[i], c[i]));
    CHECK_EQ("plain loop", i, r2[i], ref_scale3(c[i], a[i], b[i]));
  }
  SIMD_DONE();
}
#endif
