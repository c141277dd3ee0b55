/* Linked into the newlib-libm modules of the real-code sweep (see
 * docs/sweep.md) so that the oracle's JIT, which resolves symbols from the
 * glibc test process, finds newlib's errno accessor. Functions in the
 * section "batchify.sweep.shim" are not swept themselves. */
__attribute__((section("batchify.sweep.shim"))) int *__errno(void) {
    static int e;
    return &e;
}
