/* SVE variants built by batchify from clang's `declare simd` attributes
 * (`-march=armv8-a+sve` asks for `_ZGVsMx...` variants only), called by
 * caller.c through ACLE types. Compiled as the callee translation unit. */
#include <math.h>

#pragma omp declare simd
float fblend(float x, float y) { return x < y ? x * y : x + y; }

#pragma omp declare simd uniform(a) linear(p)
double dscale(const double *p, double a) { return *p * a; }

/* A divergent loop (escape count) on ints. */
#pragma omp declare simd
int collatz(int n) {
  int steps = 0;
  while (n > 1 && steps < 200) {
    n = (n & 1) ? 3 * n + 1 : n / 2;
    steps++;
  }
  return steps;
}

/* 64-bit integers (2 lanes per 128 bits). Mixed widths (a `short`
 * argument with a `long` result) give unpacked vectors such as
 * <vscale x 2 x i16>, which no ACLE type expresses, so C cannot call them. */
#pragma omp declare simd
long widen(long s, long k) { return s * k - (k >> 3) + (s % 7); }

/* A gather under a divergent condition and a call of a module function
 * (a callee clone inside the vectorized bodies). */
__attribute__((noinline)) static float poly(float x) { return x * x - 3.0f * x + 1.0f; }
#pragma omp declare simd uniform(t)
float lookup(const float *t, int k) { return (k >= 0 && k < 64) ? poly(t[k]) : -1.0f; }

/* 8-bit lanes (16 per 128 bits), called with every lane on. */
#pragma omp declare simd notinbranch
unsigned char sat8(unsigned char a, unsigned char b) {
  unsigned s = (unsigned)a + b;
  return s > 255 ? 255 : (unsigned char)s;
}

/* 16-bit lanes, a private array and two divergent loops. */
#pragma omp declare simd
short digits(short x) {
  char buf[8];
  int n = 0, v = x < 0 ? -x : x;
  do {
    buf[n++] = (char)(v % 10);
    v /= 10;
  } while (v && n < 8);
  int s = 0;
  for (int k = 0; k < n; k++) s = s * 3 + buf[k];
  return (short)s;
}

/* A linear index whose step is a uniform parameter (`ls2`) into an
 * aligned uniform pointer (`a16`): a strided gather. (A pointer with a
 * variable step is refused: its step counts elements.) */
#pragma omp declare simd uniform(t, s) linear(i : s) aligned(t : 16)
float strided(const float *t, int i, int s) { return t[i] * 0.5f + t[s]; }

/* Side effects in lane order: a call batchify cannot batch (`note` is
 * the caller's) runs once per active lane, in lane order, also in the
 * vectorized bodies; the store beside it is one masked vector store. */
void note(int);
#pragma omp declare simd uniform(base) linear(i)
void record(int *base, int i) {
  note(i);
  base[i] += 1;
}
