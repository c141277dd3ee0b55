// Speed of an `omp simd` C++ caller whose `declare simd` callee is not
// `noexcept` (the call is an `invoke`): the loop with the variants the
// plugin lets it call, against the same loop over a scalar copy of the
// callee, in one process. Build and run (see docs/benchmarks.md):
//   clang++-22 -O2 -fopenmp-simd -march=x86-64-v3 -fpass-plugin=P -c cxx_invoke_bench.cpp
//   clang++-22 -O2 -fopenmp-simd -march=x86-64-v3 -fpass-plugin=P -c ../../tests/front-doors/cxx_invoke/kernel.cpp
//   clang++-22 cxx_invoke_bench.o kernel.o -o bench && ./bench
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

#pragma omp declare simd notinbranch
float halve_below_one(float x);

__attribute__((noinline)) float scalar_copy(float x) {
    float y = x;
    while (y > 1.0f) y *= 0.5f;
    return y;
}

__attribute__((noinline)) float with_variants(const float *a, int n) {
    std::vector<float> tmp(n);
#pragma omp simd
    for (int i = 0; i < n; i++) tmp[i] = halve_below_one(a[i]);
    float s = 0;
    for (float v : tmp) s += v;
    return s;
}

__attribute__((noinline)) float scalar_calls(const float *a, int n) {
    std::vector<float> tmp(n);
    for (int i = 0; i < n; i++) tmp[i] = scalar_copy(a[i]);
    float s = 0;
    for (float v : tmp) s += v;
    return s;
}

template <class F> double median_ms(F f, float *sink) {
    std::vector<double> t;
    for (int r = 0; r < 11; r++) {
        auto t0 = std::chrono::steady_clock::now();
        *sink += f();
        t.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    }
    std::sort(t.begin(), t.end());
    std::printf("  (min %.3f max %.3f) ", t.front(), t.back());
    return t[t.size() / 2];
}

int main() {
    const int n = 1 << 20;
    std::vector<float> a(n);
    unsigned s = 1;
    for (int i = 0; i < n; i++) { s = s * 1103515245u + 12345u; a[i] = (float)(s >> 8) / 4096.0f; }
    float sink = 0;
    double v = median_ms([&] { return with_variants(a.data(), n); }, &sink);
    std::printf("variants: %.3f ms\n", v);
    double c = median_ms([&] { return scalar_calls(a.data(), n); }, &sink);
    std::printf("scalar calls: %.3f ms\n", c);
    std::printf("speed-up %.2fx (checksum %g)\n", c / v, sink);
}
