/* A loop over a uniform coefficient array (uniform trip count): Horner. */
#include "harness.h"

#ifdef SIMD_FUNCS
DS(uniform(c, n) notinbranch)
SCALAR double F(horner)(const double *c, int n, double x) BODY({
  double r = c[n - 1];
  for (int k = n - 2; k >= 0; k--)
    r = r * x + c[k];
  return r;
})
#else
#define N 1000
static double c[9], x[N], r1[N], r2[N];

int main(void) {
  for (int i = 0; i < 9; i++)
    c[i] = (double)rnd_float(4.0f);
  for (int i = 0; i < N; i++)
    x[i] = (double)rnd_float(2.0f);
#pragma omp simd
  for (int i = 0; i < N; i++)
    r1[i] = horner(c, 9, x[i]);
  for (int i = 0; i < N; i++)
    r2[i] = horner(c, 4, x[i]);
  for (int i = 0; i < N; i++) {
    CHECK_EQ("simd loop", i, r1[i], ref_horner(c, 9, x[i]));
    CHECK_EQ("plain loop", i, r2[i], ref_horner(c, 4, x[i]));
  }
  SIMD_DONE();
}
#endif
