/* SUITE-CALLER-MARCH: x86-64-v4
 * SUITE-NEEDS-CPU: avx512f
 * Callers built for AVX-512 call the `e` variants (16 floats, a __mmask16
 * for the masked one). Skipped where the CPU has no AVX-512. */
#include "harness.h"

#ifdef SIMD_FUNCS
DS(notinbranch)
DS(inbranch)
SCALAR float F(bump)(float x, int k) BODY({
  float r = x;
  for (int j = 0; j < (k & 3); j++)
    r = r * 0.5f + 1.0f;
  return r;
})
#else
#define N 1000
static float x[N], r1[N], r2[N];
static int k[N];

int main(void) {
  for (int i = 0; i < N; i++) {
    x[i] = rnd_float(100.0f);
    k[i] = (int)rnd();
    r2[i] = 9.0f;
  }
#pragma omp simd
  for (int i = 0; i < N; i++)
    r1[i] = bump(x[i], k[i]);
#pragma omp simd
  for (int i = 0; i < N; i++)
    if (k[i] & 4)
      r2[i] = bump(x[i], i);
  for (int i = 0; i < N; i++) {
    CHECK_EQ("simd loop", i, r1[i], ref_bump(x[i], k[i]));
    CHECK_EQ("masked simd loop", i, r2[i], (k[i] & 4) ? ref_bump(x[i], i) : 9.0f);
  }
  SIMD_DONE();
}
#endif
