/* Three-point stencil p[i], p[i+1], p[i+2] from a uniform pointer and a
   linear index: consecutive lanes read consecutive elements. */
// bench: ret float
// bench: t const float* p n+2 = rnd_range(-1.0f, 1.0f)
// bench: i int i
#pragma omp declare simd uniform(p) linear(i) notinbranch
float stencil3(const float *p, int i) {
    return 0.25f * p[i] + 0.5f * p[i + 1] + 0.25f * p[i + 2];
}
