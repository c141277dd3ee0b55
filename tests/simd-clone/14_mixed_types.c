/* Mixed parameter types (float, int, double, short) and conversions; the
 * characteristic type is the double result. */
#include "harness.h"

#ifdef SIMD_FUNCS
DS(notinbranch)
SCALAR double F(mix)(float f, int i, double d, short s) BODY({
  double r = (double)f * i + d;
  if (s < 0)
    r -= (double)s * 0.125;
  else
    r += (double)(s & 7);
  return r;
})
#else
#define N 1000
static float f[N];
static int k[N];
static double d[N], r1[N], r2[N];
static short s[N];

int main(void) {
  for (int i = 0; i < N; i++) {
    f[i] = rnd_float(10.0f);
    k[i] = rnd_int(-1000, 1000);
    d[i] = (double)rnd_float(1000.0f) * 3.0;
    s[i] = (short)rnd();
  }
#pragma omp simd
  for (int i = 0; i < N; i++)
    r1[i] = mix(f[i], k[i], d[i], s[i]);
  for (int i = 0; i < N; i++)
    r2[i] = mix(f[i], i, d[i], (short)-i);
  for (int i = 0; i < N; i++) {
    CHECK_EQ("simd loop", i, r1[i], ref_mix(f[i], k[i], d[i], s[i]));
    CHECK_EQ("plain loop", i, r2[i], ref_mix(f[i], i, d[i], (short)-i));
  }
  SIMD_DONE();
}
#endif
