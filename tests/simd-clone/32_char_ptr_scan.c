/* A char pointer per lane (linear(s:16)): scan a fixed-size record until a
 * terminator, a divergent loop reading memory. */
#include "harness.h"

#ifdef SIMD_FUNCS
DS(linear(s:16) notinbranch)
SCALAR int F(reclen)(const char *s) BODY({
  int n = 0;
  while (n < 16 && s[n] != 0)
    n++;
  return n * 100 + (n ? (unsigned char)s[0] : 0);
})
#else
#define N 512
static char rec[N * 16];
static int r1[N], r2[N];

int main(void) {
  for (int i = 0; i < N * 16; i++)
    rec[i] = (char)rnd_int(1, 120);
  for (int i = 0; i < N; i++)
    rec[i * 16 + rnd_int(0, 20) % 16] = 0;
#pragma omp simd
  for (int i = 0; i < N; i++)
    r1[i] = reclen(rec + i * 16);
  for (int i = 0; i < N; i++)
    r2[i] = reclen(&rec[i * 16]);
  for (int i = 0; i < N; i++) {
    CHECK_EQ("simd loop", i, r1[i], ref_reclen(rec + i * 16));
    CHECK_EQ("plain loop", i, r2[i], ref_reclen(&rec[i * 16]));
  }
  SIMD_DONE();
}
#endif
