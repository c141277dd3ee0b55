/* Bucket of x among 16 thresholds in a global constant table: a short
   search loop over a constant table (0 to 16 iterations per lane). */
// bench: ret int
// bench: v float x = rnd_range(-1.0f, 17.0f) * rnd01()
static const float bounds[16] = {0.0f, 0.5f, 1.0f, 1.5f, 2.0f, 3.0f, 4.0f, 5.0f,
                                 6.0f, 7.0f, 8.0f, 10.0f, 12.0f, 14.0f, 15.0f, 16.0f};
#pragma omp declare simd notinbranch
int bucket(float x) {
    int b = 0;
    while (b < 16 && x >= bounds[b])
        b++;
    return b;
}
