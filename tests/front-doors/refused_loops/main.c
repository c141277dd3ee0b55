/* `omp simd` caller loops that LLVM's loop vectorizer refuses: each
 * iteration calls `horner` (a uniform pointer argument) and `put` (a `void`
 * writer). The plugin batches such a loop itself (callers::loops): its body
 * becomes clones that call `_ZGVdN4uuv_horner` and `_ZGVdN4ulv_put`. With
 * -DSAME_FILE the kernels are in this file too. The results must equal a
 * scalar copy bit for bit, for every trip count up to 1003. */
#include <stdio.h>
#include <string.h>

#ifdef SAME_FILE
#include "kernels.c"
#else
#pragma omp declare simd uniform(coef, deg) notinbranch
double horner(const double *coef, int deg, double x);
#pragma omp declare simd uniform(out) linear(i) notinbranch
void put(double *out, int i, double v);
#endif

__attribute__((noinline)) void apply(const double *coef, int deg, const double *restrict in, double *restrict out,
                                     int n) {
#pragma omp simd
    for (int i = 0; i < n; i++) put(out, i, horner(coef, deg, in[i]));
}

/* The scalar reference: the same bodies, never vectorized. */
__attribute__((noinline)) static double ref_horner(const double *coef, int deg, double x) {
    double r = 0.0;
    for (int k = deg; k >= 0; k--) r = r * x + coef[k];
    return r;
}

#define N 1003
static double in[N], out[N + 8], want[N + 8];

int main(void) {
    static const double coef[7] = {1.0, -0.5, 0.25, 0.125, -1.5, 0.01, 3e-3};
    unsigned s = 4242;
    for (int i = 0; i < N; i++) {
        s = s * 1103515245u + 12345u;
        in[i] = (double)(int)(s >> 8) / 1048576.0 - 4.0;
    }
    in[0] = 0.0; in[1] = -0.0; in[2] = 1e300; in[3] = -1e-300;
    int bad = 0;
    for (int n = 0; n <= N; n += (n < 20 ? 1 : 97)) {
        for (int i = 0; i < N + 8; i++) out[i] = want[i] = -7.0;
        apply(coef, 6, in, out, n);
        for (int i = 0; i < n; i++) {
            volatile double v = ref_horner(coef, 6, in[i]);
            want[i] = v < 0.0 ? -v : v * 0.5;
        }
        for (int i = 0; i < N + 8; i++)
            if (memcmp(&want[i], &out[i], sizeof(double)) != 0 && bad++ < 5)
                printf("n %d, element %d: %a, want %a\n", n, i, out[i], want[i]);
    }
    printf("%d of %d wrong\n", bad, N);
    return bad != 0;
}
