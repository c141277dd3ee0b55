/* Shared driver of the tests/autodiff programs (run by
 * crates/batchify-cli/tests/enzyme_autodiff.rs).
 *
 * A program defines a scalar function F and asks for one driver:
 *
 *   AD_XY(F)  double F(double x, double y); clone _ZGVdN4vv_F
 *   AD_WX(F)  double F(const double *w, double x), w differentiated
 *             memory (uniform); clone _ZGVdN4uv_F
 *
 * The clone is built by `batchify --for-autodiff --variant ...`; Enzyme
 * then differentiates, in forward and in reverse mode, a wrapper that
 * calls the scalar function on one point and a wrapper that calls the
 * clone on 4 points. main() compares every lane's primal value (bit for
 * bit, or within AD_PRIMAL_REL) and derivatives with the scalar function's (bit for bit, or within
 * AD_REL relative error) for AD_LANES points from the program's
 * AD_POINT(k, &x, &y) and prints one verdict line:
 *   F: ok lanes=L derivatives=D exact=E max_rel=R
 * or `F: FAIL ...` lines and a non-zero exit status. */
#include <immintrin.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#ifndef AD_LANES
#define AD_LANES 64
#endif
/* The largest relative difference allowed where the derivative code of
 * the clone and of the scalar function differ (e.g. the order in which a
 * reverse pass sums adjoints). */
#ifndef AD_REL
#define AD_REL 1e-12
#endif
/* The same for primal values: 0 (the default) asks for them bit for bit;
 * the libmvec lowering after Enzyme (libmvec's 4 ulp) sets it. */
#ifndef AD_PRIMAL_REL
#define AD_PRIMAL_REL 0
#endif

extern int enzyme_dup, enzyme_const, enzyme_dupnoneed;
void __enzyme_autodiff(void *, ...);
void __enzyme_fwddiff(void *, ...);

static int ad_fail, ad_checked, ad_exact;
static double ad_max_rel;

static int ad_same(double a, double b) {
    return memcmp(&a, &b, sizeof a) == 0;
}

/* Compares one value; `what` names it in a failure. */
static void ad_check(const char *fn, const char *what, int lane, double got, double want, int primal) {
    ad_checked++;
    if (ad_same(got, want) || (isnan(got) && isnan(want))) {
        ad_exact++;
        return;
    }
    double rel = fabs(got - want) / fmax(fabs(want), 1e-300);
    double allowed = primal ? AD_PRIMAL_REL : AD_REL;
    if (isfinite(got) && isfinite(want) && allowed > 0 && rel <= allowed) {
        if (rel > ad_max_rel)
            ad_max_rel = rel;
        return;
    }
    ad_fail++;
    printf("%s: FAIL lane %d %s: clone %.17g, scalar %.17g\n", fn, lane, what, got, want);
}

static void ad_verdict(const char *fn) {
    if (ad_fail) {
        printf("%s: FAIL %d of %d values differ\n", fn, ad_fail, ad_checked);
        return;
    }
    printf("%s: ok lanes=%d derivatives=%d exact=%d max_rel=%.3g\n", fn, AD_LANES, ad_checked - AD_LANES, ad_exact,
           ad_max_rel);
}

#ifndef AD_W
#define AD_W 16
#endif

#ifdef AD_DERIVATIVES
/* Only Enzyme's derivative functions of F, for batchify to batch
 * (crates/batchify-cli/tests/enzyme_derivatives.rs): the requests below
 * make Enzyme define
 *
 *   AD_XY: double fwddiffeF(double x, double dx, double y, double dy)
 *          {double, double} diffeF(double x, double y, double dret)
 *   AD_WX: double fwddiffeF(const double *w, const double *dw, double x, double dx)
 *          {double} diffeF(const double *w, double *dw, double x, double dret)
 *
 * (reverse mode adds w's gradient into dw and returns d/dx). */
typedef struct {
    double d0, d1;
} ad_pair;
ad_pair __enzyme_autodiff_xy(void *, double, double);
double __enzyme_fwddiff_xy(void *, double, double, double, double);
double __enzyme_autodiff_wx(void *, int, const double *, double *, double);
double __enzyme_fwddiff_wx(void *, int, const double *, const double *, double, double);
#define AD_XY(F)                                                                                                   \
    ad_pair ad_reverse_##F(double x, double y) { return __enzyme_autodiff_xy((void *)F, x, y); }                   \
    double ad_forward_##F(double x, double dx, double y, double dy) {                                              \
        return __enzyme_fwddiff_xy((void *)F, x, dx, y, dy);                                                       \
    }
