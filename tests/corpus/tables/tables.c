// Constant tables of one to four vector registers read at varying indices
// (emit/tables.rs): on AVX2 a `vpermps`/`vpermd` per 8-element register and
// blends by the index bits above 3; on AVX-512 a `vpermi2var` per pair of
// 16-element registers and a blend by bit 5. Tables of more registers, and
// other ISAs, gather. Every index an active lane uses is inside its table;
// inactive lanes' indices are anything.
#include <math.h>

static const int next16[16] = {3, 0, 9, 14, 2, 11, 7, 1, 13, 4, 15, 6, 10, 5, 8, 12};

// A 16-state machine walked until state 1 or 40 steps: the table read is in
// a divergent loop (two AVX2 registers).
int walk16(int s0) {
  unsigned s = (unsigned)s0 & 15, h = (unsigned)s0 >> 4;
  int steps = 0;
  while (s != 1 && steps < 40) {
    s = (unsigned)next16[(s ^ h) & 15];
    h >>= 1;
    steps++;
  }
  return steps;
}

// 20 entries: three AVX2 registers (the last one padded), two AVX-512
// registers; the read only under the range test.
static const int codes20[20] = {7,  -3, 2147483647, 0, 19, -2147483647 - 1, 42, 5, -9, 100,
                                11, 12, -13,       14, 1, 16,               -17, 18, 65536, -1};
int code20(int k) {
  return k >= 0 && k < 20 ? codes20[k] : -1;
}

// 32 floats read twice (four AVX2 registers, two AVX-512 registers), with
// signed zeros, infinities and a subnormal in the table.
static const float curve32[32] = {0.0f, 0.12f, 0.31f, 0.5f, 0.66f, 0.8f, 0.9f, 0.97f,
                                  1.0f, -0.0f, INFINITY, 0.8f, 0.66f, 0.5f, 0.31f, 1e-40f,
                                  0.0f, -0.12f, -0.31f, -0.5f, -INFINITY, -0.8f, -0.9f, -0.97f,
                                  -1.0f, -0.97f, -0.9f, -0.8f, -0.66f, -0.5f, -0.31f, 3e38f};
float lerp32(float x) {
  float t = fmaxf(0.0f, fminf(x * 4.0f, 30.99f));
  int k = (int)t;
  float f = t - (float)k;
  return curve32[k] + (curve32[(k + 1) & 31] - curve32[k]) * f;
}

// 64 floats: four AVX-512 registers (two `vpermi2var` and a blend); eight
// AVX2 registers, a gather. In a divergent branch, with a 64-bit index.
static const float wave64[64] = {
    0.0f,  0.1f,  0.2f,  0.3f,  0.4f,  0.5f,  0.6f,  0.7f,  0.8f,  0.9f,  1.0f,  1.1f,  1.2f,
    1.3f,  1.4f,  1.5f,  -0.0f, -0.1f, -0.2f, -0.3f, -0.4f, -0.5f, -0.6f, -0.7f, -0.8f, -0.9f,
    -1.0f, -1.1f, -1.2f, -1.3f, -1.4f, -1.5f, 2.0f,  2.1f,  2.2f,  2.3f,  2.4f,  2.5f,  2.6f,
    2.7f,  2.8f,  2.9f,  3.0f,  3.1f,  3.2f,  3.3f,  3.4f,  3.5f,  -2.0f, -2.1f, -2.2f, -2.3f,
    -2.4f, -2.5f, -2.6f, -2.7f, -2.8f, -2.9f, -3.0f, -3.1f, -3.2f, -3.3f, -3.4f, -3.5f};
float wave(long k, float x) {
  if (x > 0.0f)
    return x * wave64[(unsigned long)k % 64u];
  return x;
}

// A 24-entry int table indexed by a byte (three AVX2 registers).
static const int mix24[24] = {1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048,
                              -1, -2, -4, -8, -16, -32, -64, -128, -256, -512, -1024, -2048};
int mix(unsigned char b, int y) {
  return y + mix24[b % 24u];
}
