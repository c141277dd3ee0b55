// Times the new clones (batchify) against the old per-lane forms
// (before.ll) on 2^20 elements, best of 7 runs, and checks that both give
// the same bits.
#include <immintrin.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

__m256 _ZGVdN8vv_fm(__m256, __m256);
__m256 old_fm(__m256, __m256);
__m256d _ZGVdN4vv_fmd(__m256d, __m256d);
__m256d old_fmd(__m256d, __m256d);
__m256i _ZGVdN8vv_sdiv32(__m256i, __m256i);
__m256i old_sdiv32(__m256i, __m256i);
__m256i _ZGVdN8vv_urem32(__m256i, __m256i);
__m256i old_urem32(__m256i, __m256i);

#define N (1 << 20)
static float fx[N], fy[N], f1[N], f2[N];
static double dx[N], dy[N], d1[N], d2[N];
static int ix[N], iy[N], i1[N], i2[N];
static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint32_t next(void) { rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17; return (uint32_t)(rng >> 16); }
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec * 1e-9; }

#define TIME(label, body) do { double best = 1e9; for (int rep = 0; rep < 7; rep++) { double t0 = now(); body; double t = now() - t0; if (t < best) best = t; } times[k++] = best; printf("  %-28s %8.2f ns/element\n", label, best * 1e9 / N); } while (0)

static void fmod_case(const char *what) {
  double times[2]; int k = 0;
  printf("fmodf, %s:\n", what);
  TIME("per-lane (before)", for (int i = 0; i < N; i += 8) _mm256_storeu_ps(f1 + i, old_fm(_mm256_loadu_ps(fx + i), _mm256_loadu_ps(fy + i))));
  TIME("vector (after)", for (int i = 0; i < N; i += 8) _mm256_storeu_ps(f2 + i, _ZGVdN8vv_fm(_mm256_loadu_ps(fx + i), _mm256_loadu_ps(fy + i))));
  printf("  speed-up %.2fx, bit-identical: %s\n", times[0] / times[1], memcmp(f1, f2, sizeof f1) ? "NO" : "yes");
}

static void fmodd_case(const char *what) {
  double times[2]; int k = 0;
  printf("fmod, %s:\n", what);
  TIME("per-lane (before)", for (int i = 0; i < N; i += 4) _mm256_storeu_pd(d1 + i, old_fmd(_mm256_loadu_pd(dx + i), _mm256_loadu_pd(dy + i))));
  TIME("vector (after)", for (int i = 0; i < N; i += 4) _mm256_storeu_pd(d2 + i, _ZGVdN4vv_fmd(_mm256_loadu_pd(dx + i), _mm256_loadu_pd(dy + i))));
  printf("  speed-up %.2fx, bit-identical: %s\n", times[0] / times[1], memcmp(d1, d2, sizeof d1) ? "NO" : "yes");
}

#define DIV_CASE(name, oldf, newf) do { double times[2]; int k = 0; printf("%s, %s:\n", name, what); \
  TIME("per-lane (before)", for (int i = 0; i < N; i += 8) _mm256_storeu_si256((__m256i *)(i1 + i), oldf(_mm256_loadu_si256((__m256i *)(ix + i)), _mm256_loadu_si256((__m256i *)(iy + i))))); \
  TIME("vector (after)", for (int i = 0; i < N; i += 8) _mm256_storeu_si256((__m256i *)(i2 + i), newf(_mm256_loadu_si256((__m256i *)(ix + i)), _mm256_loadu_si256((__m256i *)(iy + i))))); \
  printf("  speed-up %.2fx, bit-identical: %s\n", times[0] / times[1], memcmp(i1, i2, sizeof i1) ? "NO" : "yes"); } while (0)

int main(void) {
  for (int i = 0; i < N; i++) { fx[i] = (float)((int)(next() % 2000001) - 1000000) / 1000.0f; fy[i] = 0.5f + (float)(next() % 10000) / 1000.0f; }
  fmod_case("x in [-1000, 1000], y in [0.5, 10.5]");
  for (int i = 0; i < N; i++) { uint32_t a = next(), b = next(); memcpy(fx + i, &a, 4); memcpy(fy + i, &b, 4); }
  fmod_case("random bit patterns");
  for (int i = 0; i < N; i++) { dx[i] = (double)((int)(next() % 2000001) - 1000000) / 1000.0; dy[i] = 0.5 + (double)(next() % 10000) / 1000.0; }
  fmodd_case("x in [-1000, 1000], y in [0.5, 10.5]");
  for (int i = 0; i < N; i++) { uint64_t a = ((uint64_t)next() << 32) ^ next(), b = ((uint64_t)next() << 32) ^ next(); memcpy(dx + i, &a, 8); memcpy(dy + i, &b, 8); }
  fmodd_case("random bit patterns");
  const char *what = "random a, random b != 0, -1";
  for (int i = 0; i < N; i++) { ix[i] = (int)next(); do iy[i] = (int)next() >> (next() % 31); while (iy[i] == 0 || iy[i] == -1); }
  DIV_CASE("sdiv i32", old_sdiv32, _ZGVdN8vv_sdiv32);
  DIV_CASE("urem i32", old_urem32, _ZGVdN8vv_urem32);
  return 0;
}
