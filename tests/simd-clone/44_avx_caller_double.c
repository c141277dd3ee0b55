/* SUITE-CALLER-MARCH: sandybridge
 * AVX (`c`) variants of a double function (four doubles per ymm) with a
 * divergent loop. */
#include "harness.h"

#ifdef SIMD_FUNCS
DS(uniform(eps) notinbranch)
SCALAR double F(halve_until)(double x, double eps) BODY({
  int n = 0;
  while ((x > eps || x < -eps) && n < 60) {
    x *= 0.5;
    n++;
  }
  return x + n;
})
#else
#define N 1000
static double x[N], r1[N], r2[N];

int main(void) {
  for (int i = 0; i < N; i++)
    x[i] = (double)rnd_float(1.0f) * (double)(1 << rnd_int(0, 30));
#pragma omp simd
  for (int i = 0; i < N; i++)
    r1[i] = halve_until(x[i], 0.001);
  for (int i = 0; i < N; i++)
    r2[i] = halve_until(x[i], 3.0);
  for (int i = 0; i < N; i++) {
    CHECK_EQ("simd loop", i, r1[i], ref_halve_until(x[i], 0.001));
    CHECK_EQ("plain loop", i, r2[i], ref_halve_until(x[i], 3.0));
  }
  SIMD_DONE();
}
#endif
