/* A divergent switch. */
#include "harness.h"

#ifdef SIMD_FUNCS
DS(notinbranch)
SCALAR float F(op)(int code, float a, float b) BODY({
  switch (code & 7) {
  case 0: return a + b;
  case 1: return a - b;
  case 2: return a * b;
  case 3: return b != 0.0f ? a / b : 0.0f;
  case 5: return -a;
  case 6: return a > b ? a : b;
  default: return 1.0f;
  }
})
#else
#define N 1000
static float a[N], b[N], r1[N], r2[N];
static int c[N];

int main(void) {
  for (int i = 0; i < N; i++) {
    a[i] = rnd_float(100.0f);
    b[i] = rnd_float(3.0f);
    c[i] = (int)rnd();
  }
#pragma omp simd
  for (int i = 0; i < N; i++)
    r1[i] = op(c[i], a[i], b[i]);
  for (int i = 0; i < N; i++)
    r2[i] = op(i, b[i], a[i]);
  for (int i = 0; i < N; i++) {
    CHECK_EQ("simd loop", i, r1[i], ref_op(c[i], a[i], b[i]));
    CHECK_EQ("plain loop", i, r2[i], ref_op(i, b[i], a[i]));
  }
  SIMD_DONE();
}
#endif
