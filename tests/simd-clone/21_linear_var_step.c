/* linear(i:s) with the step taken from the uniform parameter s (`ls`). */
#include "harness.h"

#ifdef SIMD_FUNCS
DS(uniform(a, s) linear(i:s) notinbranch)
SCALAR int F(strided)(const int *a, int i, int s) BODY({
  return a[i] + (i & 15) - s;
})
#else
#define N 500
#define S 3
static int a[N * S + 8], r1[N], r2[N];

int main(void) {
  for (int i = 0; i < N * S + 8; i++)
    a[i] = rnd_int(-50000, 50000);
#pragma omp simd
  for (int i = 0; i < N; i++)
    r1[i] = strided(a, i * S, S);
  for (int i = 0; i < N; i++)
    r2[i] = strided(a, i * 2 + 1, 2);
  for (int i = 0; i < N; i++) {
    CHECK_EQ("simd loop", i, r1[i], ref_strided(a, i * S, S));
    CHECK_EQ("plain loop", i, r2[i], ref_strided(a, i * 2 + 1, 2));
  }
  SIMD_DONE();
}
#endif
