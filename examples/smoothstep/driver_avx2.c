/* The AVX2 half of the smoothstep demo: everything that passes __m256 values
 * to the batchify-generated clone _ZGVdN8uuv_smoothstep.
 *
 * Build this file with -mavx2 (driver.c, which holds main, is built for the
 * baseline host):
 *
 *   clang-22 -O2 -mavx2 -c driver_avx2.c -o driver_avx2.o
 *
 * Why a separate translation unit: clang picks the calling convention of
 * 256-bit vector arguments per translation unit, not per function. In a file
 * built without -mavx/-mavx2, a call to `__m256 f(float, float, __m256)`
 * passes the vector in memory even from a function marked
 * __attribute__((target("avx2"))), while the clone (like any AVX2 function
 * following the x86-64 vector ABI) expects it in %ymm2. Keeping the AVX2
 * callers here lets main() stay free of AVX2 instructions, so driver.c can
 * check __builtin_cpu_supports("avx2") before anything here runs.
 */
#include <immintrin.h>
#include <stddef.h>

#ifndef __AVX2__
#error "driver_avx2.c must be compiled with -mavx2 (see the comment at the top)"
#endif

__m256 _ZGVdN8uuv_smoothstep(float e0, float e1, __m256 x);

/* Called through a volatile function pointer, like the scalar function in
 * driver.c, so both ways make one real call: here per 8 elements. */
typedef __m256 (*batched_fn)(float, float, __m256);
static batched_fn volatile batched_ptr = _ZGVdN8uuv_smoothstep;

/* out[i] = smoothstep(e0, e1, x[i]) for i < n, 8 lanes per call; n must be a
 * multiple of 8. */
void smoothstep_batched_array(float e0, float e1, const float *x, float *out, size_t n) {
    for (size_t i = 0; i < n; i += 8)
        _mm256_storeu_ps(out + i, batched_ptr(e0, e1, _mm256_loadu_ps(x + i)));
}
