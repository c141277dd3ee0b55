/* Euclid's gcd, written recursively (a tail call that the compilers turn
   into a loop): 1 to about 25 iterations per lane. */
// bench: ret int
// bench: v int a = rnd_int(1, 1000000)
// bench: v int b = rnd_int(1, 1000000)
#pragma omp declare simd notinbranch
int gcd(int a, int b) {
    return b == 0 ? a : gcd(b, a % b);
}
