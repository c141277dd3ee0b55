/* SUITE-XFAIL: c@x86-64-v4 GCC 12 bug: its AVX-512 callers call the 8-lane variant for the loop's last 8
 * iterations with the linear argument of iteration 0 (GCC's own clones fail the same way). */
/* unsigned long division and shifts by varying amounts; long linear index
 * into a uniform table. */
#include "harness.h"

#ifdef SIMD_FUNCS
DS(uniform(t) linear(i:1) notinbranch)
SCALAR unsigned long F(mixu)(const unsigned long *t, long i, unsigned long x, int s) BODY({
  unsigned long d = (t[i] | 1ul);
  unsigned long q = x / d;
  int sh = s & 63;
  return (q << sh) | (x >> (63 - sh)) | (x % 977ul);
})
#else
#define N 1000
static unsigned long t[N], x[N], r1[N], r2[N];
static int s[N];

int main(void) {
  for (int i = 0; i < N; i++) {
    t[i] = (unsigned long)rnd() << (rnd() % 24);
    x[i] = ((unsigned long)rnd() << 40) ^ rnd();
    s[i] = (int)rnd();
  }
#pragma omp simd
  for (long i = 0; i < N; i++)
    r1[i] = mixu(t, i, x[i], s[i]);
  for (long i = 0; i < N; i++)
    r2[i] = mixu(t, i, ~x[i], (int)i);
  for (long i = 0; i < N; i++) {
    CHECK_EQ("simd loop", i, r1[i], ref_mixu(t, i, x[i], s[i]));
    CHECK_EQ("plain loop", i, r2[i], ref_mixu(t, i, ~x[i], (int)i));
  }
  SIMD_DONE();
}
#endif
