/* A declare simd function calling other declare simd functions (the callee
 * variants call each other's variants or inline them). */
#include "harness.h"

#ifdef SIMD_FUNCS
DS(notinbranch)
DS(inbranch)
SCALAR float F(sq)(float x) BODY({ return x * x; })

DS(notinbranch)
SCALAR float F(dist2)(float x, float y) BODY({ return F(sq)(x) + F(sq)(y); })

DS(uniform(r) notinbranch)
SCALAR int F(inside)(float x, float y, float r) BODY({
  float d = F(dist2)(x, y);
  if (d < r * r)
    return 1 + (int)F(sq)(d);
  return 0;
})
#else
#define N 1000
static float x[N], y[N];
static int r1[N], r2[N];

int main(void) {
  for (int i = 0; i < N; i++) {
    x[i] = rnd_float(4.0f);
    y[i] = rnd_float(4.0f);
  }
#pragma omp simd
  for (int i = 0; i < N; i++)
    r1[i] = inside(x[i], y[i], 2.5f);
  for (int i = 0; i < N; i++)
    r2[i] = inside(y[i], x[i], 3.0f);
  for (int i = 0; i < N; i++) {
    CHECK_EQ("simd loop", i, r1[i], ref_inside(x[i], y[i], 2.5f));
    CHECK_EQ("plain loop", i, r2[i], ref_inside(y[i], x[i], 3.0f));
  }
  SIMD_DONE();
}
#endif
