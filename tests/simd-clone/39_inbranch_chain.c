/* inbranch functions calling each other under divergent conditions, and a
 * _Bool result. */
#include "harness.h"

#ifdef SIMD_FUNCS
DS(inbranch)
DS(notinbranch)
SCALAR float F(damp)(float x) BODY({ return x > 1.0f ? 1.0f + (x - 1.0f) * 0.5f : x; })

DS(inbranch)
SCALAR float F(shape)(float x, float y) BODY({
  float r = y;
  if (x > 0.0f)
    r = F(damp)(x * y);
  else if (y > 0.0f)
    r = -F(damp)(y - x);
  return r;
})

DS(notinbranch)
SCALAR _Bool F(is_big)(float x) BODY({ return x > 2.0f || x < -2.0f; })
#else
#define N 1000
static float x[N], y[N], r1[N], r2[N];
static _Bool b[N];

int main(void) {
  for (int i = 0; i < N; i++) {
    x[i] = rnd_float(4.0f);
    y[i] = rnd_float(4.0f);
    r1[i] = r2[i] = 42.0f;
  }
#pragma omp simd
  for (int i = 0; i < N; i++) {
    if (y[i] != 0.0f)
      r1[i] = shape(x[i], y[i]);
    b[i] = is_big(x[i] * 1.5f);
  }
  for (int i = 0; i < N; i++)
    if (i % 3)
      r2[i] = shape(y[i], x[i]);
  for (int i = 0; i < N; i++) {
    CHECK_EQ("masked simd loop", i, r1[i], y[i] != 0.0f ? ref_shape(x[i], y[i]) : 42.0f);
    CHECK_EQ("simd loop bool", i, b[i], ref_is_big(x[i] * 1.5f));
    CHECK_EQ("plain loop", i, r2[i], (i % 3) ? ref_shape(y[i], x[i]) : 42.0f);
  }
  SIMD_DONE();
}
#endif
