/* Speed of a same-file `omp simd` caller of a `declare simd` function
 * (tests/front-doors/same_tu): the loop calling the variants the plugin
 * keeps it calling, against the same loop over a scalar copy, in one
 * process. See docs/benchmarks.md for the commands. */
#include "timing.h"

/* With -DF_ELSEWHERE, `f` is defined in another file (tests/front-doors/thinlto/kernel.c), as in
 * the ThinLTO test: the link imports its body and would inline it. */
#ifdef F_ELSEWHERE
#pragma omp declare simd notinbranch
float f(float x);
#else
#pragma omp declare simd notinbranch
float f(float x) {
    float y = x;
    while (y > 1.0f) y *= 0.5f;
    return y;
}
#endif

__attribute__((noinline)) static float scalar_copy(float x) {
    float y = x;
    while (y > 1.0f) y *= 0.5f;
    return y;
}

__attribute__((noinline)) void with_variants(float *restrict o, const float *restrict a, int n) {
#pragma omp simd
    for (int i = 0; i < n; i++) o[i] = f(a[i]);
}

__attribute__((noinline)) void scalar_calls(float *restrict o, const float *restrict a, int n) {
    for (int i = 0; i < n; i++) o[i] = scalar_copy(a[i]);
}

typedef void (*kernel)(float *restrict, const float *restrict, int);

static double median_ms(kernel k, float *o, const float *a, int n) {
    double t[REPETITIONS];
    for (int r = 0; r < REPETITIONS; r++) {
        double t0 = now_ms();
        k(o, a, n);
        t[r] = now_ms() - t0;
    }
    return median_of(t);
}

int main(void) {
    int n = 1 << 20;
    float *a = malloc(n * sizeof *a), *o = malloc(n * sizeof *o);
    unsigned s = 1;
    for (int i = 0; i < n; i++) { s = s * 1103515245u + 12345u; a[i] = (float)(s >> 8) / 4096.0f; }
    double v = median_ms(with_variants, o, a, n);
    printf("variants: %.3f ms\n", v);
    double c = median_ms(scalar_calls, o, a, n);
    printf("scalar calls: %.3f ms\n", c);
    printf("speed-up %.2fx\n", c / v);
    return 0;
}
