/* GCC 12 `omp simd` loops over the kernels of kernels.c: GCC calls their
 * Advanced SIMD variants (batchify's, which call SLEEF). Each result is
 * compared with the scalar function (glibc's libm, called through a
 * volatile pointer so that GCC keeps it scalar): at most MAX_ULPS apart
 * (SLEEF's 1.0 ulp from the exact result plus glibc's own error), NaN
 * where glibc gives NaN. Prints "ok" and the largest distances, or the
 * first mismatches; exit status 1 on any. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#ifndef MAX_ULPS
#define MAX_ULPS 2
#endif
#define N 4099

#pragma omp declare simd notinbranch
float k_sinf(float);
#pragma omp declare simd notinbranch
float k_expf(float);
#pragma omp declare simd notinbranch
float k_tanhf(float);
#pragma omp declare simd notinbranch
float k_cbrtf(float);
#pragma omp declare simd notinbranch
float k_powf(float, float);
#pragma omp declare simd notinbranch
float k_splitf(float);
#pragma omp declare simd notinbranch
double k_sin(double);
#pragma omp declare simd notinbranch
double k_log(double);
#pragma omp declare simd notinbranch
double k_atan2(double, double);
#pragma omp declare simd notinbranch
double k_hypot(double, double);

static unsigned long long seed = 88172645463325252ull;
static unsigned long long rnd(void) {
  seed ^= seed << 13; seed ^= seed >> 7; seed ^= seed << 17;
  return seed;
}
static float fa[N], fb[N], fr[N];
static double da[N], db[N], dr[N];
static int failures;

static int64_t ord32(float x) { int32_t i; memcpy(&i, &x, 4); return i < 0 ? -(int64_t)(i & 0x7fffffff) : i; }
static int64_t ord64(double x) { int64_t i; memcpy(&i, &x, 8); return i < 0 ? -(i & 0x7fffffffffffffffll) : i; }

/* Distance in ulp; 0 for two NaNs, huge for one NaN. */
static uint64_t ulps32(float a, float b) {
  if (isnan(a) || isnan(b)) return isnan(a) && isnan(b) ? 0 : UINT64_MAX;
  int64_t d = ord32(a) - ord32(b);
  return d < 0 ? -d : d;
}
static uint64_t ulps64(double a, double b) {
  if (isnan(a) || isnan(b)) return isnan(a) && isnan(b) ? 0 : UINT64_MAX;
  int64_t x = ord64(a), y = ord64(b);
  uint64_t d = x > y ? (uint64_t)x - (uint64_t)y : (uint64_t)y - (uint64_t)x;
  return d;
}

static float pick32(int i, float lo, float hi) {
  static const float specials[] = {0.0f, -0.0f, 1.0f, -1.0f, INFINITY, -INFINITY, NAN, 1e-40f, -1e-40f, 88.7f, -104.0f, 1e30f};
  if (i % 17 == 0) return specials[rnd() % 12];
  return lo + (hi - lo) * (float)((rnd() >> 11) * 0x1p-53);
}
static double pick64(int i, double lo, double hi) {
  static const double specials[] = {0.0, -0.0, 1.0, -1.0, INFINITY, -INFINITY, NAN, 1e-310, -1e-310, 709.7, 1e300, 3.141592653589793};
  if (i % 17 == 0) return specials[rnd() % 12];
  return lo + (hi - lo) * (double)((rnd() >> 11) * 0x1p-53);
}

