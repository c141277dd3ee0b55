/* SUITE-CALLER-MARCH: x86-64-v2
 * Callers built for SSE4.2 (x86-64-v2) call the SSE (`b`) variants. A varying
 * pointer argument: four pointers per SSE call travel in two xmm registers. */
#include "harness.h"

#ifdef SIMD_FUNCS
DS(notinbranch)
SCALAR int F(deref_add)(const int *p, int x) BODY({
  return *p + x * 2;
})
#else
#define N 1000
static int a[N], idx[N], r1[N], r2[N];

int main(void) {
  for (int i = 0; i < N; i++) {
    a[i] = rnd_int(-100000, 100000);
    idx[i] = rnd_int(0, N - 1);
  }
#pragma omp simd
  for (int i = 0; i < N; i++)
    r1[i] = deref_add(&a[idx[i]], i);
  for (int i = 0; i < N; i++)
    r2[i] = deref_add(a + i, idx[i]);
  for (int i = 0; i < N; i++) {
    CHECK_EQ("simd loop", i, r1[i], ref_deref_add(&a[idx[i]], i));
    CHECK_EQ("plain loop", i, r2[i], ref_deref_add(a + i, idx[i]));
  }
  SIMD_DONE();
}
#endif
