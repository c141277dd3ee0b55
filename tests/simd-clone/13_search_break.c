/* A divergent loop with an early exit: the first index of a uniform sorted
 * table whose entry is >= x (lanes leave at different iterations). */
#include "harness.h"

#ifdef SIMD_FUNCS
DS(uniform(t, n) notinbranch)
SCALAR int F(lower_bound)(const int *t, int n, int x) BODY({
  int k = 0;
  for (; k < n; k++)
    if (t[k] >= x)
      break;
  return k;
})
#else
#define N 1000
#define T 100
static int t[T], x[N], r1[N], r2[N];

int main(void) {
  for (int i = 0; i < T; i++)
    t[i] = i * 10 + rnd_int(0, 9);
  for (int i = 0; i < N; i++)
    x[i] = rnd_int(-20, 1050);
#pragma omp simd
  for (int i = 0; i < N; i++)
    r1[i] = lower_bound(t, T, x[i]);
  for (int i = 0; i < N; i++)
    r2[i] = lower_bound(t, T / 2, x[i]);
  for (int i = 0; i < N; i++) {
    CHECK_EQ("simd loop", i, r1[i], ref_lower_bound(t, T, x[i]));
    CHECK_EQ("plain loop", i, r2[i], ref_lower_bound(t, T / 2, x[i]));
  }
  SIMD_DONE();
}
#endif
