/* double function with a divergent loop (trip count depends on the lane's
 * value): a Collatz-like step count, notinbranch. */
#include "harness.h"

#ifdef SIMD_FUNCS
DS(notinbranch)
SCALAR double F(steps)(double x) BODY({
  double n = 0.0;
  while (x > 1.0 && n < 200.0) {
    if (x - 2.0 * (double)(long)(x / 2.0) == 0.0)
      x = x / 2.0;
    else
      x = 3.0 * x + 1.0;
    n = n + 1.0;
  }
  return n + x * 0.25;
})
#else
#define N 777
static double x[N], r1[N], r2[N];

int main(void) {
  for (int i = 0; i < N; i++)
    x[i] = (double)rnd_int(-3, 5000);
#pragma omp simd
  for (int i = 0; i < N; i++)
    r1[i] = steps(x[i]);
  for (int i = 0; i < N; i++)
    r2[i] = steps(x[i] + 1.0);
  for (int i = 0; i < N; i++) {
    CHECK_EQ("simd loop", i, r1[i], ref_steps(x[i]));
    CHECK_EQ("plain loop", i, r2[i], ref_steps(x[i] + 1.0));
  }
  SIMD_DONE();
}
#endif
