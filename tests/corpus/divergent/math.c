// Divergent-control-flow corpus: math library calls and integer division
// under divergent control flow (issue 8, items 5 and 7).
//
// With -fno-math-errno clang turns fmodf/fmod into `frem`, and floor, ceil,
// round, trunc, rint, copysign, fabs, fmin, fmax and sqrt into `@llvm.*`
// intrinsics; batchify gives `frem` its exact vector form and varying
// 32-bit and narrower division its double/float form. The libm *call*
// forms (clang without -fno-math-errno, fdim, ldexp) are in
// tests/corpus/real/libm_calls.ll.
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

// fmodf in a loop whose trip count differs between lanes.
float fmod_loop(float x, float y) {
  float r = x;
  int n = 0;
  while (fabsf(r) > 1.0f && n < 12) {
    r = fmodf(r * 3.5f + 1.0f, y);
    n++;
  }
  return r + (float)n;
}

// Angle wrap with fmodf on the lanes that are out of range.
float wrap_angle(float a) {
  if (a > 3.14159274f || a < -3.14159274f) {
    float r = fmodf(a, 6.28318548f);
    if (r > 3.14159274f)
      r -= 6.28318548f;
    else if (r < -3.14159274f)
      r += 6.28318548f;
    return r;
  }
  return a;
}

// fmod on double in a branch, with NaN and zero divisors reaching it.
double fmod_branch_d(double x, double y) {
  if (x != x)
    return -1.0;
  if (y > 0.5)
    return fmod(x, y);
  return fmod(y, x) * 2.0;
}

// A rounding function per lane, chosen by a varying switch.
float round_mix(float x, int k) {
  switch (k & 7) {
  case 0: return floorf(x);
  case 1: return ceilf(x);
  case 2: return roundf(x);
  case 3: return truncf(x);
  case 4: return rintf(x);
  case 5: return floorf(x * 0.5f) + ceilf(x * 0.25f);
  default: return x;
  }
}

// copysign and fabs in divergent branches.
double sign_mag(double x, double y) {
  if (fabs(x) < fabs(y))
    return copysign(x, y);
  if (y != y)
    return fabs(y);
  return copysign(fabs(y) + 1.0, x);
}

// fminf/fmaxf with NaNs and signed zeros reaching them.
float nan_minmax(float x, float y) {
  if (x != x || y != y)
    return fmaxf(x, y) + fminf(y, x);
  if (x > 0.0f)
    return fminf(x, y);
  return fmaxf(x, y);
}

// sqrt on the lanes with a nonnegative argument, in a loop of varying length.
double sqrt_steps(double x) {
  if (!(x >= 0.0))
    return x;
  int n = 0;
  while (x > 2.0 && n < 40) {
    x = sqrt(x);
    n++;
  }
  return x + (double)n;
}

// Signed digit sum in a varying base: sdiv and srem in a divergent loop.
int idiv_loop(int a, int b) {
  if (b == 0 || b == -1 || b == 1)
    return a & 255;
  int s = 0;
  int n = 0;
  while (a != 0 && n < 40) {
    s += a % b;
    a = a / b;
    n++;
  }
  return s;
}

// Unsigned base conversion with a varying base 2..17.
unsigned udiv_digits(unsigned a, unsigned b) {
  unsigned base = (b & 15u) + 2u;
  unsigned h = 0u;
  while (a != 0u) {
    h = h * 31u + a % base;
    a /= base;
  }
  return h;
}

// abs and 16-bit division behind a guard.
short abs_div16(short a, short b) {
  if (b == 0 || (a == INT16_MIN && b == -1))
    return (short)abs(a);
  int q = a / b;
  int r = a % b;
  return (short)(abs(q) * 3 + r);
}
