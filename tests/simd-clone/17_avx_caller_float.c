/* SUITE-CALLER-MARCH: sandybridge
 * Callers built for AVX without AVX2 call the AVX (`c`) variants; a float
 * function with a uniform pointer and a varying index (a gather). */
#include "harness.h"

#ifdef SIMD_FUNCS
DS(uniform(tab) notinbranch)
SCALAR float F(lookup)(const float *tab, int i, float w) BODY({
  return tab[i & 63] * w + tab[(i >> 6) & 63];
})
#else
#define N 1000
static float tab[64], w[N], r1[N], r2[N];
static int k[N];

int main(void) {
  for (int i = 0; i < 64; i++)
    tab[i] = rnd_float(16.0f);
  for (int i = 0; i < N; i++) {
    k[i] = rnd_int(0, 100000);
    w[i] = rnd_float(2.0f);
  }
#pragma omp simd
  for (int i = 0; i < N; i++)
    r1[i] = lookup(tab, k[i], w[i]);
  for (int i = 0; i < N; i++)
    r2[i] = lookup(tab, i * 7, w[i]);
  for (int i = 0; i < N; i++) {
    CHECK_EQ("simd loop", i, r1[i], ref_lookup(tab, k[i], w[i]));
    CHECK_EQ("plain loop", i, r2[i], ref_lookup(tab, i * 7, w[i]));
  }
  SIMD_DONE();
}
#endif
