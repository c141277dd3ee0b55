/* Nested loops: a uniform outer bound and a divergent inner bound. */
#include "harness.h"

#ifdef SIMD_FUNCS
DS(uniform(m) notinbranch)
SCALAR int F(tri)(int x, int m) BODY({
  int acc = 0;
  for (int j = 0; j < m; j++) {
    int lim = (x + j) & 7;
    for (int k = 0; k < lim; k++)
      acc += (j ^ k) + x;
  }
  return acc;
})
#else
#define N 1000
static int x[N], r1[N], r2[N];

int main(void) {
  for (int i = 0; i < N; i++)
    x[i] = rnd_int(-1000, 1000);
#pragma omp simd
  for (int i = 0; i < N; i++)
    r1[i] = tri(x[i], 5);
  for (int i = 0; i < N; i++)
    r2[i] = tri(x[i], i & 3);
  for (int i = 0; i < N; i++) {
    CHECK_EQ("simd loop", i, r1[i], ref_tri(x[i], 5));
    CHECK_EQ("plain loop", i, r2[i], ref_tri(x[i], i & 3));
  }
  SIMD_DONE();
}
#endif
