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

/* Side effects in lane order: each active lane appends to a log. */
int log_n;
int log_v[4096];
#pragma omp declare simd uniform(base) linear(i)
void record(int *base, int i) {
  log_v[log_n++] = i;
  base[i] += 1;
}
