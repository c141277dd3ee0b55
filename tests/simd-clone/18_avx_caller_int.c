/* SUITE-CALLER-MARCH: sandybridge
 * AVX (`c`) variants of an int function: GCC names them for 128-bit integer
 * vectors (_ZGVcN4vv_), clang for 256-bit ones (_ZGVcN8vv_). */
#include "harness.h"

#ifdef SIMD_FUNCS
DS(notinbranch)
SCALAR int F(imix)(int a, int b) BODY({
  int r = a * 31 + (b >> 3);
  return r < 0 ? -r : r;
})
#else
#define N 1000
static int a[N], b[N], r1[N], r2[N];

int main(void) {
  for (int i = 0; i < N; i++) {
    a[i] = rnd_int(-1000000, 1000000);
    b[i] = (int)rnd();
  }
#pragma omp simd
  for (int i = 0; i < N; i++)
    r1[i] = imix(a[i], b[i]);
  for (int i = 0; i < N; i++)
    r2[i] = imix(b[i], i);
  for (int i = 0; i < N; i++) {
    CHECK_EQ("simd loop", i, r1[i], ref_imix(a[i], b[i]));
    CHECK_EQ("plain loop", i, r2[i], ref_imix(b[i], i));
  }
  SIMD_DONE();
}
#endif
