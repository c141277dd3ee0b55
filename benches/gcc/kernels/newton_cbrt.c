/* Cube root by Newton's method from x = 1 until the relative residual is
   below a tolerance: the trip count depends on the magnitude of a (2^-20 to
   2^20), from a few to about 40 iterations. */
// bench: ret float
// bench: v float a = ldexpf(rnd_range(1.0f, 2.0f), rnd_int(-20, 20))
#pragma omp declare simd notinbranch
float newton_cbrt(float a) {
    float x = 1.0f;
    for (int k = 0; k < 100; k++) {
        float r = x * x * x - a;
        if (r <= 1e-5f * a && r >= -1e-5f * a)
            break;
        x = x - r / (3.0f * x * x);
    }
    return x;
}
