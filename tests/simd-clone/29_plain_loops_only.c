/* Called only from plain loops (no omp simd): GCC -O3 vectorizes such loops
 * (for functions it knows have no side effects: `const` here)
 * with the clones too; two functions, float and int. */
#include "harness.h"

#ifdef SIMD_FUNCS
DS(notinbranch)
SCALAR __attribute__((const)) float F(lerp)(float a, float b, float t) BODY({ return a + (b - a) * t; })
DS(uniform(k) notinbranch)
SCALAR __attribute__((const)) int F(rotl)(int x, int k) BODY({
  unsigned v = (unsigned)x;
  return (int)((v << k) | (v >> (32 - k)));
})
#else
#define N 1000
static float a[N], b[N], t[N], r1[N];
static int x[N], r2[N];

int main(void) {
  for (int i = 0; i < N; i++) {
    a[i] = rnd_float(10.0f);
    b[i] = rnd_float(10.0f);
    t[i] = rnd_float(1.0f);
    x[i] = (int)rnd();
  }
  for (int i = 0; i < N; i++)
    r1[i] = lerp(a[i], b[i], t[i]);
  for (int i = 0; i < N; i++)
    r2[i] = rotl(x[i], 5);
  for (int i = 0; i < N; i++) {
    CHECK_EQ("float loop", i, r1[i], ref_lerp(a[i], b[i], t[i]));
    CHECK_EQ("int loop", i, r2[i], ref_rotl(x[i], 5));
  }
  SIMD_DONE();
}
#endif
