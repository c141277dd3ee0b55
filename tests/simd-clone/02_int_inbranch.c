/* int function with a divergent if/else, declared inbranch only: called under
 * a condition in an omp simd loop (masked variant) and from a plain loop. */
#include "harness.h"

#ifdef SIMD_FUNCS
DS(inbranch)
SCALAR int F(clamp_mix)(int a, int b) BODY({
  int r;
  if (a > b)
    r = (a - b) * 3;
  else if (a < -b)
    r = a + b * 2;
  else
    r = a ^ b;
  return r;
})
#else
#define N 1031
static int a[N], b[N], r1[N], r2[N];

int main(void) {
  for (int i = 0; i < N; i++) {
    a[i] = rnd_int(-5000, 5000);
    b[i] = rnd_int(-3000, 3000);
    r1[i] = r2[i] = -7;
  }
#pragma omp simd
  for (int i = 0; i < N; i++)
    if (a[i] & 1)
      r1[i] = clamp_mix(a[i], b[i]);
  for (int i = 0; i < N; i++)
    if (b[i] > 0)
      r2[i] = clamp_mix(a[i], b[i]);
  for (int i = 0; i < N; i++) {
    CHECK_EQ("simd loop", i, r1[i], (a[i] & 1) ? ref_clamp_mix(a[i], b[i]) : -7);
    CHECK_EQ("plain loop", i, r2[i], b[i] > 0 ? ref_clamp_mix(a[i], b[i]) : -7);
  }
  SIMD_DONE();
}
#endif
