// Divergent-control-flow corpus: classic iterative algorithms.
//
// Every loop here has a trip count or an exit that depends on a varying
// parameter, so different lanes leave the loop at different iterations.
// Every loop also has an explicit iteration cap, so it ends quickly for any
// input bit pattern (NaN, +-inf, INT_MIN, ...).
#include <math.h>
#include <stdint.h>

// Escape-time Mandelbrot iteration count, at most 256 iterations.
// NaN inputs never satisfy the escape test and run the full 256.
int mandel(float cx, float cy) {
  float x = 0.0f, y = 0.0f;
  int it;
  for (it = 0; it < 256; it++) {
    float x2 = x * x;
    float y2 = y * y;
    if (x2 + y2 > 4.0f)
      break;
    y = 2.0f * x * y + cy;
    x = x2 - y2 + cx;
  }
  return it;
}

// Collatz step count on unsigned (3n+1 wraps, which is defined), capped.
int collatz_steps(unsigned n) {
  int steps = 0;
  while (n > 1u && steps < 500) {
    if (n & 1u)
      n = 3u * n + 1u;
    else
      n >>= 1;
    steps++;
  }
  return steps;
}

// Newton iteration for sqrt with a convergence exit and a cap.
float newton_sqrt(float a) {
  if (!(a > 0.0f))
    return a == 0.0f ? a : __builtin_nanf("");
  if (a == __builtin_inff())
    return a;
  float x0 = 0.5f * a + 0.5f;
  for (int it = 0; it < 64; it++) {
    float x1 = 0.5f * (x0 + a / x0);
    if (fabsf(x1 - x0) < 1e-6f)
      return x1;
    x0 = x1;
  }
  return x0;
}

// Newton iteration for the cube root (double), sign restored at the end.
double newton_cbrt(double a) {
  if (!(fabs(a) < __builtin_inf()) || a == 0.0)
    return a;
  double t = fabs(a);
  double x0 = t > 1.0 ? t : 1.0;
  int it = 0;
  while (it < 100) {
    double x1 = (2.0 * x0 + t / (x0 * x0)) / 3.0;
    it++;
    if (fabs(x1 - x0) < 1e-12) {
      x0 = x1;
      break;
    }
    x0 = x1;
  }
  return a < 0.0 ? -x0 : x0;
}

// Euclid's gcd on unsigned, capped (47 steps suffice for 32-bit inputs).
unsigned gcd_u32(unsigned a, unsigned b) {
  for (int it = 0; it < 64 && b != 0u; it++) {
    unsigned t = a % b;
    a = b;
    b = t;
  }
  return a;
}

// Euclid's gcd on 64-bit unsigned, capped (93 steps suffice for 64 bits).
uint64_t gcd_u64(uint64_t a, uint64_t b) {
  int it = 0;
  while (b != 0u) {
    if (++it > 100)
      break;
    uint64_t t = a % b;
    a = b;
    b = t;
  }
  return a;
}

// Bisection for the real root of x^3 + x - c on [-101, 101] with a fixed cap
// of 48 steps and a divergent early exit (exact zero or no more precision).
float bisect_cubic(float c) {
  if (!(fabsf(c) <= 1.0e6f))
    return c;
  float lo = -101.0f, hi = 101.0f;
  for (int it = 0; it < 48; it++) {
    float mid = 0.5f * (lo + hi);
    float fm = mid * mid * mid + mid - c;
    if (fm == 0.0f || mid == lo || mid == hi)
      return mid;
    if (fm < 0.0f)
      lo = mid;
    else
      hi = mid;
  }
  return 0.5f * (lo + hi);
}

// Integer square root by Newton on unsigned, capped; exit when it stops
// decreasing.
unsigned isqrt_newton(unsigned n) {
  if (n < 2u)
    return n;
  unsigned x = n / 2u + 1u;
  for (int it = 0; it < 40; it++) {
    unsigned y = (x + n / x) / 2u;
    if (y >= x)
      break;
    x = y;
  }
  return x;
}
