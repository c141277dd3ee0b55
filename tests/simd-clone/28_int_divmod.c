/* Integer division and remainder by varying divisors (never zero, never
 * INT_MIN / -1), unsigned and signed. */
#include "harness.h"

#ifdef SIMD_FUNCS
DS(notinbranch)
SCALAR int F(divmod)(int a, int d, unsigned u) BODY({
  if (d == 0)
    d = 7;
  return a / d + a % d + (int)(u % (unsigned)(d < 0 ? -d : d)) + (int)(u / 10u);
})
#else
#define N 1000
static int a[N], d[N], r1[N], r2[N];
static unsigned u[N];

int main(void) {
  for (int i = 0; i < N; i++) {
    a[i] = rnd_int(-1000000, 1000000);
    d[i] = rnd_int(-40, 40);
    u[i] = rnd();
  }
#pragma omp simd
  for (int i = 0; i < N; i++)
    r1[i] = divmod(a[i], d[i], u[i]);
  for (int i = 0; i < N; i++)
    r2[i] = divmod(i * 1001, d[i] | 1, u[i] ^ 0x55u);
  for (int i = 0; i < N; i++) {
    CHECK_EQ("simd loop", i, r1[i], ref_divmod(a[i], d[i], u[i]));
    CHECK_EQ("plain loop", i, r2[i], ref_divmod(i * 1001, d[i] | 1, u[i] ^ 0x55u));
  }
  SIMD_DONE();
}
#endif
