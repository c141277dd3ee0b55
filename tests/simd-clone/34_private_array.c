/* A private array indexed by varying values (per-lane stack memory). */
#include "harness.h"

#ifdef SIMD_FUNCS
DS(notinbranch)
SCALAR int F(digits)(unsigned x, int base) BODY({
  int d[32];
  int n = 0;
  if (base < 2)
    base = 2;
  do {
    d[n++] = (int)(x % (unsigned)base);
    x /= (unsigned)base;
  } while (x != 0 && n < 32);
  int r = 0;
  for (int k = 0; k < n; k++)
    r = r * 3 + d[n - 1 - k] + d[k] * k;
  return r + n;
})
#else
#define N 1000
static unsigned x[N];
static int b[N], r1[N], r2[N];

int main(void) {
  for (int i = 0; i < N; i++) {
    x[i] = rnd() * 257u;
    b[i] = rnd_int(0, 17);
  }
#pragma omp simd
  for (int i = 0; i < N; i++)
    r1[i] = digits(x[i], b[i]);
  for (int i = 0; i < N; i++)
    r2[i] = digits(x[i] ^ (unsigned)i, 10);
  for (int i = 0; i < N; i++) {
    CHECK_EQ("simd loop", i, r1[i], ref_digits(x[i], b[i]));
    CHECK_EQ("plain loop", i, r2[i], ref_digits(x[i] ^ (unsigned)i, 10));
  }
  SIMD_DONE();
}
#endif
