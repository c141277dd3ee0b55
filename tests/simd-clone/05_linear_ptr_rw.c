/* SUITE-XFAIL: c@x86-64-v4 GCC 12 bug: its AVX-512 callers call the 8-lane variant for the loop's last 8
 * iterations with the linear argument of iteration 0 (GCC's own clones fail the same way). */
/* Memory through a linear pointer: linear(p:1) float *, read and written,
 * with a divergent store. */
#include "harness.h"

#ifdef SIMD_FUNCS
DS(linear(p:1) uniform(t) notinbranch)
SCALAR float F(relax)(float *p, float t) BODY({
  float v = *p;
  if (v > t)
    *p = t + (v - t) * 0.5f;
  else
    *p = v * 2.0f;
  return v - *p;
})
#else
/* N a multiple of 8: GCC 12 at -O3 -march=x86-64-v3 vectorizes the epilogue of
 * the simd loop with the 4-lane clone and passes it &a[0] instead of &a[992]
 * (GCC's own clones fail the same way with N = 999). */
#define N 1000
static float a[N], b[N], r1[N], r2[N];

int main(void) {
  for (int i = 0; i < N; i++)
    a[i] = b[i] = rnd_float(50.0f);
#pragma omp simd
  for (int i = 0; i < N; i++)
    r1[i] = relax(&a[i], 3.0f);
  for (int i = 0; i < N; i++) {
    float ref = b[i];
    float want = ref_relax(&ref, 3.0f);
    CHECK_EQ("simd loop result", i, r1[i], want);
    CHECK_EQ("simd loop memory", i, a[i], ref);
  }
  for (int i = 0; i < N; i++)
    r2[i] = relax(a + i, -1.0f);
  for (int i = 0; i < N; i++) {
    float ref = b[i];
    ref_relax(&ref, 3.0f);
    float want = ref_relax(&ref, -1.0f);
    CHECK_EQ("plain loop result", i, r2[i], want);
    CHECK_EQ("plain loop memory", i, a[i], ref);
  }
  SIMD_DONE();
}
#endif
