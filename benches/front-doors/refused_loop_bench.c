/* Speed of an `omp simd` caller loop that LLVM's loop vectorizer refuses
 * (tests/front-doors/refused_loops): `horner` reads its coefficients
 * through a uniform pointer and `put` writes through one. The loop batchify
 * batches (callers::loops) against the same loop without `omp simd`, which
 * is what the refused loop is without batchify: one scalar call of each
 * function per element. Both call the functions of
 * tests/front-doors/refused_loops/kernels.c, in one process. See
 * docs/benchmarks.md for the commands. */
#include "timing.h"

#pragma omp declare simd uniform(coef, deg) notinbranch
double horner(const double *coef, int deg, double x);
#pragma omp declare simd uniform(out) linear(i) notinbranch
void put(double *out, int i, double v);

static const double coef[9] = {1.0, -0.5, 0.25, 0.125, -1.5, 0.01, 3e-3, -2e-4, 1e-5};

__attribute__((noinline)) void batched(double *restrict o, const double *restrict a, int n) {
#pragma omp simd
    for (int i = 0; i < n; i++) put(o, i, horner(coef, 8, a[i]));
}

__attribute__((noinline)) void scalar_calls(double *restrict o, const double *restrict a, int n) {
    for (int i = 0; i < n; i++) put(o, i, horner(coef, 8, a[i]));
}

typedef void (*kernel)(double *restrict, const double *restrict, int);

static double median_ms(kernel k, double *o, const double *a, int n) {
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
    double *a = malloc(n * sizeof *a), *o = malloc(n * sizeof *o), *p = malloc(n * sizeof *p);
    unsigned s = 1;
    for (int i = 0; i < n; i++) { s = s * 1103515245u + 12345u; a[i] = (double)(s >> 8) / 4194304.0 - 2.0; }
    double v = median_ms(batched, o, a, n);
    printf("batched: %.3f ms\n", v);
    double c = median_ms(scalar_calls, p, a, n);
    printf("scalar calls: %.3f ms\n", c);
    for (int i = 0; i < n; i++)
        if (o[i] != p[i]) { printf("MISMATCH at %d\n", i); return 1; }
    printf("speed-up %.2fx\n", c / v);
    return 0;
}
