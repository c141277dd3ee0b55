/* A float function with a double argument: eight lanes on AVX2, the
 * double argument in two ymm registers. */
#include "harness.h"

#ifdef SIMD_FUNCS
DS(notinbranch)
SCALAR float F(narrow)(double d, float f) BODY({
  float r = (float)(d * 0.5) + f;
  return r < 0.0f ? -r : r;
})
#else
#define N 1000
static double d[N];
static float f[N], r1[N], r2[N];

int main(void) {
  for (int i = 0; i < N; i++) {
    d[i] = (double)rnd_float(1000.0f) / 3.0;
    f[i] = rnd_float(10.0f);
  }
#pragma omp simd
  for (int i = 0; i < N; i++)
    r1[i] = narrow(d[i], f[i]);
  for (int i = 0; i < N; i++)
    r2[i] = narrow(d[i] - 1.0, 0.25f);
  for (int i = 0; i < N; i++) {
    CHECK_EQ("simd loop", i, r1[i], ref_narrow(d[i], f[i]));
    CHECK_EQ("plain loop", i, r2[i], ref_narrow(d[i] - 1.0, 0.25f));
  }
  SIMD_DONE();
}
#endif
