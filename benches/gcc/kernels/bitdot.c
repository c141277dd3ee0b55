/* Weighted sum of the 16 low bits of x with a constant weight table: a fixed
   16-trip inner loop that clang -O2 already vectorizes (or fully unrolls)
   inside the scalar function, so batchify starts from vector IR. */
// bench: ret int
// bench: v int x = (int)(rnd_u32() & 0xffff)
static const int weights[16] = {3, -1, 4, 1, -5, 9, 2, -6, 5, 3, -5, 8, 9, -7, 9, 3};
#pragma omp declare simd notinbranch
int bitdot(int x) {
    int s = 0;
    for (int k = 0; k < 16; k++)
        s += weights[k] * ((x >> k) & 1);
    return s;
}
