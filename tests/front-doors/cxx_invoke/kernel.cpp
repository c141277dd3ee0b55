// A `declare simd` function that is not `noexcept`: its C++ callers reach it
// with an `invoke` where a cleanup is pending (see main.cpp).
#pragma omp declare simd notinbranch
float halve_below_one(float x) {
    float y = x;
    while (y > 1.0f) y *= 0.5f;  // lane-divergent loop
    return y;
}
