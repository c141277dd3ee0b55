// Uniform-control-flow corpus: float and double operations.
//
// Compile with -fno-math-errno so that sqrt/fabs/floor/... become LLVM
// intrinsics.  Note that clang's default -ffp-contract=on fuses `a*b + c`
// written in one expression into llvm.fmuladd; that is intended coverage.
// Float division never traps, so smoothstep may divide.
#include <math.h>
#include <stdbool.h>
#include <stdint.h>

// + - * in one order ...
float f_arith(float a, float b, float c) {
  return (a + b) * c - a;
}

// ... and in another (separate statements: no contraction).
float f_arith_order(float a, float b, float c) {
  float t = b * c;
  float u = a - t;
  return u + (c - a) * 0.5f;
}

double d_arith(double a, double b, double c) {
  double t = a * b;
  return (t - c) * (a + 1.0) - b;
}

// Explicit fused multiply-add.
float fma_f(float a, float b, float c) {
  return fmaf(a, b, c) + __builtin_fmaf(b, c, a);
}

double fma_d(double a, double b, double c) {
  return fma(a, b, c) - fma(c, c, -b);
}

// fabs and sqrt on both widths (sqrt of a negative number is just NaN).
float fabs_sqrt(float x, double y) {
  return sqrtf(fabsf(x)) + (float)sqrt(fabs(y));
}

// Rounding intrinsics, float.
float rounding_f(float x) {
  return floorf(x) + 2.0f * ceilf(x) - 4.0f * truncf(x) + 8.0f * roundf(x) -
         16.0f * rintf(x);
}

// Rounding intrinsics, double.
double rounding_d(double x, double y) {
  double a = floor(x) - ceil(y);
  double b = trunc(x * 0.75) + round(y * 1.5);
  return a * 3.0 + b + rint(x - y) + nearbyint(y);
}

float copysign_mix(float x, float y, double z) {
  return copysignf(x, y) + (float)copysign(z, (double)x);
}

// fminf/fmaxf -> llvm.minnum / llvm.maxnum.
float fminmax(float a, float b, float c) {
  return fmaxf(fminf(a, b), c) - fmin((double)a, (double)c);
}

// IEEE-754 2019 minimum/maximum (NaN-propagating) via elementwise builtins.
float fminimum_maximum(float a, float b) {
  return __builtin_elementwise_maximum(a, b) * 2.0f +
         __builtin_elementwise_minimum(a, b);
}

// Float comparisons returned as bool (ordered and unordered predicates).
bool fcmp_lt(float a, float b) { return a < b; }

bool fcmp_mix(float a, float b, double c) {
  return (a != b) ^ (c >= 0.0) ^ __builtin_isnan(a) ^ ((double)b == c);
}

// Float select via a ternary.
// O0-SKIP: fselect
float fselect(float a, float b, float x) {
  return x > 0.0f ? a : b;
}

// Double select on an integer condition.
// O0-SKIP: dselect_int
double dselect_int(double a, double b, int k) {
  return (k & 4) ? a * 2.0 : b - 1.0;
}

// smoothstep(e0, e1, x): clamp((x-e0)/(e1-e0), 0, 1), then t*t*(3-2t).
// Clamping with fminf/fmaxf keeps it branch-free even at -O0.
float smoothstep(float e0, float e1, float x) {
  float t = (x - e0) / (e1 - e0);
  t = fminf(fmaxf(t, 0.0f), 1.0f);
  return t * t * (3.0f - 2.0f * t);
}

// Polynomial by Horner's rule (fmuladd at -O2 through contraction).
double horner(double x) {
  return (((0.5 * x - 1.25) * x + 3.0) * x - 0.125) * x + 7.0;
}

float lerp(float a, float b, float t) {
  return a + t * (b - a);
}

double det2(double a, double b, double c, double d) {
  return a * d - b * c;
}

// Quake III fast inverse square root with __builtin_bit_cast.  At -O0 the bit
// cast goes through a stack slot that mem2reg cannot promote (type-punned
// load), so this one is -O2 only.
// O0-SKIP: rsqrt_quake
float rsqrt_quake(float x) {
  uint32_t i = __builtin_bit_cast(uint32_t, x);
  i = 0x5f3759dfu - (i >> 1);
  float y = __builtin_bit_cast(float, i);
  return y * (1.5f - 0.5f * x * y * y);
}

// fneg in several positions, float and double.
double fneg_mix(float x, double y) {
  float nx = -x;
  return (double)(nx * 2.0f) - (-y) * (double)(-nx);
}
