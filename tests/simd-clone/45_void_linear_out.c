/* SUITE-XFAIL: c@x86-64-v4 GCC 12 bug: its AVX-512 callers call the 8-lane variant for the loop's last 8
 * iterations with the linear argument of iteration 0 (GCC's own clones fail the same way). */
/* A void function writing through a linear pointer (no result: the
 * characteristic type comes from the parameters). */
#include "harness.h"

#ifdef SIMD_FUNCS
DS(linear(out:1) uniform(k) notinbranch)
SCALAR void F(store_scaled)(double *out, double x, double k) BODY({
  if (x > 0.0)
    *out = x * k;
  else
    *out = x - k;
})
#else
#define N 1000
static double x[N], o1[N], o2[N];

int main(void) {
  for (int i = 0; i < N; i++)
    x[i] = (double)rnd_float(64.0f);
#pragma omp simd
  for (int i = 0; i < N; i++)
    store_scaled(&o1[i], x[i], 0.375);
  for (int i = 0; i < N; i++)
    store_scaled(o2 + i, -x[i], 3.0);
  for (int i = 0; i < N; i++) {
    double w1, w2;
    ref_store_scaled(&w1, x[i], 0.375);
    ref_store_scaled(&w2, -x[i], 3.0);
    CHECK_EQ("simd loop memory", i, o1[i], w1);
    CHECK_EQ("plain loop memory", i, o2[i], w2);
  }
  SIMD_DONE();
}
#endif
