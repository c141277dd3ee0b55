/* SUITE-CALLER-MARCH: x86-64-v2
 * SSE (`b`) variants of double and long functions (two lanes per xmm),
 * with a uniform and a linear parameter. */
#include "harness.h"

#ifdef SIMD_FUNCS
DS(uniform(k) linear(i:1) notinbranch)
SCALAR double F(dscale)(double x, long i, double k) BODY({
  return (i & 1) ? x * k : x + (double)i;
})
DS(notinbranch)
SCALAR long F(lsel)(long a, long b) BODY({
  return a > b ? a - (b >> 1) : b ^ a;
})
#else
#define N 1000
static double x[N], r1[N];
static long a[N], b[N], r2[N];

int main(void) {
  for (int i = 0; i < N; i++) {
    x[i] = (double)rnd_float(50.0f);
    a[i] = ((long)rnd() << 20) - (long)rnd();
    b[i] = ((long)rnd() << 20) - (long)rnd();
  }
#pragma omp simd
  for (long i = 0; i < N; i++)
    r1[i] = dscale(x[i], i, 1.5);
#pragma omp simd
  for (int i = 0; i < N; i++)
    r2[i] = lsel(a[i], b[i]);
  for (long i = 0; i < N; i++) {
    CHECK_EQ("double simd loop", i, r1[i], ref_dscale(x[i], i, 1.5));
    CHECK_EQ("long simd loop", i, r2[i], ref_lsel(a[i], b[i]));
  }
  SIMD_DONE();
}
#endif
