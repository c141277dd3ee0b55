/* unsigned char parameters and result: saturating add, branchy. */
#include "harness.h"

#ifdef SIMD_FUNCS
DS(notinbranch)
SCALAR unsigned char F(sat_add)(unsigned char a, unsigned char b) BODY({
  unsigned s = (unsigned)a + b;
  if (s > 255)
    return 255;
  return (unsigned char)s;
})
DS(uniform(k) notinbranch)
SCALAR signed char F(shift_mix)(signed char a, int k) BODY({
  return (signed char)((a >> k) ^ (a * 3));
})
#else
#define N 1000
static unsigned char a[N], b[N], r1[N], r2[N];
static signed char c[N], r3[N];

int main(void) {
  for (int i = 0; i < N; i++) {
    a[i] = (unsigned char)rnd();
    b[i] = (unsigned char)rnd();
    c[i] = (signed char)rnd();
  }
#pragma omp simd
  for (int i = 0; i < N; i++) {
    r1[i] = sat_add(a[i], b[i]);
    r3[i] = shift_mix(c[i], 2);
  }
  for (int i = 0; i < N; i++)
    r2[i] = sat_add(b[i], (unsigned char)i);
  for (int i = 0; i < N; i++) {
    CHECK_EQ("simd loop", i, r1[i], ref_sat_add(a[i], b[i]));
    CHECK_EQ("simd loop (signed)", i, r3[i], ref_shift_mix(c[i], 2));
    CHECK_EQ("plain loop", i, r2[i], ref_sat_add(b[i], (unsigned char)i));
  }
  SIMD_DONE();
}
#endif
