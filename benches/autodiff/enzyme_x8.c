/* Enzyme on batchify's 8-lane clone, for `cargo xtask bench-autodiff`
 * (xtask/src/bench_autodiff.rs): forward and reverse derivatives of
 * x8_primal (benches/autodiff/lanes8.ll), which calls
 * _ZGVdN8vv_smooth_mandel, built by `batchify --for-autodiff`. Compiled to
 * bitcode and linked with the clone's module before `opt -passes=enzyme`.
 * Each function handles 8 points; the driver calls it once per 8 points. */
extern int enzyme_dup, enzyme_dupnoneed;
void __enzyme_fwddiff(void *, ...);
void __enzyme_autodiff(void *, ...);

void x8_primal(const double *x, const double *y, double *out);

static const double ones[8] = {1, 1, 1, 1, 1, 1, 1, 1}, zeros[8];

/* fx = d/dx, fy = d/dy at the 8 points: two forward passes, seeds (1, 0)
 * and (0, 1). */
void x8_enzyme_fwd(const double *x, const double *y, double *fx, double *fy) {
    double out[8];
    __enzyme_fwddiff((void *)x8_primal, enzyme_dup, x, ones, enzyme_dup, y, zeros, enzyme_dupnoneed, out, fx);
    __enzyme_fwddiff((void *)x8_primal, enzyme_dup, x, zeros, enzyme_dup, y, ones, enzyme_dupnoneed, out, fy);
}

/* gx, gy = the gradient at the 8 points: one reverse pass, dout = 1 (Enzyme
 * adds into gx and gy, and zeroes dout). */
void x8_enzyme_rev(const double *x, const double *y, double *gx, double *gy) {
    double out[8], dout[8];
    for (int k = 0; k < 8; k++) {
        gx[k] = 0.0;
        gy[k] = 0.0;
        dout[k] = 1.0;
    }
    __enzyme_autodiff((void *)x8_primal, enzyme_dup, x, gx, enzyme_dup, y, gy, enzyme_dupnoneed, out, dout);
}
