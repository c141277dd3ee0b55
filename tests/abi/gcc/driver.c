// Calls batchify's masked clones of kern() (from clang IR) and GCC's own clones of the
// same source (symbols renamed gcc_*) with the same inputs and random masks, and
// compares every active lane bit for bit. Built with gcc -mavx512f.
#include <immintrin.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
__m128 _ZGVbM4vv_kern(__m128, __m128, __m128);  __m128 gcc_ZGVbM4vv_kern(__m128, __m128, __m128);
__m256 _ZGVcM8vv_kern(__m256, __m256, __m256);  __m256 gcc_ZGVcM8vv_kern(__m256, __m256, __m256);
__m256 _ZGVdM8vv_kern(__m256, __m256, __m256);  __m256 gcc_ZGVdM8vv_kern(__m256, __m256, __m256);
__m512 _ZGVeM16vv_kern(__m512, __m512, __mmask16); __m512 gcc_ZGVeM16vv_kern(__m512, __m512, __mmask16);
static float rnd(void) { return (rand() / (float)RAND_MAX) * 4.0f - 2.0f; }
int main(void) {
  int bad = 0, checked = 0;
  for (int t = 0; t < 2000; t++) {
    float x[16], y[16], m[16], a[16], b[16]; unsigned mm = 0;
    for (int k = 0; k < 16; k++) { x[k] = rnd(); y[k] = rnd(); int on = rand() & 1; m[k] = on ? -1.0f : 0.0f; if (on) { mm |= 1u << k; memset(&m[k], 0xff, 4); } }
    #define CMP(N) for (int k = 0; k < N; k++) if (mm >> k & 1) { checked++; if (memcmp(&a[k], &b[k], 4)) { bad++; if (bad < 5) printf("N=%d lane %d: ours %g gcc %g\n", N, k, a[k], b[k]); } }
    _mm_storeu_ps(a, _ZGVbM4vv_kern(_mm_loadu_ps(x), _mm_loadu_ps(y), _mm_loadu_ps(m)));
    _mm_storeu_ps(b, gcc_ZGVbM4vv_kern(_mm_loadu_ps(x), _mm_loadu_ps(y), _mm_loadu_ps(m))); CMP(4)
    _mm256_storeu_ps(a, _ZGVcM8vv_kern(_mm256_loadu_ps(x), _mm256_loadu_ps(y), _mm256_loadu_ps(m)));
    _mm256_storeu_ps(b, gcc_ZGVcM8vv_kern(_mm256_loadu_ps(x), _mm256_loadu_ps(y), _mm256_loadu_ps(m))); CMP(8)
    _mm256_storeu_ps(a, _ZGVdM8vv_kern(_mm256_loadu_ps(x), _mm256_loadu_ps(y), _mm256_loadu_ps(m)));
    _mm256_storeu_ps(b, gcc_ZGVdM8vv_kern(_mm256_loadu_ps(x), _mm256_loadu_ps(y), _mm256_loadu_ps(m))); CMP(8)
    _mm512_storeu_ps(a, _ZGVeM16vv_kern(_mm512_loadu_ps(x), _mm512_loadu_ps(y), (__mmask16)mm));
    _mm512_storeu_ps(b, gcc_ZGVeM16vv_kern(_mm512_loadu_ps(x), _mm512_loadu_ps(y), (__mmask16)mm)); CMP(16)
  }
  printf("%d lanes checked, %d differ\n", checked, bad);
  return bad != 0;
}
