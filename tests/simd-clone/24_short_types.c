/* short and unsigned short parameters; 16-bit characteristic type gives
 * wide default simdlens (8 on SSE, 16 on AVX2). */
#include "harness.h"

#ifdef SIMD_FUNCS
DS(notinbranch)
SCALAR short F(avg_sat)(short a, unsigned short b) BODY({
  int s = ((int)a + (int)(b >> 1)) / 2;
  if (s > 20000)
    s = 20000;
  return (short)s;
})
#else
#define N 1000
static short a[N], r1[N], r2[N];
static unsigned short b[N];

int main(void) {
  for (int i = 0; i < N; i++) {
    a[i] = (short)rnd();
    b[i] = (unsigned short)rnd();
  }
#pragma omp simd
  for (int i = 0; i < N; i++)
    r1[i] = avg_sat(a[i], b[i]);
  for (int i = 0; i < N; i++)
    r2[i] = avg_sat((short)b[i], (unsigned short)a[i]);
  for (int i = 0; i < N; i++) {
    CHECK_EQ("simd loop", i, r1[i], ref_avg_sat(a[i], b[i]));
    CHECK_EQ("plain loop", i, r2[i], ref_avg_sat((short)b[i], (unsigned short)a[i]));
  }
  SIMD_DONE();
}
#endif
