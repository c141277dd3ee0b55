/* SUITE-XFAIL: c@x86-64-v4 GCC 12 bug: its AVX-512 callers call the 8-lane variant for the loop's last 8
 * iterations with the linear argument of iteration 0 (GCC's own clones fail the same way). */
/* uniform double, linear long with step 3, varying long and int: the
 * characteristic type is the long result. */
#include "harness.h"

#ifdef SIMD_FUNCS
DS(uniform(scale) linear(j:3) notinbranch)
SCALAR long F(affine)(double scale, long j, long v, int w) BODY({
  long t = (long)(scale * (double)(j % 1000)) + v;
  return w > 0 ? t + j : t - (long)w * 3;
})
#else
#define N 1000
static long v[N], r1[N], r2[N];
static int w[N];

int main(void) {
  for (int i = 0; i < N; i++) {
    v[i] = ((long)rnd() << 16) - (long)rnd();
    w[i] = rnd_int(-1000, 1000);
  }
#pragma omp simd
  for (int i = 0; i < N; i++)
    r1[i] = affine(2.5, 3L * i + 7, v[i], w[i]);
  for (int i = 0; i < N; i++)
    r2[i] = affine(-0.5, 3L * i, v[i], -w[i]);
  for (int i = 0; i < N; i++) {
    CHECK_EQ("simd loop", i, r1[i], ref_affine(2.5, 3L * i + 7, v[i], w[i]));
    CHECK_EQ("plain loop", i, r2[i], ref_affine(-0.5, 3L * i, v[i], -w[i]));
  }
  SIMD_DONE();
}
#endif
