/* Special floating-point values (NaN, infinities, signed zeros,
 * subnormals) through comparisons, selects and bit manipulation. */
#include "harness.h"

#ifdef SIMD_FUNCS
DS(notinbranch)
SCALAR double F(classify)(double x, double y) BODY({
  unsigned long bits;
  memcpy(&bits, &x, sizeof bits);
  if (x != x)
    return -1.0;
  if (x == y)
    return 0.0 * x; /* keeps the sign of zero */
  if ((bits >> 52 & 0x7ff) == 0)
    return (double)(bits & 0xff) + 0.5;
  double m = x < y ? x : y;
  return m - (x > y ? x : y) * 0.25;
})
#else
#define N 1024
static double x[N], y[N], r1[N], r2[N];
static const double special[] = {0.0, -0.0, 1.0, -1.0, __builtin_inf(), -__builtin_inf(), __builtin_nan(""),
                                 4.9e-324, -2.2e-308, 1e308, 0.5, -3.25};

int main(void) {
  for (int i = 0; i < N; i++) {
    x[i] = (i & 3) ? special[rnd() % 12] : (double)rnd_float(5.0f);
    y[i] = (i & 5) ? special[rnd() % 12] : (double)rnd_float(5.0f);
  }
#pragma omp simd
  for (int i = 0; i < N; i++)
    r1[i] = classify(x[i], y[i]);
  for (int i = 0; i < N; i++)
    r2[i] = classify(y[i], x[i]);
  for (int i = 0; i < N; i++) {
    CHECK_EQ("simd loop", i, r1[i], ref_classify(x[i], y[i]));
    CHECK_EQ("plain loop", i, r2[i], ref_classify(y[i], x[i]));
  }
  SIMD_DONE();
}
#endif
