/* Enzyme requests of the 4-input functions of `cargo xtask bench-autodiff`
 * (benches/autodiff/dense.c, particle.c; xtask/src/bench_autodiff.rs).
 * AD_X4(F), for `double F(double, double, double, double)`, makes Enzyme
 * define
 *
 *   double fwddiffeF(double x0, double dx0, ..., double x3, double dx3)
 *   {double, double, double, double} diffeF(double x0, ..., double x3, double dret)
 *
 * (forward: the derivative along (dx0, ..., dx3); reverse: the gradient
 * times dret), called by
 *
 *   double ad_forward_F(double x0, double dx0, ..., double x3, double dx3)
 *   ad_quad ad_reverse_F(double x0, double x1, double x2, double x3)
 *
 * which the benchmark's driver calls as scalar Enzyme, and which batchify
 * does not batch (it batches fwddiffeF and diffeF themselves). */
#ifndef BENCH_AD_H
#define BENCH_AD_H
#include <math.h>

typedef struct {
    double d0, d1, d2, d3;
} ad_quad;
ad_quad __enzyme_autodiff_x4(void *, double, double, double, double);
double __enzyme_fwddiff_x4(void *, double, double, double, double, double, double, double, double);
#define AD_X4(F)                                                                                                   \
    ad_quad ad_reverse_##F(double x0, double x1, double x2, double x3) {                                           \
        return __enzyme_autodiff_x4((void *)F, x0, x1, x2, x3);                                                    \
    }                                                                                                              \
    double ad_forward_##F(double x0, double dx0, double x1, double dx1, double x2, double dx2, double x3,          \
                          double dx3) {                                                                            \
        return __enzyme_fwddiff_x4((void *)F, x0, dx0, x1, dx1, x2, dx2, x3, dx3);                                 \
    }
#endif
