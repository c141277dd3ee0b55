/* linear(i:2) index: lane k reads a[i + 2k] and a[i + 2k + 1]; uniform array. */
#include "harness.h"

#ifdef SIMD_FUNCS
DS(uniform(a) linear(i:2) notinbranch)
SCALAR int F(pair_sum)(const int *a, int i) BODY({
  return a[i] * 7 - a[i + 1];
})
#else
#define N 512
static int a[2 * N + 2], r1[N], r2[N];

int main(void) {
  for (int i = 0; i < 2 * N + 2; i++)
    a[i] = rnd_int(-100000, 100000);
#pragma omp simd
  for (int i = 0; i < N; i++)
    r1[i] = pair_sum(a, 2 * i);
  for (int i = 0; i < N; i++)
    r2[i] = pair_sum(a, 2 * i + 1);
  for (int i = 0; i < N; i++) {
    CHECK_EQ("simd loop", i, r1[i], ref_pair_sum(a, 2 * i));
    CHECK_EQ("plain loop", i, r2[i], ref_pair_sum(a, 2 * i + 1));
  }
  SIMD_DONE();
}
#endif