#define CHECK1F(NAME, LO, HI)                                                         \
  do {                                                                                \
    float (*volatile ref)(float) = NAME;                                             \
    for (int i = 0; i < N; i++) fa[i] = pick32(i, LO, HI);                            \
    _Pragma("omp simd") for (int i = 0; i < N; i++) fr[i] = NAME(fa[i]);              \
    uint64_t worst = 0;                                                               \
    for (int i = 0; i < N; i++) {                                                     \
      float e = ref(fa[i]);                                                           \
      uint64_t u = ulps32(fr[i], e);                                                  \
      if (u > worst) worst = u;                                                       \
      if (u > MAX_ULPS && failures++ < 10)                                            \
        printf(#NAME "(%a): %a, expected %a\n", fa[i], fr[i], e);                     \
    }                                                                                 \
    printf("%s: max %llu ulp\n", #NAME, (unsigned long long)worst);                   \
  } while (0)

#define CHECK2F(NAME, LO, HI, LO2, HI2)                                               \
  do {                                                                                \
    float (*volatile ref)(float, float) = NAME;                                      \
    for (int i = 0; i < N; i++) { fa[i] = pick32(i, LO, HI); fb[i] = pick32(i + 5, LO2, HI2); } \
    _Pragma("omp simd") for (int i = 0; i < N; i++) fr[i] = NAME(fa[i], fb[i]);       \
    uint64_t worst = 0;                                                               \
    for (int i = 0; i < N; i++) {                                                     \
      float e = ref(fa[i], fb[i]);                                                    \
      uint64_t u = ulps32(fr[i], e);                                                  \
      if (u > worst) worst = u;                                                       \
      if (u > MAX_ULPS && failures++ < 10)                                            \
        printf(#NAME "(%a, %a): %a, expected %a\n", fa[i], fb[i], fr[i], e);          \
    }                                                                                 \
    printf("%s: max %llu ulp\n", #NAME, (unsigned long long)worst);                   \
  } while (0)

#define CHECK1D(NAME, LO, HI)                                                         \
  do {                                                                                \
    double (*volatile ref)(double) = NAME;                                           \
    for (int i = 0; i < N; i++) da[i] = pick64(i, LO, HI);                            \
    _Pragma("omp simd") for (int i = 0; i < N; i++) dr[i] = NAME(da[i]);              \
    uint64_t worst = 0;                                                               \
    for (int i = 0; i < N; i++) {                                                     \
      double e = ref(da[i]);                                                          \
      uint64_t u = ulps64(dr[i], e);                                                  \
      if (u > worst) worst = u;                                                       \
      if (u > MAX_ULPS && failures++ < 10)                                            \
        printf(#NAME "(%a): %a, expected %a\n", da[i], dr[i], e);                     \
    }                                                                                 \
    printf("%s: max %llu ulp\n", #NAME, (unsigned long long)worst);                   \
  } while (0)

#define CHECK2D(NAME, LO, HI, LO2, HI2)                                               \
  do {                                                                                \
    double (*volatile ref)(double, double) = NAME;                                   \
    for (int i = 0; i < N; i++) { da[i] = pick64(i, LO, HI); db[i] = pick64(i + 5, LO2, HI2); } \
    _Pragma("omp simd") for (int i = 0; i < N; i++) dr[i] = NAME(da[i], db[i]);       \
    uint64_t worst = 0;                                                               \
    for (int i = 0; i < N; i++) {                                                     \
      double e = ref(da[i], db[i]);                                                   \
      uint64_t u = ulps64(dr[i], e);                                                  \
      if (u > worst) worst = u;                                                       \
      if (u > MAX_ULPS && failures++ < 10)                                            \
        printf(#NAME "(%a, %a): %a, expected %a\n", da[i], db[i], dr[i], e);          \
    }                                                                                 \
    printf("%s: max %llu ulp\n", #NAME, (unsigned long long)worst);                   \
  } while (0)

int main(void) {
  CHECK1F(k_sinf, -100.0f, 100.0f);
  CHECK1F(k_expf, -90.0f, 90.0f);
  CHECK1F(k_tanhf, -12.0f, 12.0f);
  CHECK1F(k_cbrtf, -1e6f, 1e6f);
  CHECK2F(k_powf, 0.0f, 40.0f, -20.0f, 20.0f);
  CHECK1F(k_splitf, -20.0f, 1e4f);
  CHECK1D(k_sin, -100.0, 100.0);
  CHECK1D(k_log, 0.0, 1e12);
  CHECK2D(k_atan2, -10.0, 10.0, -10.0, 10.0);
  CHECK2D(k_hypot, -1e200, 1e200, -1e200, 1e200);
  if (failures) { printf("%d failures\n", failures); return 1; }
  printf("ok\n");
  return 0;
}
