// Already-vectorized input (C): functions that clang -O2 vectorizes before
// batchify sees them (vector arithmetic, splats, shuffles, reductions,
// early-exit searches). See README.md.
#include <stdint.h>

// An integer reduction over a uniform table: vector loads, a vector
// xor/mul and llvm.vector.reduce.add.
// VARIANT-PARAMS: xor_sum uv
int xor_sum(const int t[static 32], int x) {
  int s = 0;
  for (int k = 0; k < 32; k++)
    s += (t[k] ^ x) * 3;
  return s;
}

// Counting table entries below a varying key: a vector compare, zext and
// reduction.
// VARIANT-PARAMS: count_below uv
int count_below(const int t[static 64], int key) {
  int n = 0;
  for (int k = 0; k < 64; k++)
    n += t[k] < key;
  return n;
}

// The same count over a uniform length (at most 1023): clang vectorizes the
// loop with four interleaved <8 x i32> accumulators, which batchify's
// prepare merges into one (prepare/reductions.rs).
// VARIANT-PARAMS: count_below_n uuv
int count_below_n(const int t[static 1024], int len, int key) {
  int n = 0;
  for (int k = 0; k < (len & 1023); k++)
    n += t[k] < key;
  return n;
}

// A maximum over a uniform table scaled by a varying value: smax reduction.
// VARIANT-PARAMS: max_scaled uv
int max_scaled(const int t[static 16], int x) {
  int m = -2147483647 - 1;
  for (int k = 0; k < 16; k++) {
    int v = t[k] * x;
    m = v > m ? v : m;
  }
  return m;
}

// Early-exit search for the first entry at or above a varying key.
// VARIANT-PARAMS: first_at_least uv
int first_at_least(const int t[static 64], int key) {
  for (int k = 0; k < 64; k++)
    if (t[k] >= key)
      return k;
  return -1;
}

// Byte arithmetic over a uniform table (wide byte vectors).
// VARIANT-PARAMS: byte_mix uv
unsigned byte_mix(const unsigned char t[static 64], unsigned char x) {
  unsigned s = 0;
  for (int k = 0; k < 64; k++)
    s += (unsigned char)(t[k] + x) >> 1;
  return s;
}

// Straight-line code the SLP vectorizer packs into vectors.
// VARIANT-PARAMS: slp_poly vvvv
float slp_poly(float a, float b, float c, float d) {
  float p0 = a * 1.5f + b, p1 = b * 2.5f + c, p2 = c * 3.5f + d, p3 = d * 4.5f + a;
  return (p0 * p1) - (p2 * p3);
}

// A divergent loop around a vectorized inner reduction.
// VARIANT-PARAMS: outer_divergent uv
int outer_divergent(const int t[static 16], int x) {
  int acc = 0, rounds = 0;
  while (acc < x && rounds < 20) {
    int s = 0;
    for (int k = 0; k < 16; k++)
      s += t[k] & (x + rounds);
    acc += (s & 255) + 1;
    rounds++;
  }
  return acc;
}

// 64-bit sums of products (vector i64 multiply and add).
// VARIANT-PARAMS: dot64 uv
int64_t dot64(const int64_t t[static 16], int64_t x) {
  int64_t s = 0;
  for (int k = 0; k < 16; k++)
    s += t[k] * (x + k);
  return s;
}
