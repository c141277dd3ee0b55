/* a / b + a % b with a varying, nonzero divisor of either sign: integer
   division by a varying value (no vector instruction for it on x86). */
// bench: ret int
// bench: v int a = rnd_int(-1000000, 1000000)
// bench: v int b = rnd_int(1, 100) * ((rnd_u32() & 1) ? 1 : -1)
#pragma omp declare simd notinbranch
int divmod(int a, int b) {
    return a / b + a % b;
}
