// Uniform-control-flow corpus: loops and branches that are uniform.
//
// Two kinds of control flow appear here:
//  * loops with a constant trip count (their exit condition depends on no
//    parameter, so they are uniform with every parameter varying);
//  * loops / branches / a switch whose condition depends only on parameters
//    declared uniform ('u') with a VARIANT-PARAMS directive.
// Uniform trip counts are masked (n & 31, ...) so random parameter values never
// lead to billions of iterations in the execution oracle.
#include <stdbool.h>
#include <stdint.h>

// x^n by repeated multiplication; n is uniform.
// VARIANT-PARAMS: powi_loop vu
float powi_loop(float x, int n) {
  int m = n & 31;
  float r = 1.0f;
  for (int i = 0; i < m; i++)
    r *= x;
  return r;
}

// Constant-trip-count hash loop on unsigned (all parameters varying).
unsigned hash8(unsigned x) {
  unsigned h = 2166136261u;
  for (int i = 0; i < 8; i++)
    h = h * 31u + x;
  return h;
}

// Constant-trip-count loop mixing rotate, xor and the loop index.
unsigned mix_rounds(unsigned a, unsigned b) {
  for (int i = 0; i < 4; i++) {
    for (int j = 0; j < 3; j++) {
      a += b ^ (unsigned)(i * 3 + j);
      b = (b << 7) | (b >> 25);
      b ^= a;
    }
  }
  return a ^ b;
}

// Newton iterations with a constant trip count (float division is fine).
float newton_sqrt4(float x) {
  float y = x * 0.5f + 0.5f;
  for (int i = 0; i < 4; i++)
    y = 0.5f * (y + x / y);
  return y;
}

// Partial exponential series; the number of terms is uniform.
// VARIANT-PARAMS: exp_series vu
double exp_series(double x, int n) {
  int m = (n & 15) + 1;
  double term = 1.0, sum = 1.0;
  for (int k = 1; k <= m; k++) {
    term = term * x / (double)k;
    sum += term;
  }
  return sum;
}

// Multiply chain with a uniform multiplier (used as data) and a uniform count.
// VARIANT-PARAMS: mul_chain vuu
uint64_t mul_chain(uint64_t x, uint64_t m, unsigned n) {
  unsigned cnt = n & 15u;
  for (unsigned i = 0; i < cnt; i++)
    x = x * (m | 1u) + i;
  return x;
}

// Branch on a uniform flag.
// VARIANT-PARAMS: uniform_if vvu
unsigned uniform_if(unsigned x, unsigned k, bool flag) {
  unsigned r;
  if (flag)
    r = (x << (k & 31)) | (x >> ((32u - k) & 31));
  else
    r = x * 2654435761u + k;
  return r ^ (r >> 16);
}

// Switch on a uniform selector.
// VARIANT-PARAMS: mode_switch vvu
float mode_switch(float a, float b, int mode) {
  switch (mode & 3) {
  case 0:
    return a + b;
  case 1:
    return a * b;
  case 2:
    return a - b * 0.5f;
  default:
    return b;
  }
}

// Uniform loop with a uniform early-out condition inside the body.
// VARIANT-PARAMS: uniform_loop_break vuu
int uniform_loop_break(int x, unsigned n, unsigned stop) {
  unsigned acc = (unsigned)x;
  unsigned cnt = n & 31u;
  for (unsigned i = 0; i < cnt; i++) {
    if (i == (stop & 31u))
      break;
    acc = acc * 5u + (unsigned)x;
  }
  return (int)acc;
}

// Linear (step 1) index parameter used as data only.
// VARIANT-PARAMS: linear_ramp vl
float linear_ramp(float base, int i) {
  return base + (float)i * 0.5f;
}

// Uniform base and linear index; constant-trip loop on the mixed value.
// VARIANT-PARAMS: lane_hash ul
unsigned lane_hash(unsigned seed, unsigned idx) {
  unsigned h = seed ^ idx;
  for (int r = 0; r < 3; r++) {
    h ^= h >> 16;
    h *= 0x7feb352du;
    h ^= h >> 15;
  }
  return h;
}
