/* docs/plugin.md's LTO links: an `omp simd` loop calling `f`, a `declare
 * simd` function defined in kernel.c, whose ThinLTO import would inline
 * it. Checked against a scalar copy. */
#include <stdio.h>
#include <string.h>

#pragma omp declare simd notinbranch
float f(float x);

__attribute__((noinline)) static float reference(float x) {
    float y = x;
    while (y > 1.0f) y *= 0.5f;
    return y;
}

__attribute__((noinline)) void apply(float *restrict o, const float *restrict a, int n) {
#pragma omp simd
    for (int i = 0; i < n; i++) o[i] = f(a[i]);
}

int main(void) {
    enum { n = 1003 };
    static float a[n], o[n];
    for (int i = 0; i < n; i++) a[i] = (float)(i * 37 % 1000) / 7.0f;
    apply(o, a, n);
    int bad = 0;
    for (int i = 0; i < n; i++) {
        float want = reference(a[i]);
        bad += memcmp(&want, &o[i], sizeof want) != 0;
    }
    printf("%d of %d wrong\n", bad, n);
    return bad != 0;
}
