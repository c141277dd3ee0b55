/* The `declare simd` function, in its own file: a ThinLTO link imports its
 * body into same_tu.c's module (built with -DF_ELSEWHERE) and would inline it into the `omp simd` loop. */
#pragma omp declare simd notinbranch
float f(float x) {
    float y = x;
    while (y > 1.0f) y *= 0.5f; /* lane-divergent loop */
    return y;
}
