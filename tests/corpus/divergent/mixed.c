// Divergent-control-flow corpus: mixed types and parameter kinds.
//
// u8/i16/i64/double/bool variants of divergent loops, a linear parameter
// driving a branch, a uniform tolerance in a divergent Newton loop, and
// range-checked float->int conversions.
#include <math.h>
#include <stdbool.h>
#include <stdint.h>

// Linear lane index selects the branch: alternate lanes take alternate arms.
// VARIANT-PARAMS: linear_divergent ul
int linear_divergent(int base, int idx) {
  unsigned r = (unsigned)base;
  if (idx & 1)
    r = r * 3u + (unsigned)idx;
  else
    r = (r >> 2) ^ (unsigned)idx;
  return (int)r;
}

// Trial-division primality test, bool result. The loop has two exits and a
// varying trip count, capped at 300 odd divisors (so large n may be reported
// prime wrongly; only determinism matters here).
bool is_prime_capped(unsigned n) {
  if (n < 2u)
    return false;
  if (n < 4u)
    return true;
  if ((n & 1u) == 0u)
    return false;
  for (unsigned d = 3u; d < 600u; d += 2u) {
    if (d * d > n)
      return true;
    if (n % d == 0u)
      return false;
  }
  return true;
}

// unsigned char loop: repeatedly subtract until below y (capped).
unsigned char u8_loop(unsigned char x, unsigned char y) {
  int it = 0;
  while (x >= y && it < 300) {
    x = (unsigned char)(x - y - 1u);
    it++;
  }
  return (unsigned char)(x + it);
}

// int16 loop: average towards a target, varying exit.
short i16_converge(short x, short target) {
  int v = x;
  for (int it = 0; it < 20; it++) {
    if (v == target)
      break;
    v = (v + target) / 2;
  }
  return (short)v;
}

// int64 loop: Collatz-like on a 64-bit value, step count folded in.
int64_t i64_collatz(int64_t x) {
  uint64_t u = (uint64_t)x;
  int64_t steps = 0;
  while (u > 1u && steps < 300) {
    if (u & 1u)
      u = u * 3u + 1u;
    else
      u >>= 1;
    steps++;
  }
  return steps * 1000000 + (int64_t)(u & 0xfffu);
}

// Newton for sqrt on doubles with a uniform tolerance scale and a varying
// convergence exit.
// VARIANT-PARAMS: newton_sqrt_tol vu
double newton_sqrt_tol(double a, int tol_exp) {
  if (!(a >= 0.0) || a == __builtin_inf())
    return a;
  if (a == 0.0)
    return 0.0;
  double eps = 1e-14 * (double)((tol_exp & 31) + 1);
  double x = a > 1.0 ? a : 1.0;
  for (int it = 0; it < 1100; it++) {
    double nx = 0.5 * (x + a / x);
    if (fabs(nx - x) < eps)
      return nx;
    x = nx;
  }
  return x;
}

// Float NaN/inf classification inside a loop with divergent selects.
float nan_loop(float x, float y) {
  float acc = 0.0f;
  for (int i = 0; i < 8; i++) {
    if (x != x) {
      acc += 1.0f;
      x = y;
    } else if (fabsf(x) > 1e30f) {
      acc -= 2.0f;
      x = x * 0.0f;
    } else {
      acc = acc * 0.5f + x;
      x = x * y;
    }
  }
  return acc;
}

// Range-checked float->int conversion that feeds a varying loop bound.
int float_count_loop(float x) {
  if (!(x >= -1e9f && x <= 1e9f))
    return -1;
  int n = (int)x;
  unsigned acc = 0u;
  for (int i = 0; i < (n & 63); i++)
    acc += (unsigned)i * 2654435761u;
  return (int)(acc >> 3);
}

// double -> int64 conversion after a range check, then a branchy digit loop.
int64_t double_digit_sum(double x) {
  if (!(x > -1e15 && x < 1e15))
    return -1;
  int64_t v = (int64_t)x;
  uint64_t u = v < 0 ? 0u - (uint64_t)v : (uint64_t)v;
  int64_t s = 0;
  for (int it = 0; u != 0u && it < 20; it++) {
    int64_t d = (int64_t)(u % 10u);
    if (d & 1)
      s += d;
    else
      s -= d;
    u /= 10u;
  }
  return v < 0 ? -s : s;
}

