/* inbranch function storing through a linear pointer, called under a
 * condition: inactive lanes must not write. */
#include "harness.h"

#ifdef SIMD_FUNCS
DS(linear(out:1) inbranch)
SCALAR int F(emit)(int *out, int v) BODY({
  if (v % 3 == 0) {
    *out = v / 3;
    return 1;
  }
  *out = -v;
  return 0;
})
#else
#define N 1000
static int v[N], o1[N], o2[N], r1[N], r2[N];

int main(void) {
  for (int i = 0; i < N; i++) {
    v[i] = rnd_int(-10000, 10000);
    o1[i] = o2[i] = 12345;
    r1[i] = r2[i] = -1;
  }
#pragma omp simd
  for (int i = 0; i < N; i++)
    if (v[i] > 0)
      r1[i] = emit(&o1[i], v[i]);
  for (int i = 0; i < N; i++)
    if (i & 1)
      r2[i] = emit(o2 + i, v[i]);
  for (int i = 0; i < N; i++) {
    int w1 = 12345, w2 = 12345;
    int e1 = v[i] > 0 ? ref_emit(&w1, v[i]) : -1;
    int e2 = (i & 1) ? ref_emit(&w2, v[i]) : -1;
    CHECK_EQ("simd loop result", i, r1[i], e1);
    CHECK_EQ("simd loop memory", i, o1[i], w1);
    CHECK_EQ("plain loop result", i, r2[i], e2);
    CHECK_EQ("plain loop memory", i, o2[i], w2);
  }
  SIMD_DONE();
}
#endif
