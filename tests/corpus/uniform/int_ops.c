// Uniform-control-flow corpus: integer operations.
//
// Every function here is a batchify test target (all parameters varying unless a
// VARIANT-PARAMS directive says otherwise).  No function branches on a parameter
// at -O2; functions that use C ternaries (which clang lowers to branch + phi at
// -O0) carry an O0-SKIP directive so the harness only tests them at -O2.
//
// Rules followed throughout: no memory, no calls except ones lowered to LLVM
// intrinsics, no division, shift amounts always masked, no signed overflow
// (wrapping arithmetic is done in unsigned types).
#include <stdbool.h>
#include <stdint.h>

// add / sub / mul / and / or / xor on u32.
unsigned u32_arith(unsigned a, unsigned b, unsigned c) {
  unsigned t = (a + b) * c - (a ^ b);
  return (t | (c & 0xffu)) ^ (a & ~b);
}

// Wrapping i64 arithmetic done through uint64_t so that no input overflows.
int64_t i64_arith(int64_t a, int64_t b) {
  uint64_t ua = (uint64_t)a, ub = (uint64_t)b;
  uint64_t r = ua * 3u + ub - (ua & ub) * 5u;
  return (int64_t)(r ^ (ua | 0x8000000000000001ull));
}

// shl / lshr / ashr on 32 bits with masked shift amounts.
unsigned shifts32(unsigned x, int y, unsigned s) {
  unsigned l = x << (s & 31);
  unsigned r = x >> ((s >> 5) & 31);
  unsigned a = (unsigned)(y >> ((s >> 10) & 31)); // arithmetic shift
  return l ^ r ^ a;
}

// shl / lshr / ashr on 64 bits with masked shift amounts.
uint64_t shifts64(uint64_t x, int64_t y, unsigned s) {
  uint64_t l = x << (s & 63);
  uint64_t r = x >> ((s >> 6) & 63);
  uint64_t a = (uint64_t)(y >> ((s >> 12) & 63));
  return l + r + a;
}

// Rotate idioms (clang -O2 turns these into llvm.fshl / llvm.fshr).
unsigned rotl32(unsigned x, unsigned s) {
  return (x << (s & 31)) | (x >> ((32u - s) & 31));
}

uint64_t rotr64(uint64_t x, unsigned s) {
  return (x >> (s & 63)) | (x << ((64u - s) & 63));
}

// 8-bit rotate on unsigned char (promotion to int, then truncation).
unsigned char rotl8(unsigned char x, unsigned char s) {
  unsigned k = s & 7u;
  return (unsigned char)((x << k) | (x >> ((8u - k) & 7u)));
}

// Signed clamp via ternaries (smin/smax at -O2; branches at -O0).
// O0-SKIP: clamp_i32
int clamp_i32(int x, int lo, int hi) {
  int t = x < lo ? lo : x;
  return t > hi ? hi : t;
}

// Unsigned min/max via ternaries.
// O0-SKIP: umin_umax
unsigned umin_umax(unsigned a, unsigned b, unsigned c) {
  unsigned mn = a < b ? a : b;
  unsigned mx = b > c ? b : c;
  return mn ^ (mx << 1);
}

// Absolute value via a ternary, computed in unsigned so INT_MIN is defined.
// O0-SKIP: iabs32
unsigned iabs32(int x) {
  return x < 0 ? 0u - (unsigned)x : (unsigned)x;
}

// Branch-free absolute value (sign-mask trick) - uniform even at -O0.
unsigned iabs32_bits(int x) {
  unsigned m = (unsigned)(x >> 31);
  return ((unsigned)x ^ m) - m;
}

// min/max/abs through __builtin_elementwise_* (llvm.smax/umin/abs at -O0 too).
int elementwise_minmax(int a, int b, unsigned c, unsigned d) {
  int mx = __builtin_elementwise_max(a, b);
  unsigned mn = __builtin_elementwise_min(c, d);
  int ab = __builtin_elementwise_abs(a); // llvm.abs(x, false): INT_MIN -> INT_MIN
  return (int)((unsigned)mx + mn + (unsigned)ab);
}

// Saturating add on i16 and u8 via elementwise builtins.
short sat_add_i16(short a, short b) {
  return __builtin_elementwise_add_sat(a, b);
}

unsigned char sat_sub_u8(unsigned char a, unsigned char b) {
  return __builtin_elementwise_sub_sat(a, b);
}

// Saturating i8 add written with ternaries (smin/smax at -O2).
// O0-SKIP: sat_add_i8_ternary
signed char sat_add_i8_ternary(signed char a, signed char b) {
  int s = a + b;
  s = s > 127 ? 127 : s;
  s = s < -128 ? -128 : s;
  return (signed char)s;
}

// popcount on 32 and 64 bits.
unsigned popcount_mix(unsigned x, unsigned long long y) {
  return (unsigned)__builtin_popcount(x) * 3u + (unsigned)__builtin_popcountll(y);
}

// count leading / trailing zeros with a defined result for zero.
unsigned ctz_clz_safe(unsigned x, uint64_t y) {
  return (unsigned)__builtin_ctzg(x, 32) + 64u * (unsigned)__builtin_clzg(y, 64);
}

// Byte swaps on 16/32/64 bits.
uint64_t bswap_mix(uint32_t x, uint64_t y, uint16_t z) {
  return (uint64_t)__builtin_bswap32(x) ^ __builtin_bswap64(y) ^
         ((uint64_t)__builtin_bswap16(z) << 17);
}

// Bit reversal on 32 and 8 bits.
unsigned bitrev_mix(unsigned x, unsigned char y) {
  return __builtin_bitreverse32(x) ^ (unsigned)__builtin_bitreverse8(y);
}

// unsigned char arithmetic: promotions to int, truncation back to i8.
unsigned char u8_arith(unsigned char a, unsigned char b) {
  return (unsigned char)(a * b + (a >> 3) - b);
}

// signed short arithmetic (short*short fits in int: no overflow).
short i16_arith(short a, short b) {
  return (short)(a * b - a + (b >> 2));
}

// unsigned short multiply done in unsigned int (65535*65535 overflows int).
unsigned short u16_mul(unsigned short a, unsigned short b) {
  return (unsigned short)((unsigned)a * b + 7u);
}

// Comparisons returned as bool.
bool lt_signed(int a, int b) { return a < b; }

bool cmp_mix(unsigned a, unsigned b, int c, int64_t d) {
  return (a < b) ^ (c > 0) ^ (d == -1);
}

// _Bool parameters combined with bitwise operators (no short-circuit branches).
bool bool_logic(bool a, bool b, bool c) {
  return (a & b) | (c ^ a);
}
