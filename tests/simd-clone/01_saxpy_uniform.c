/* SUITE-XFAIL: c@x86-64-v4 GCC 12 bug: its AVX-512 callers call the 8-lane variant for the loop's last 8
 * iterations with the linear argument of iteration 0 (GCC's own clones fail the same way). */
/* uniform scalar and linear index into arrays; notinbranch; from an omp simd
 * loop and a plain loop. */
#include "harness.h"

#ifdef SIMD_FUNCS
DS(uniform(a, x, y) linear(i:1) notinbranch)
SCALAR float F(saxpy)(float s, const float *x, const float *y, int i, float a) BODY({
  return a * x[i] + y[i] * s;
})
#else
#define N 1000
static float x[N], y[N], r1[N], r2[N];

int main(void) {
  for (int i = 0; i < N; i++) {
    x[i] = rnd_float(100.0f);
    y[i] = rnd_float(10.0f);
  }
  float a = 1.5f;
#pragma omp simd
  for (int i = 0; i < N; i++)
    r1[i] = saxpy((float)i, x, y, i, a);
  for (int i = 0; i < N; i++)
    r2[i] = saxpy(0.5f, x, y, i, a);
  for (int i = 0; i < N; i++) {
    CHECK_EQ("simd loop", i, r1[i], ref_saxpy((float)i, x, y, i, a));
    CHECK_EQ("plain loop", i, r2[i], ref_saxpy(0.5f, x, y, i, a));
  }
  SIMD_DONE();
}
#endif
