/* A divergent iterative loop with a tolerance test (Newton's square root,
 * exact arithmetic only), both inbranch and notinbranch. */
#include "harness.h"

#ifdef SIMD_FUNCS
DS(notinbranch)
DS(inbranch)
SCALAR float F(nsqrt)(float a) BODY({
  if (a <= 0.0f)
    return 0.0f;
  float x = a > 1.0f ? a : 1.0f;
  for (int it = 0; it < 40; it++) {
    float nx = 0.5f * (x + a / x);
    if (nx >= x)
      break;
    x = nx;
  }
  return x;
})
#else
#define N 1000
static float a[N], r1[N], r2[N];

int main(void) {
  for (int i = 0; i < N; i++) {
    a[i] = rnd_float(1000.0f);
    r2[i] = -1.0f;
  }
#pragma omp simd
  for (int i = 0; i < N; i++)
    r1[i] = nsqrt(a[i]);
#pragma omp simd
  for (int i = 0; i < N; i++)
    if (a[i] > 10.0f)
      r2[i] = nsqrt(a[i] * 3.0f);
  for (int i = 0; i < N; i++) {
    CHECK_EQ("simd loop", i, r1[i], ref_nsqrt(a[i]));
    CHECK_EQ("masked simd loop", i, r2[i], a[i] > 10.0f ? ref_nsqrt(a[i] * 3.0f) : -1.0f);
  }
  SIMD_DONE();
}
#endif
