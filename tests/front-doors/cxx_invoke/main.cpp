// An `omp simd` loop calling a `declare simd` function that is not
// `noexcept`, while a `std::vector` is live: clang emits an `invoke` whose
// landing pad calls `__clang_call_terminate`. The plugin makes it a call
// (callers/invokes.rs), so the loop vectorizer calls `_ZGVdN8v_...`. The
// results must equal a scalar copy of the function, bit for bit.
#include <cstdio>
#include <cstring>
#include <vector>

#pragma omp declare simd notinbranch
float halve_below_one(float x);

// The scalar reference: the same body, never vectorized.
__attribute__((noinline)) static float reference(float x) {
    float y = x;
    while (y > 1.0f) y *= 0.5f;
    return y;
}

__attribute__((noinline)) std::vector<float> apply(const float *a, int n) {
    std::vector<float> out(n);
#pragma omp simd
    for (int i = 0; i < n; i++) out[i] = halve_below_one(a[i]);
    return out;
}

int main() {
    const int n = 1003;
    std::vector<float> a(n);
    unsigned s = 12345;
    for (int i = 0; i < n; i++) {
        s = s * 1103515245u + 12345u;
        a[i] = (float)(s >> 8) / 4096.0f;  // 0 .. 4096
    }
    a[0] = 0.0f; a[1] = -3.0f; a[2] = 1.0f; a[3] = 1e30f;
    std::vector<float> got = apply(a.data(), n);
    int bad = 0;
    for (int i = 0; i < n; i++) {
        float want = reference(a[i]);
        if (std::memcmp(&want, &got[i], sizeof want) != 0) {
            if (bad++ < 5) std::printf("lane %d: %a, want %a\n", i, got[i], want);
        }
    }
    std::printf("%d of %d wrong\n", bad, n);
    return bad != 0;
}
