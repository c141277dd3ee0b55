/* A varying pointer (scatter) and varying double: each lane writes through
 * its own pointer to a distinct slot. */
#include "harness.h"

#ifdef SIMD_FUNCS
DS(notinbranch)
SCALAR double F(put)(double *slot, double v) BODY({
  double old = *slot;
  *slot = old * 0.5 + v;
  return old;
})
#else
#define N 1000
static double s1[N], s2[N], v[N], r1[N], r2[N];
static int perm[N];

int main(void) {
  for (int i = 0; i < N; i++) {
    s1[i] = s2[i] = (double)rnd_float(10.0f);
    v[i] = (double)rnd_float(10.0f);
    perm[i] = i;
  }
  for (int i = N - 1; i > 0; i--) { /* a permutation: distinct slots */
    int j = rnd_int(0, i), t = perm[i];
    perm[i] = perm[j];
    perm[j] = t;
  }
#pragma omp simd
  for (int i = 0; i < N; i++)
    r1[i] = put(&s1[perm[i]], v[i]);
  for (int i = 0; i < N; i++) {
    double w = s2[perm[i]];
    CHECK_EQ("simd loop result", i, r1[i], ref_put(&w, v[i]));
    CHECK_EQ("simd loop memory", i, s1[perm[i]], w);
  }
  for (int i = 0; i < N; i++)
    r2[i] = put(&s1[perm[N - 1 - i]], 1.0);
  for (int i = 0; i < N; i++) {
    double w = s2[perm[N - 1 - i]];
    ref_put(&w, v[N - 1 - i]);
    CHECK_EQ("plain loop result", i, r2[i], ref_put(&w, 1.0));
  }
  SIMD_DONE();
}
#endif
