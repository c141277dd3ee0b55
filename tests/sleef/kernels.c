/* `declare simd` functions of libm calls, built by batchify with
 * `--veclib sleef` for AArch64: each Advanced SIMD variant calls
 * libsleefgnuabi's `_ZGVn` function (1.0 ulp) instead of the scalar libm
 * function per lane. Compiled with -fno-math-errno (a call that may set
 * errno stays per lane). Called by caller.c from GCC 12 `omp simd` loops. */
#include <math.h>

#pragma omp declare simd notinbranch
float k_sinf(float x) { return sinf(x); }
#pragma omp declare simd notinbranch
float k_expf(float x) { return expf(x); }
#pragma omp declare simd notinbranch
float k_tanhf(float x) { return tanhf(x); }
#pragma omp declare simd notinbranch
float k_cbrtf(float x) { return cbrtf(x); }
#pragma omp declare simd notinbranch
float k_powf(float x, float y) { return powf(x, y); }
/* Lanes that disagree: log on one side, exp on the other. */
#pragma omp declare simd notinbranch
float k_splitf(float x) { return x > 1.0f ? logf(x) : expf(x) - 1.0f; }

#pragma omp declare simd notinbranch
double k_sin(double x) { return sin(x); }
#pragma omp declare simd notinbranch
double k_log(double x) { return log(x); }
#pragma omp declare simd notinbranch
double k_atan2(double y, double x) { return atan2(y, x); }
#pragma omp declare simd notinbranch
double k_hypot(double x, double y) { return hypot(x, y); }
