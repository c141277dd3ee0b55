/* Powers x^0..x^7 computed into a local float[8], then read back at a
   varying index: a stack array written in a loop, read by a varying index. */
// bench: ret float
// bench: v float x = rnd_range(-1.5f, 1.5f)
// bench: v int k = rnd_int(0, 7)
#pragma omp declare simd notinbranch
float local_pow(float x, int k) {
    float p[8];
    p[0] = 1.0f;
    for (int j = 1; j < 8; j++)
        p[j] = p[j - 1] * x;
    return p[k & 7];
}
