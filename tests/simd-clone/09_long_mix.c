/* long (64-bit) parameters and result, default simdlen. */
#include "harness.h"

#ifdef SIMD_FUNCS
DS(notinbranch)
SCALAR long F(hash64)(long x, long y) BODY({
  unsigned long h = (unsigned long)x * 0x9E3779B97F4A7C15ul;
  h ^= h >> 29;
  h += (unsigned long)y;
  if ((long)h < 0)
    h = ~h;
  return (long)h;
})
#else
#define N 1000
static long x[N], y[N], r1[N], r2[N];

int main(void) {
  for (int i = 0; i < N; i++) {
    x[i] = ((long)rnd() << 32) ^ rnd();
    y[i] = (long)rnd_int(-1000000, 1000000);
  }
#pragma omp simd
  for (int i = 0; i < N; i++)
    r1[i] = hash64(x[i], y[i]);
  for (int i = 0; i < N; i++)
    r2[i] = hash64(y[i], x[i]);
  for (int i = 0; i < N; i++) {
    CHECK_EQ("simd loop", i, r1[i], ref_hash64(x[i], y[i]));
    CHECK_EQ("plain loop", i, r2[i], ref_hash64(y[i], x[i]));
  }
  SIMD_DONE();
}
#endif
