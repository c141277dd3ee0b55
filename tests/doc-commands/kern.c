/* A `declare simd` function, as docs/plugin.md and README.md compile it. */
#pragma omp declare simd notinbranch
float kern(float x, float y) {
    float s = 0.0f;
    while (x > y) { /* lane-divergent loop */
        x *= 0.5f;
        s += 1.0f;
    }
    return s + x;
}