#define AD_WX(F)                                                                                                   \
    double ad_reverse_##F(const double *w, double *dw, double x) {                                                 \
        return __enzyme_autodiff_wx((void *)F, enzyme_dup, w, dw, x);                                              \
    }                                                                                                              \
    double ad_forward_##F(const double *w, const double *dw, double x, double dx) {                                \
        return __enzyme_fwddiff_wx((void *)F, enzyme_dup, w, dw, x, dx);                                           \
    }
#else

/* double F(const double *w, double x): w is uniform differentiated memory
 * (AD_W doubles, from AD_WEIGHTS(w)); checks per lane the value, d/dx in
 * both modes and the forward derivative along dw = 1, and the reverse
 * gradient dw summed over all points. */
#define AD_WX(F)                                                                                                   \
    __m256d _ZGVdN4uv_##F(const double *, __m256d);                                                                \
    static void ad_s_##F(const double *w, const double *x, double *out) { *out = F(w, *x); }                       \
    static void ad_v_##F(const double *w, const double *x, double *out) {                                          \
        _mm256_storeu_pd(out, _ZGVdN4uv_##F(w, _mm256_loadu_pd(x)));                                               \
    }                                                                                                              \
    int main(void) {                                                                                               \
        static double w[AD_W], vdw[AD_W], sdw[AD_W], wones[AD_W], wzeros[AD_W];                                    \
        static double x[AD_LANES], y[AD_LANES], out[AD_LANES], sout[AD_LANES];                                     \
        static double rx[AD_LANES], fx[AD_LANES], fw[AD_LANES], ones[AD_LANES], zeros[AD_LANES];                    \
        AD_WEIGHTS(w);                                                                                             \
        for (int j = 0; j < AD_W; j++)                                                                             \
            wones[j] = 1.0;                                                                                        \
        for (int k = 0; k < AD_LANES; k++) {                                                                       \
            AD_POINT(k, &x[k], &y[k]);                                                                             \
            ones[k] = 1.0;                                                                                         \
        }                                                                                                          \
        for (int k = 0; k < AD_LANES; k += 4) {                                                                    \
            double dout[4] = {1, 1, 1, 1};                                                                         \
            ad_v_##F(w, x + k, out + k);                                                                           \
            __enzyme_autodiff((void *)ad_v_##F, enzyme_dup, w, vdw, enzyme_dup, x + k, rx + k, enzyme_dupnoneed,    \
                              sout + k, dout);                                                                     \
            __enzyme_fwddiff((void *)ad_v_##F, enzyme_dup, w, wzeros, enzyme_dup, x + k, ones + k,                  \
                             enzyme_dupnoneed, sout + k, fx + k);                                                  \
            __enzyme_fwddiff((void *)ad_v_##F, enzyme_dup, w, wones, enzyme_dup, x + k, zeros + k,                  \
                             enzyme_dupnoneed, sout + k, fw + k);                                                  \
        }                                                                                                          \
        for (int k = 0; k < AD_LANES; k++) {                                                                       \
            double s, d = 1, srx = 0, sfx, sfw, one = 1;                                                           \
            ad_s_##F(w, &x[k], &s);                                                                                \
            __enzyme_autodiff((void *)ad_s_##F, enzyme_dup, w, sdw, enzyme_dup, &x[k], &srx, enzyme_dupnoneed, &s,  \
                              &d);                                                                                 \
            __enzyme_fwddiff((void *)ad_s_##F, enzyme_dup, w, wzeros, enzyme_dup, &x[k], &one, enzyme_dupnoneed,    \
                             &s, &sfx);                                                                            \
            double zero = 0;                                                                                       \
            __enzyme_fwddiff((void *)ad_s_##F, enzyme_dup, w, wones, enzyme_dup, &x[k], &zero, enzyme_dupnoneed,    \
                             &s, &sfw);                                                                            \
            ad_s_##F(w, &x[k], &s);                                                                                \
            ad_check(#F, "value", k, out[k], s, 1);                                                                \
            ad_check(#F, "reverse d/dx", k, rx[k], srx, 0);                                                        \
            ad_check(#F, "forward d/dx", k, fx[k], sfx, 0);                                                        \
            ad_check(#F, "forward along dw=1", k, fw[k], sfw, 0);                                                  \
        }                                                                                                          \
        for (int j = 0; j < AD_W; j++)                                                                             \
            ad_check(#F, "reverse sum d/dw[j]", j, vdw[j], sdw[j], 0);                                             \
        ad_verdict(#F);                                                                                            \
        return ad_fail != 0;                                                                                       \
    }

#define AD_XY(F)                                                                                                   \
    __m256d _ZGVdN4vv_##F(__m256d, __m256d);                                                                       \
    static void ad_s_##F(const double *x, const double *y, double *out) { *out = F(*x, *y); }                      \
    static void ad_v_##F(const double *x, const double *y, double *out) {                                          \
        _mm256_storeu_pd(out, _ZGVdN4vv_##F(_mm256_loadu_pd(x), _mm256_loadu_pd(y)));                              \
    }                                                                                                              \
    int main(void) {                                                                                               \
        static double x[AD_LANES], y[AD_LANES], out[AD_LANES], sout[AD_LANES];                                     \
        static double rx[AD_LANES], ry[AD_LANES], fx[AD_LANES], fy[AD_LANES], ones[AD_LANES], zeros[AD_LANES];      \
        for (int k = 0; k < AD_LANES; k++) {                                                                       \
            AD_POINT(k, &x[k], &y[k]);                                                                             \
            ones[k] = 1.0;                                                                                         \
        }                                                                                                          \
        for (int k = 0; k < AD_LANES; k += 4) {                                                                    \
            double dout[4] = {1, 1, 1, 1};                                                                         \
            ad_v_##F(x + k, y + k, out + k);                                                                       \
            __enzyme_autodiff((void *)ad_v_##F, enzyme_dup, x + k, rx + k, enzyme_dup, y + k, ry + k,              \
                              enzyme_dupnoneed, sout + k, dout);                                                   \
            __enzyme_fwddiff((void *)ad_v_##F, enzyme_dup, x + k, ones + k, enzyme_dup, y + k, zeros + k,           \
                             enzyme_dupnoneed, sout + k, fx + k);                                                  \
            __enzyme_fwddiff((void *)ad_v_##F, enzyme_dup, x + k, zeros + k, enzyme_dup, y + k, ones + k,           \
                             enzyme_dupnoneed, sout + k, fy + k);                                                  \
        }                                                                                                          \
        for (int k = 0; k < AD_LANES; k++) {                                                                       \
            double s, d = 1, srx = 0, sry = 0, sfx, sfy, one = 1, zero = 0;                                        \
            ad_s_##F(&x[k], &y[k], &s);                                                                            \
            __enzyme_autodiff((void *)ad_s_##F, enzyme_dup, &x[k], &srx, enzyme_dup, &y[k], &sry,                  \
                              enzyme_dupnoneed, &s, &d);                                                           \
            __enzyme_fwddiff((void *)ad_s_##F, enzyme_dup, &x[k], &one, enzyme_dup, &y[k], &zero,                  \
                             enzyme_dupnoneed, &s, &sfx);                                                          \
            __enzyme_fwddiff((void *)ad_s_##F, enzyme_dup, &x[k], &zero, enzyme_dup, &y[k], &one,                  \
                             enzyme_dupnoneed, &s, &sfy);                                                          \
            ad_s_##F(&x[k], &y[k], &s);                                                                            \
            ad_check(#F, "value", k, out[k], s, 1);                                                                \
            ad_check(#F, "reverse d/dx", k, rx[k], srx, 0);                                                        \
            ad_check(#F, "reverse d/dy", k, ry[k], sry, 0);                                                        \
            ad_check(#F, "forward d/dx", k, fx[k], sfx, 0);                                                        \
            ad_check(#F, "forward d/dy", k, fy[k], sfy, 0);                                                        \
        }                                                                                                          \
        ad_verdict(#F);                                                                                            \
        return ad_fail != 0;                                                                                       \
    }
#endif /* AD_DERIVATIVES */
