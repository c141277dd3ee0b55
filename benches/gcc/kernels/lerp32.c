/* Piecewise-linear curve from a 32-entry constant float table: two reads
   at varying indices (four AVX2 registers, two AVX-512 registers). */
// bench: ret float
// bench: v float x = rnd_range(-1.0f, 9.0f)
static const float l32_y[32] = {0.0f, 0.12f, 0.31f, 0.5f, 0.66f, 0.8f, 0.9f, 0.97f,
                                1.0f, 0.97f, 0.9f, 0.8f, 0.66f, 0.5f, 0.31f, 0.12f,
                                0.0f, -0.12f, -0.31f, -0.5f, -0.66f, -0.8f, -0.9f, -0.97f,
                                -1.0f, -0.97f, -0.9f, -0.8f, -0.66f, -0.5f, -0.31f, -0.12f};
#pragma omp declare simd notinbranch
float lerp32(float x) {
    float t = x * 4.0f;
    t = t < 0.0f ? 0.0f : (t > 30.99f ? 30.99f : t);
    int k = (int)t;
    float f = t - (float)k;
    int k1 = (k + 1) & 31;
    return l32_y[k] + (l32_y[k1] - l32_y[k]) * f;
}
