/* A recursive declare simd function (divergent recursion depth) and a
 * non-simd helper it calls. */
#include "harness.h"

#ifdef SIMD_FUNCS
SCALAR __attribute__((noinline)) int F(helper)(int x) BODY({ return (x * 7) ^ (x >> 2); })

DS(notinbranch)
SCALAR int F(rfib)(int n) BODY({
  if (n < 2)
    return n + F(helper)(n);
  return F(rfib)(n - 1) + F(rfib)(n - 2);
})
#else
#define N 256
static int n[N], r1[N], r2[N];

int main(void) {
  for (int i = 0; i < N; i++)
    n[i] = rnd_int(-3, 16);
#pragma omp simd
  for (int i = 0; i < N; i++)
    r1[i] = rfib(n[i]);
  for (int i = 0; i < N; i++)
    r2[i] = rfib(i & 15);
  for (int i = 0; i < N; i++) {
    CHECK_EQ("simd loop", i, r1[i], ref_rfib(n[i]));
    CHECK_EQ("plain loop", i, r2[i], ref_rfib(i & 15));
  }
  SIMD_DONE();
}
#endif
