/* Enzyme on batchify's L-lane clones, for `cargo xtask bench-autodiff`
 * (xtask/src/bench_autodiff.rs), and the uniform entry points that the
 * driver calls. Compiled to bitcode once per configuration and function,
 * with -DCFG=<configuration> -DLANES=<lanes> -DFUNC=<tag> -DARITY=<K
 * inputs: 2 or 4> and the configuration's ISA flag, and linked with the
 * clones' module before `opt -passes=enzyme`. CFG_FUNC_primal,
 * CFG_FUNC_bf_fwd and CFG_FUNC_bf_rev are the IR wrappers that the xtask
 * writes (wrappers-CFG-FUNC.ll): the clone of the function (built by
 * `batchify --for-autodiff`, e.g. `_ZGVdN4vvvv_dense`) on LANES points,
 * and the clones of Enzyme's scalar derivatives. Each function here handles
 * LANES points; the driver calls the CFG_FUNC_v_* entry points once per
 * LANES points. */
#if !defined(CFG) || !defined(LANES) || !defined(FUNC) || !defined(ARITY)
#error "compile with -DCFG=<configuration> -DLANES=<lanes> -DFUNC=<tag> -DARITY=<inputs>"
#endif
#define CAT_(a, b, c) a##_##b##_##c
#define CAT(a, b, c) CAT_(a, b, c)
#define FN(what) CAT(CFG, FUNC, what)

extern int enzyme_dup, enzyme_dupnoneed;
void __enzyme_fwddiff(void *, ...);
void __enzyme_autodiff(void *, ...);

#if ARITY == 2
#define XP const double *x0, const double *x1
#define DP double *d0, double *d1
#define XI x[0] + i, x[1] + i
#define RI r[0] + i, r[1] + i
#define DUP(s0, s1) enzyme_dup, x0, s0, enzyme_dup, x1, s1
#elif ARITY == 4
#define XP const double *x0, const double *x1, const double *x2, const double *x3
#define DP double *d0, double *d1, double *d2, double *d3
#define XI x[0] + i, x[1] + i, x[2] + i, x[3] + i
#define RI r[0] + i, r[1] + i, r[2] + i, r[3] + i
#define DUP(s0, s1, s2, s3) enzyme_dup, x0, s0, enzyme_dup, x1, s1, enzyme_dup, x2, s2, enzyme_dup, x3, s3
#else
#error "ARITY must be 2 or 4"
#endif

/* The IR wrappers (wrappers-CFG-FUNC.ll). */
void FN(primal)(XP, double *out);
void FN(bf_fwd)(XP, DP);
void FN(bf_rev)(XP, DP);

static const double ones[LANES] = {[0 ... LANES - 1] = 1.0}, zeros[LANES];

/* d_j = the derivative along input j at the LANES points: one forward
 * pass per input, seeds e_0, ..., e_{K-1}. */
void FN(enzyme_fwd)(XP, DP) {
    double out[LANES];
#if ARITY == 2
    __enzyme_fwddiff((void *)FN(primal), DUP(ones, zeros), enzyme_dupnoneed, out, d0);
    __enzyme_fwddiff((void *)FN(primal), DUP(zeros, ones), enzyme_dupnoneed, out, d1);
#else
    __enzyme_fwddiff((void *)FN(primal), DUP(ones, zeros, zeros, zeros), enzyme_dupnoneed, out, d0);
    __enzyme_fwddiff((void *)FN(primal), DUP(zeros, ones, zeros, zeros), enzyme_dupnoneed, out, d1);
    __enzyme_fwddiff((void *)FN(primal), DUP(zeros, zeros, ones, zeros), enzyme_dupnoneed, out, d2);
    __enzyme_fwddiff((void *)FN(primal), DUP(zeros, zeros, zeros, ones), enzyme_dupnoneed, out, d3);
#endif
}

/* d_j = the gradient's component j at the LANES points: one reverse pass,
 * dout = 1 (Enzyme adds into the d_j, and zeroes dout). */
void FN(enzyme_rev)(XP, DP) {
    double out[LANES], dout[LANES];
    for (int k = 0; k < LANES; k++) {
        dout[k] = 1.0;
        d0[k] = 0.0;
        d1[k] = 0.0;
#if ARITY == 4
        d2[k] = 0.0;
        d3[k] = 0.0;
#endif
    }
#if ARITY == 2
    __enzyme_autodiff((void *)FN(primal), DUP(d0, d1), enzyme_dupnoneed, out, dout);
#else
    __enzyme_autodiff((void *)FN(primal), DUP(d0, d1, d2, d3), enzyme_dupnoneed, out, dout);
#endif
}

/* The driver's entry points: LANES points from i on, inputs x[0..K),
 * results r[0..K) (the primal: r[0]). */
void FN(v_primal)(const double *const *x, double *const *r, long i) { FN(primal)(XI, r[0] + i); }
void FN(v_enzyme_fwd)(const double *const *x, double *const *r, long i) { FN(enzyme_fwd)(XI, RI); }
void FN(v_bf_fwd)(const double *const *x, double *const *r, long i) { FN(bf_fwd)(XI, RI); }
void FN(v_enzyme_rev)(const double *const *x, double *const *r, long i) { FN(enzyme_rev)(XI, RI); }
void FN(v_bf_rev)(const double *const *x, double *const *r, long i) { FN(bf_rev)(XI, RI); }
