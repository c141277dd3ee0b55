// Calls the variants of wide.c whose GCC 12 lowering differs from LLVM's
// natural one, declared as GCC passes them: results wider than the register
// come back in memory (a struct of vectors, returned through a hidden
// pointer), AVX integer vectors travel in 128-bit pieces. Each is called under
// its own name (batchify's clone) and with a "gcc" prefix (GCC 12's own clone
// of the same source, renamed with objcopy); both must equal the scalar
// function. Built with gcc -O2 -mavx2. Prints "<n> checked, <bad> differ".
#include <immintrin.h>
#include <stdio.h>
#include <stdlib.h>
long bar(long, long, long);
int foo(int);
int foo8(int, int);
typedef struct { __m128i v[4]; } x4;
typedef struct { __m256i v[2]; } y2;
typedef struct { __m128i v[2]; } x2;
#define X12 __m128i, __m128i, __m128i, __m128i, __m128i, __m128i, __m128i, __m128i, __m128i, __m128i, __m128i, __m128i
x4 _ZGVbN8vvv_bar(X12); x4 gcc_ZGVbN8vvv_bar(X12);
x4 _ZGVcN8vvv_bar(X12); x4 gcc_ZGVcN8vvv_bar(X12);
y2 _ZGVdN8vvv_bar(__m256i, __m256i, __m256i, __m256i, __m256i, __m256i);
y2 gcc_ZGVdN8vvv_bar(__m256i, __m256i, __m256i, __m256i, __m256i, __m256i);
x2 _ZGVcN8vv_foo8(__m128i, __m128i, __m128i, __m128i); x2 gcc_ZGVcN8vv_foo8(__m128i, __m128i, __m128i, __m128i);
x2 _ZGVcM8vv_foo8(__m128i, __m128i, __m128i, __m128i, __m128i, __m128i);
x2 gcc_ZGVcM8vv_foo8(__m128i, __m128i, __m128i, __m128i, __m128i, __m128i);
__m128i _ZGVcN4v_foo(__m128i); __m128i gcc_ZGVcN4v_foo(__m128i);
__m128i _ZGVcM4v_foo(__m128i, __m128i); __m128i gcc_ZGVcM4v_foo(__m128i, __m128i);
#define L(p, k) _mm_loadu_si128((const __m128i *)(p) + (k))
#define Y(p, k) _mm256_loadu_si256((const __m256i *)(p) + (k))
static long checked, bad;
static void check(const char *what, int lane, long got, long want) {
  checked++;
  if (got != want && bad++ < 5) printf("%s lane %d: got %ld want %ld\n", what, lane, got, want);
}
int main(void) {
  for (int t = 0; t < 500; t++) {
    long a[8], b[8], c[8], r[8];
    int x[8], y[8], m[8], ri[8];
    for (int k = 0; k < 8; k++) {
      a[k] = rand() - RAND_MAX / 2; b[k] = rand() % 1000 - 500; c[k] = (long)rand() << 20;
      x[k] = rand() % 2000 - 1000; y[k] = rand() % 2000 - 1000; m[k] = rand() & 1 ? -1 : 0;
    }
#define BAR_X(F) { x4 o = F(L(a,0), L(a,1), L(a,2), L(a,3), L(b,0), L(b,1), L(b,2), L(b,3), L(c,0), L(c,1), L(c,2), L(c,3)); \
    _mm_storeu_si128((__m128i *)r, o.v[0]); _mm_storeu_si128((__m128i *)r + 1, o.v[1]); \
    _mm_storeu_si128((__m128i *)r + 2, o.v[2]); _mm_storeu_si128((__m128i *)r + 3, o.v[3]); \
    for (int k = 0; k < 8; k++) check(#F, k, r[k], bar(a[k], b[k], c[k])); }
    BAR_X(_ZGVbN8vvv_bar) BAR_X(gcc_ZGVbN8vvv_bar) BAR_X(_ZGVcN8vvv_bar) BAR_X(gcc_ZGVcN8vvv_bar)
#define BAR_Y(F) { y2 o = F(Y(a,0), Y(a,1), Y(b,0), Y(b,1), Y(c,0), Y(c,1)); \
    _mm256_storeu_si256((__m256i *)r, o.v[0]); _mm256_storeu_si256((__m256i *)r + 1, o.v[1]); \
    for (int k = 0; k < 8; k++) check(#F, k, r[k], bar(a[k], b[k], c[k])); }
    BAR_Y(_ZGVdN8vvv_bar) BAR_Y(gcc_ZGVdN8vvv_bar)
#define FOO8(F, ...) { x2 o = F(L(x,0), L(x,1), L(y,0), L(y,1) __VA_ARGS__); \
    _mm_storeu_si128((__m128i *)ri, o.v[0]); _mm_storeu_si128((__m128i *)ri + 1, o.v[1]); \
    for (int k = 0; k < 8; k++) if (m[k] || #__VA_ARGS__[0] == 0) check(#F, k, ri[k], foo8(x[k], y[k])); }
    FOO8(_ZGVcN8vv_foo8) FOO8(gcc_ZGVcN8vv_foo8) FOO8(_ZGVcM8vv_foo8, , L(m,0), L(m,1)) FOO8(gcc_ZGVcM8vv_foo8, , L(m,0), L(m,1))
#define FOO4(F, ...) { _mm_storeu_si128((__m128i *)ri, F(L(x,0) __VA_ARGS__)); \
    for (int k = 0; k < 4; k++) if (m[k] || #__VA_ARGS__[0] == 0) check(#F, k, ri[k], foo(x[k])); }
    FOO4(_ZGVcN4v_foo) FOO4(gcc_ZGVcN4v_foo) FOO4(_ZGVcM4v_foo, , L(m,0)) FOO4(gcc_ZGVcM4v_foo, , L(m,0))
  }
  printf("%ld checked, %ld differ\n", checked, bad);
  return bad != 0;
}
