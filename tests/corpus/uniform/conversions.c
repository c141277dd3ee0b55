// Uniform-control-flow corpus: conversions between widths and domains.
//
// sext/zext/trunc between i8/i16/i32/i64, bool<->int, sitofp/uitofp,
// fpext/fptrunc, and one float->int conversion of a value that is in range for
// every input.  No other float->int conversion (out-of-range fptosi is poison).
#include <stdbool.h>
#include <stdint.h>

// sign/zero extension of i8/i16 up to i64 (sums are far from overflowing).
int64_t ext_mix(signed char a, unsigned char b, short c, unsigned short d) {
  return (int64_t)a + (int64_t)b * 3 + (int64_t)c * 5 - (int64_t)d;
}

// i32 -> i64 sign/zero extension and i64 arithmetic in unsigned.
uint64_t ext32_64(int a, unsigned b) {
  return (uint64_t)(int64_t)a * 7u + (uint64_t)b;
}

// truncations i64 -> i16 / i32 -> i8.
unsigned char trunc_chain(uint64_t x) {
  return (unsigned char)((uint16_t)(x >> 7) + (uint32_t)x);
}

// truncation to a signed narrow type (modular in clang).
short trunc_signed(int64_t x, int y) {
  return (short)((uint64_t)x ^ ((uint64_t)(unsigned)y << 3));
}

// sitofp / uitofp, 32 bit.
float i32_to_float(int a, unsigned b) {
  return (float)a + (float)b * 0.25f;
}

// sitofp / uitofp, 64 bit.
double i64_to_double(int64_t a, uint64_t b) {
  return (double)a * 0.5 + (double)b;
}

// sitofp / uitofp from narrow types.
float narrow_to_float(signed char a, unsigned short b, bool c) {
  return (float)a - (float)b + (float)c;
}

// fpext and fptrunc.
double float_to_double(float x, double y) {
  return (double)x * y + (double)(float)y;
}

float double_to_float(double x, float y) {
  return (float)(x * 3.0) - y;
}

// int -> float -> int with the value provably in range [0, 127.5].
int byte_roundtrip(unsigned x) {
  return (int)((float)(x & 0xffu) * 0.5f);
}

// bool <-> int.
int bool_sum(bool a, bool b, int x) {
  return a + b * 2 + (x != 0) * 4;
}

bool int_to_bool(unsigned char x, int64_t y) {
  return (bool)(x & 0x10) ^ (bool)y;
}

// Bit casts between float and integer (-O0 keeps a stack slot: O2 only).
// O0-SKIP: float_bits
uint32_t float_bits(float x) {
  return __builtin_bit_cast(uint32_t, x) ^ 0x80000000u;
}

// O0-SKIP: fabs_by_bits
double fabs_by_bits(double x) {
  uint64_t b = __builtin_bit_cast(uint64_t, x) & 0x7fffffffffffffffull;
  return __builtin_bit_cast(double, b);
}
