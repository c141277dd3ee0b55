/* aligned(p:32) uniform pointer with a linear index; a float stencil. */
#include "harness.h"

#ifdef SIMD_FUNCS
DS(uniform(p) aligned(p:32) linear(i:1) notinbranch)
SCALAR float F(stencil)(const float *p, int i) BODY({
  return p[i] * 0.5f + (p[i + 1] + p[i + 2]) * 0.25f;
})
#else
#define N 1024
static float p[N + 2] __attribute__((aligned(32)));
static float r1[N], r2[N];

int main(void) {
  for (int i = 0; i < N + 2; i++)
    p[i] = rnd_float(64.0f);
#pragma omp simd aligned(p:32)
  for (int i = 0; i < N; i++)
    r1[i] = stencil(p, i);
  for (int i = 0; i < N; i++)
    r2[i] = stencil(p, i) - 1.0f;
  for (int i = 0; i < N; i++) {
    CHECK_EQ("simd loop", i, r1[i], ref_stencil(p, i));
    CHECK_EQ("plain loop", i, r2[i], ref_stencil(p, i) - 1.0f);
  }
  SIMD_DONE();
}
#endif
