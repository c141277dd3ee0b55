/* Varying pointer arguments of an int function on AVX2: eight pointers per
 * call, passed in two ymm registers. */
#include "harness.h"

#ifdef SIMD_FUNCS
DS(notinbranch)
SCALAR int F(pick)(const int *p, const int *q, int sel) BODY({
  return (sel & 1) ? *p - *q : *q * 3;
})
#else
#define N 1000
static int a[N], b[N], ia[N], ib[N], sel[N], r1[N], r2[N];

int main(void) {
  for (int i = 0; i < N; i++) {
    a[i] = rnd_int(-100000, 100000);
    b[i] = rnd_int(-100000, 100000);
    ia[i] = rnd_int(0, N - 1);
    ib[i] = rnd_int(0, N - 1);
    sel[i] = (int)rnd();
  }
#pragma omp simd
  for (int i = 0; i < N; i++)
    r1[i] = pick(&a[ia[i]], &b[ib[i]], sel[i]);
  for (int i = 0; i < N; i++)
    r2[i] = pick(b + ia[i], a + i, i);
  for (int i = 0; i < N; i++) {
    CHECK_EQ("simd loop", i, r1[i], ref_pick(&a[ia[i]], &b[ib[i]], sel[i]));
    CHECK_EQ("plain loop", i, r2[i], ref_pick(b + ia[i], a + i, i));
  }
  SIMD_DONE();
}
#endif
