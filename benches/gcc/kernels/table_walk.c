/* Steps of a 16-state machine until it reaches state 0 (at most 40): a
   divergent loop that reads a 16-entry constant int table at a varying
   index every trip (two AVX2 registers, one AVX-512 register). */
// bench: ret int
// bench: v int s0 = rnd_int(0, 1 << 30)
static const int tw_next[16] = {3, 0, 9, 14, 2, 11, 7, 1, 13, 4, 15, 6, 10, 5, 8, 12};
#pragma omp declare simd notinbranch
int table_walk(int s0) {
    unsigned s = (unsigned)s0 & 15, h = (unsigned)s0 >> 4;
    int steps = 0;
    while (s != 1 && steps < 40) {
        s = (unsigned)tw_next[(s ^ h) & 15];
        h >>= 1;
        steps++;
    }
    return steps;
}
