/* `declare simd` functions whose calls LLVM's loop vectorizer refuses
 * (LoopAccessAnalysis: "instruction cannot be vectorized"): `horner` reads
 * its coefficients through a `uniform` pointer, `put` is a `void` function
 * writing through one. Built into AVX2 variants by the plugin. */
#pragma omp declare simd uniform(coef, deg) notinbranch
double horner(const double *coef, int deg, double x) {
    double r = 0.0;
    for (int k = deg; k >= 0; k--) r = r * x + coef[k]; /* uniform loop */
    return r;
}

#pragma omp declare simd uniform(out) linear(i) notinbranch
void put(double *out, int i, double v) {
    out[i] = v < 0.0 ? -v : v * 0.5; /* lane-divergent select */
}
