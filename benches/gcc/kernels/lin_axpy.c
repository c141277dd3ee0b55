/* a * x[0] + y[0] with x and y linear pointers (unit stride) and a uniform:
   two contiguous loads and nothing else. */
// bench: ret float
// bench: u float a = 1.75f
// bench: l const float* x 1 = rnd_range(-4.0f, 4.0f)
// bench: l const float* y 1 = rnd_range(-4.0f, 4.0f)
#pragma omp declare simd uniform(a) linear(x, y) notinbranch
float lin_axpy(float a, const float *x, const float *y) {
    return a * x[0] + y[0];
}
