/* A `declare simd` function and its `omp simd` caller in one file,
 * compiled with clang's default flags: the inliner would put `f`'s body
 * into `apply`'s loop before the plugin builds `f`'s variants, and the loop
 * (holding `f`'s lane-divergent loop) would stay scalar. The plugin keeps
 * that call from being inlined (callers::keep_simd_calls), so the loop
 * calls `_ZGVdN8v_f`. The results must equal a scalar copy, bit for bit. */
#include <math.h>
#include <stdio.h>
#include <string.h>

/* With -DF_ELSEWHERE, `f` is defined in another file (thinlto/kernel.c), as in
 * the ThinLTO test: the link imports its body and would inline it. */
#ifdef F_ELSEWHERE
#pragma omp declare simd notinbranch
float f(float x);
#else
#pragma omp declare simd notinbranch
float f(float x) {
    float y = x;
    while (y > 1.0f) y *= 0.5f; /* lane-divergent loop */
    return y;
}
#endif

/* With libm calls under clang's default -fmath-errno: LLVM infers that it
 * only writes memory (errno), and the loop vectorizer refuses such calls;
 * the caller side drops that attribute (callers::forget_write_only_memory). */
#pragma omp declare simd notinbranch
float g(float x) {
    float y = fabsf(x) + 1.0f;
    while (y > 2.0f) y = sqrtf(y) * 0.75f;
    return expf(-y);
}

__attribute__((noinline)) void apply_g(float *restrict o, const float *restrict a, int n) {
#pragma omp simd
    for (int i = 0; i < n; i++) o[i] = g(a[i]);
}

__attribute__((noinline)) static float reference_g(float x) {
    float y = fabsf(x) + 1.0f;
    while (y > 2.0f) y = sqrtf(y) * 0.75f;
    return expf(-y);
}

__attribute__((noinline)) void apply(float *restrict o, const float *restrict a, int n) {
#pragma omp simd
    for (int i = 0; i < n; i++) o[i] = f(a[i]);
}

/* The scalar reference: the same body, never vectorized. */
__attribute__((noinline)) static float reference(float x) {
    float y = x;
    while (y > 1.0f) y *= 0.5f;
    return y;
}

#define N 1003
static float a[N], o[N];

int main(void) {
    unsigned s = 777;
    for (int i = 0; i < N; i++) {
        s = s * 1103515245u + 12345u;
        a[i] = (float)(s >> 8) / 4096.0f;
    }
    a[0] = 0.0f; a[1] = -2.0f; a[2] = 1.0f; a[3] = 1e30f;
    apply(o, a, N);
    int bad = 0;
    for (int i = 0; i < N; i++) {
        float want = reference(a[i]);
        if (memcmp(&want, &o[i], sizeof want) != 0 && bad++ < 5) printf("lane %d: %a, want %a\n", i, o[i], want);
    }
    apply_g(o, a, N);
    for (int i = 0; i < N; i++) {
        float want = reference_g(a[i]);
        if (memcmp(&want, &o[i], sizeof want) != 0 && bad++ < 5) printf("g lane %d: %a, want %a\n", i, o[i], want);
    }
    printf("%d of %d wrong\n", bad, N);
    return bad != 0;
}
