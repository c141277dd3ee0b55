/* The scalar kernel that batchify widens: Mandelbrot escape count, at most
 * 256 iterations. Lanes escape at different iterations, so the loop is
 * divergent: the 8- and 16-lane clones keep iterating while any lane is
 * still active, with finished lanes masked off.
 *
 * Compiled with `clang-22 -O2 -c -emit-llvm`: clang emits llvm.fmuladd for
 * `x*x + y*y` and friends. The scalar x86-64 code computes those unfused;
 * batchify keeps them unfused in the AVX-512 clone as well (avx512f implies
 * FMA), so every pixel gets the scalar escape count. No `declare simd` pragma:
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
