/* README.md's caller of the demo's clone: y[i] = smoothstep(e0, e1, x[i]),
 * 8 elements per call, checked against the scalar function. */
#include <immintrin.h>
#include <stdio.h>
#include <string.h>

float smoothstep(float e0, float e1, float x);
__m256 _ZGVdN8uuv_smoothstep(float e0, float e1, __m256 x);

int main(void) {
    enum { n = 1024 };
    static float x[n], y[n];
    for (size_t i = 0; i < n; i++) x[i] = (float)i / n * 3.0f - 1.0f;
    for (size_t i = 0; i < n; i += 8)
        _mm256_storeu_ps(y + i, _ZGVdN8uuv_smoothstep(0.25f, 1.5f, _mm256_loadu_ps(x + i)));
    int bad = 0;
    for (size_t i = 0; i < n; i++) {
        float want = smoothstep(0.25f, 1.5f, x[i]);
        bad += memcmp(&want, &y[i], sizeof want) != 0;
    }
    printf("%d of %d wrong\n", bad, n);
    return bad != 0;
}
