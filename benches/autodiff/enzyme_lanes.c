/* Enzyme on batchify's N-lane clones, for `cargo xtask bench-autodiff`
 * (xtask/src/bench_autodiff.rs): forward and reverse derivatives of
 * CFG_primal, the wrapper of one configuration's clone of smooth_mandel
 * (`_ZGVdN4vv_`, `_ZGVdN8vv_` or `_ZGVeN8vv_smooth_mandel`, built by
 * `batchify --for-autodiff`; the wrappers are IR that the xtask writes,
 * wrappers-CFG.ll). Compiled to bitcode once per configuration, with
 * -DCFG=<name> -DLANES=<lanes> and the configuration's ISA flag, and
 * linked with the clones' module before `opt -passes=enzyme`. Each
 * function handles LANES points; the driver calls it once per LANES
 * points. */
#if !defined(CFG) || !defined(LANES)
#error "compile with -DCFG=<configuration> -DLANES=<lanes>"
#endif
#define CAT_(a, b) a##_##b
#define CAT(a, b) CAT_(a, b)
#define FN(what) CAT(CFG, what)

extern int enzyme_dup, enzyme_dupnoneed;
void __enzyme_fwddiff(void *, ...);
void __enzyme_autodiff(void *, ...);

void FN(primal)(const double *x, const double *y, double *out);

static const double ones[LANES] = {[0 ... LANES - 1] = 1.0}, zeros[LANES];

/* fx = d/dx, fy = d/dy at the LANES points: two forward passes, seeds
 * (1, 0) and (0, 1). */
void FN(enzyme_fwd)(const double *x, const double *y, double *fx, double *fy) {
    double out[LANES];
    __enzyme_fwddiff((void *)FN(primal), enzyme_dup, x, ones, enzyme_dup, y, zeros, enzyme_dupnoneed, out, fx);
    __enzyme_fwddiff((void *)FN(primal), enzyme_dup, x, zeros, enzyme_dup, y, ones, enzyme_dupnoneed, out, fy);
}

/* gx, gy = the gradient at the LANES points: one reverse pass, dout = 1
 * (Enzyme adds into gx and gy, and zeroes dout). */
void FN(enzyme_rev)(const double *x, const double *y, double *gx, double *gy) {
    double out[LANES], dout[LANES];
    for (int k = 0; k < LANES; k++) {
        gx[k] = 0.0;
        gy[k] = 0.0;
        dout[k] = 1.0;
    }
    __enzyme_autodiff((void *)FN(primal), enzyme_dup, x, gx, enzyme_dup, y, gy, enzyme_dupnoneed, out, dout);
}
