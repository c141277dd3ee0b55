// Divergent-control-flow corpus: branches without loops.
//
// if / else-if chains, nested ifs with early returns, switches with real
// fall-through, guarded division (signed and unsigned), NaN tests, joins
// with phis of 3+ incoming values, and i8/i16/i64/double/bool variants.
// All conditions depend on varying parameters.
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>

// if / else-if chain on an int, joining into one value.
int ifelse_chain(int x, int y) {
  unsigned r;
  if (x < -100)
    r = (unsigned)y * 3u;
  else if (x < 0)
    r = (unsigned)y ^ 0x55u;
  else if (x == 0)
    r = (unsigned)y >> 3;
  else if (x < 100)
    r = (unsigned)x * (unsigned)y;
  else
    r = (unsigned)y - (unsigned)x;
  return (int)(r + 1u);
}

// if / else-if chain on a float with a NaN arm first.
float piecewise(float x) {
  float r;
  if (x != x)
    r = -0.0f;
  else if (x < -1.0f)
    r = -1.0f - sqrtf(-x - 1.0f);
  else if (x < 0.0f)
    r = x * x * x;
  else if (x < 1.0f)
    r = x * (2.0f - x);
  else
    r = 1.0f + sqrtf(x - 1.0f);
  return r;
}

// Nested ifs with early returns at several depths.
int nested_early(int a, int b, int c) {
  if (a > 0) {
    if (b > 0) {
      if (c > 0)
        return 1;
      if (c == 0)
        return 2;
      return 3;
    } else if (b < -50) {
      return (int)((unsigned)a + (unsigned)b);
    }
    if (c & 1)
      return 4;
  } else {
    if (b == a)
      return 5;
    if (c < a) {
      if (c < b)
        return 6;
      return 7;
    }
  }
  return (int)(((unsigned)a ^ (unsigned)b) & 0xffu);
}

// switch with real fall-through and a default, on a varying selector.
unsigned switch_fall(unsigned x, unsigned y) {
  unsigned r = y;
  switch (x & 7u) {
  case 0:
    r += x;
    __attribute__((fallthrough));
  case 1:
    r ^= r << 3;
    __attribute__((fallthrough));
  case 2:
    r *= 2654435761u;
    break;
  case 3:
  case 4:
    r = ~r;
    __attribute__((fallthrough));
  case 5:
    r -= x >> 2;
    break;
  default:
    r ^= y >> 7;
    break;
  }
  return r;
}

// Sparse signed switch (compare chain / real switch), fall-through, default.
int switch_sparse(int x, int y) {
  unsigned r = (unsigned)y;
  switch (x) {
  case -1:
    r = r * 7u;
    __attribute__((fallthrough));
  case 100:
    r += 13u;
    break;
  case 1000000:
    r ^= 0xabcdu;
    __attribute__((fallthrough));
  case INT_MIN:
    r = r >> 1;
    break;
  case INT_MAX:
    return 0;
  default:
    r = r - (unsigned)x;
  }
  return (int)r;
}

// Guarded signed division and remainder (no /0, no INT_MIN / -1).
int div_guard_s(int n, int d) {
  int q = (d != 0 && !(n == INT_MIN && d == -1)) ? n / d : 0;
  int r = (d != 0 && !(n == INT_MIN && d == -1)) ? n % d : 0;
  return (int)((unsigned)q * 31u + (unsigned)r);
}

// Guarded unsigned division and remainder.
unsigned div_guard_u(unsigned n, unsigned d) {
  unsigned q = d != 0u ? n / d : 0u;
  unsigned r = d != 0u ? n % d : n;
  return q ^ (r << 16);
}

// Guarded 64-bit signed division; i64 in and out.
int64_t div_guard_s64(int64_t n, int64_t d) {
  if (d == 0)
    return n;
  if (n == INT64_MIN && d == -1)
    return INT64_MIN;
  return n / d;
}

// Guarded 16-bit signed division (int promotion makes -32768 / -1 defined,
// the result is truncated back to short).
short div_guard_i16(short n, short d) {
  if (d == 0)
    return (short)-1;
  return (short)(n / d);
}

// Divergent branches on NaN tests (x != x).
float nan_select(float x, float y) {
  float r;
  if (x != x)
    r = y;
  else if (y != y)
    r = x;
  else if (x < y)
    r = x * 2.0f;
  else
    r = y - x;
  return r;
}

// Double variant with early returns on NaN and infinities.
double nan_branch_d(double x, double y) {
  if (x != x)
    return y != y ? 0.0 : y;
  if (y != y)
    return -x;
  if (fabs(x) == __builtin_inf())
    return x > 0.0 ? y : -y;
  return x * y - (x + y);
}

// A divergent join with a phi of 4 incoming values, also at -O0 (each arm
// jumps straight to the join block; a plain else-if chain would give nested
// two-way joins at -O0).
int phi_join(int x, int y) {
  unsigned r;
  if (x > y) {
    r = (unsigned)x * 7u;
    if (r & 1u)
      r ^= 0xffu;
    goto join;
  }
  if (x == y) {
    r = 12345u;
    goto join;
  }
  if ((y & 3) == 0) {
    r = (unsigned)y >> 1;
    goto join;
  }
  r = (unsigned)x - (unsigned)y;
join:
  return (int)(r ^ (r >> 5));
}

// int8 in and out: branchy saturating add.
signed char i8_branchy(signed char a, signed char b) {
  int s = a + b;
  if (s > 127)
    return 127;
  if (s < -128)
    return -128;
  if (a < 0 && b < 0)
    return (signed char)(s / 2);
  return (signed char)s;
}

// int16 in and out with nested branches.
short i16_branches(short a, short b) {
  if (a > b) {
    if (a - b > 1000)
      return (short)(a - 1000);
    return b;
  }
  if (a == b)
    return 0;
  return (short)((a + b) / 2);
}

// 64-bit branches; the arithmetic wraps in unsigned.
int64_t i64_branches(int64_t a, int64_t b) {
  uint64_t ua = (uint64_t)a, ub = (uint64_t)b;
  if (a < 0) {
    if (b < 0)
      return (int64_t)(ua * ub);
    return (int64_t)(ub - ua);
  }
  if (b > a)
    return (int64_t)((ub >> 3) + ua);
  return (int64_t)(ua ^ (ub << 7));
}

// bool result with early returns on float tests.
bool in_annulus(float x, float y, float r0) {
  if (!(r0 >= 0.0f))
    return false;
  float d = x * x + y * y;
  if (d != d)
    return false;
  if (d < r0 * r0)
    return false;
  return d <= (r0 + 1.0f) * (r0 + 1.0f);
}

// bool parameter that is varying, guarding a float->int conversion that is
// range-checked first (NaN is rejected by the check).
int bool_param_convert(bool round_up, float x) {
  if (!(x >= -1e9f && x <= 1e9f))
    return -1;
  if (round_up)
    return (int)ceilf(x);
  return (int)x;
}
