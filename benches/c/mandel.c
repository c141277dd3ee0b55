/* The scalar kernel that batchify widens: Mandelbrot escape count, at most
 * 256 iterations. Lanes escape at different iterations, so the loop is
 * divergent: the 8- and 16-lane clones keep iterating while any lane is
 * still active, with finished lanes masked off.
 *
 * Compiled with `clang-22 -O2 -ffp-contract=off -c -emit-llvm`. Without
 * -ffp-contract=off clang emits llvm.fmuladd for `x*x + y*y` and friends;
 * the scalar x86-64 code computes that as a multiply and an add, but the
 * AVX-512 clone (avx512f implies FMA) as one fused operation, and some
 * pixels then get another escape count (1,264 of the 1,048,576 when this was
 * written); the benchmark's equality check would fail. No `declare simd` pragma:
 * the benchmark asks for the variants by name. */
unsigned mandel(float cx, float cy) {
    float x = 0.0f, y = 0.0f;
    unsigned it = 0;
    while (it < 256 && x * x + y * y <= 4.0f) {
        float xt = x * x - y * y + cx;
        y = 2.0f * x * y + cy;
        x = xt;
        it++;
    }
    return it;
}
