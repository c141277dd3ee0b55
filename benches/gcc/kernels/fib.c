/* Doubly recursive Fibonacci through a noinline helper, n in [0, 12]: a call
   that cannot be vectorized, so every lane calls the scalar helper. */
// bench: ret int
// bench: v int m = rnd_int(0, 12)
static __attribute__((noinline)) int fib_rec(int n) {
    return n < 2 ? n : fib_rec(n - 1) + fib_rec(n - 2);
}
#pragma omp declare simd notinbranch
int fib(int m) {
    return fib_rec(m < 0 ? 0 : (m > 19 ? 19 : m));
}