// Unsigned division and remainder in a divergent loop by a divisor that is a
// parameter: the clone multiplies by the divisor's reciprocal, computed once
// before the loop, and corrects by one step (emit/division.rs). Exact
// multiples of d (`m`) are the case where the estimate can come out one low.
unsigned remdiv_walk(unsigned a, unsigned d, unsigned n) {
  if (d == 0u)
    return a;
  unsigned acc = 0u;
  for (unsigned j = 0u; j < (n & 15u); j++) {
    unsigned x = a + j * 0x9e3779b9u;
    unsigned m = (x / d) * d;
    acc = acc * 31u + x % d + x / d + m % d + m / d + (m - 1u) % d;
  }
  return acc;
}

// b^e mod m by square-and-multiply, as in `cargo xtask bench-gcc`'s modpow.
unsigned modpow_u32(unsigned b, unsigned e, unsigned m) {
  if (m == 0u)
    return 0u;
  unsigned r = 1u % m;
  b %= m;
  while (e != 0u) {
    if (e & 1u)
      r = r * b % m;
    b = b * b % m;
    e >>= 1;
  }
  return r;
}

// A uniform branch after a divergent one (the `expf` call keeps it a
// branch), with a uniform loop on one side, so its region is linearized
// rather than kept as real control flow: the phi where the uniform
// branch's two paths meet is no join of the divergent branch (its lanes
// met again before), so it stays uniform (analysis/divergence.rs's joins).
// VARIANT-PARAMS: uniform_join_linear vu
float uniform_join_linear(float x, int u) {
  float v = x;
  if (x > 0.0f)
    v = expf(x * 0.25f);
  unsigned k;
  if (u > 3) {
    k = 1u;
    for (int i = 0; i < (u & 31); i++)
      k = k * 3u + (k >> 4);
  } else {
    k = 7u - (unsigned)u;
  }
  return v * (float)(k & 1023u);
}

// The same join, inside a divergent loop: the uniform phi is read in the
// loop's next trip, whichever lanes are still active.
// VARIANT-PARAMS: uniform_join_in_loop vu
// (Unsigned arithmetic: no overflow; the inner recurrence keeps clang's
// loop vectorizer out.)
unsigned uniform_join_in_loop(int x, int u) {
  unsigned acc = 0u;
  for (int t = 0; t < (x & 15); t++) {
    unsigned k;
    if (((unsigned)u + (unsigned)t) & 2u) {
      k = (unsigned)t;
      for (int i = 0; i < (u & 7); i++)
        k = k * 5u + (unsigned)(i ^ t);
    } else {
      k = 0u - (unsigned)t;
    }
    acc += k * ((unsigned)x + (unsigned)t);
  }
  return acc;
}

// The reciprocal division's edge cases in one walk: dividends that are exact
// multiples of d (the estimate may come out one low there), one below and
// one above them, and quotients counted down from the largest (dividends
// near 2^32 - 1). The oracle's divisors include 1, 2, 2^31 - 1, 2^31 and
// 2^32 - 1 among random ones.
unsigned remdiv_edges(unsigned d, unsigned k) {
  if (d == 0u)
    return 0u;
  unsigned top = 0xffffffffu / d;
  unsigned acc = 0u;
  for (unsigned j = 0u; j < 24u; j++) {
    unsigned t = (j * (k | 1u)) & 63u;
    unsigned q = t > top ? 0u : top - t;
    unsigned m = q * d;
    acc = acc * 33u + m / d + m % d;
    acc = acc * 33u + (m - 1u) / d + (m - 1u) % d;
    acc = acc * 33u + (m + 1u) / d + (m + 1u) % d;
    acc = acc * 33u + (0xffffffffu - t) / d + (0xffffffffu - t) % d;
  }
  return acc;
}
