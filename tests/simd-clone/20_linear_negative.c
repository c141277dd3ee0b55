/* SUITE-XFAIL: c@x86-64-v4 GCC 12 bug: its AVX-512 callers call the 8-lane variant for the loop's last 8
 * iterations with the linear argument of iteration 0 (GCC's own clones fail the same way). */
/* linear(i:-1): a descending index, reading a uniform array backwards. */
#include "harness.h"

#ifdef SIMD_FUNCS
DS(uniform(a) linear(i:-1) notinbranch)
SCALAR double F(back)(const double *a, int i) BODY({
  return a[i] - a[i - 1] * 0.5;
})
#else
#define N 1000
static double a[N + 1], r1[N], r2[N];

int main(void) {
  for (int i = 0; i < N + 1; i++)
    a[i] = (double)rnd_float(100.0f);
#pragma omp simd
  for (int i = 0; i < N; i++)
    r1[i] = back(a, N - i);
  for (int i = 0; i < N; i++)
    r2[i] = back(a, N - i) * 2.0;
  for (int i = 0; i < N; i++) {
    CHECK_EQ("simd loop", i, r1[i], ref_back(a, N - i));
    CHECK_EQ("plain loop", i, r2[i], ref_back(a, N - i) * 2.0);
  }
  SIMD_DONE();
}
#endif
