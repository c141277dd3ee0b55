/* Dot product of two 3-vectors stored as arrays of 3-float structures: two
   linear pointers with a constant stride of 3 elements, six strided reads. */
// bench: ret float
// bench: l const float* a 3 = rnd_range(-4.0f, 4.0f)
// bench: l const float* b 3 = rnd_range(-4.0f, 4.0f)
#pragma omp declare simd linear(a : 3) linear(b : 3) notinbranch
float aos_dot3(const float *a, const float *b) {
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}
