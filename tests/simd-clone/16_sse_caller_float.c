/* SUITE-CALLER-MARCH: x86-64-v2
 * SSE (`b`) variants of a float function with a branch, called from callers
 * built for x86-64-v2. */
#include "harness.h"

#ifdef SIMD_FUNCS
DS(uniform(lo, hi) notinbranch)
SCALAR float F(clampf)(float x, float lo, float hi) BODY({
  if (x < lo)
    return lo - (lo - x) * 0.125f;
  if (x > hi)
    return hi + (x - hi) * 0.125f;
  return x;
})
#else
#define N 1000
static float x[N], r1[N], r2[N];

int main(void) {
  for (int i = 0; i < N; i++)
    x[i] = rnd_float(30.0f);
#pragma omp simd
  for (int i = 0; i < N; i++)
    r1[i] = clampf(x[i], -10.0f, 10.0f);
  for (int i = 0; i < N; i++)
    r2[i] = clampf(x[i], 0.0f, 5.0f);
  for (int i = 0; i < N; i++) {
    CHECK_EQ("simd loop", i, r1[i], ref_clampf(x[i], -10.0f, 10.0f));
    CHECK_EQ("plain loop", i, r2[i], ref_clampf(x[i], 0.0f, 5.0f));
  }
  SIMD_DONE();
}
#endif
