/* Histogram of the ten 3-bit digits of x in a local int[8] indexed by
   varying values, then its maximum: a small stack array. */
// bench: ret int
// bench: v int x = (int)rnd_u32()
#pragma omp declare simd notinbranch
int local_hist(int x) {
    int h[8] = {0};
    unsigned u = (unsigned)x;
    for (int k = 0; k < 10; k++) {
        h[u & 7]++;
        u >>= 3;
    }
    int best = 0;
    for (int k = 0; k < 8; k++)
        best = h[k] > best ? h[k] : best;
    return best;
}
