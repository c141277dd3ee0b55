/* Collatz step count (capped at 500): an integer divergent loop with a
   data-dependent branch in its body; trip counts 0 to 350 for n < 100000. */
// bench: ret int
// bench: v int n0 = rnd_int(1, 100000)
#pragma omp declare simd notinbranch
int collatz(int n0) {
    unsigned n = (unsigned)n0;
    int steps = 0;
    while (n != 1 && steps < 500) {
        n = (n & 1) ? 3 * n + 1 : n / 2;
        steps++;
    }
    return steps;
}
