/* smoothstep: Hermite interpolation between two edges, as in GLSL.
 *
 * `declare simd` makes clang name the vector variants of this function
 * (e.g. `_ZGVdN8uuv_smoothstep`: AVX2, unmasked, 8 lanes, e0 and e1 uniform,
 * x varying) without generating their bodies; batchify generates them:
 *
 *   clang-22 -O2 -fopenmp-simd -c -emit-llvm smoothstep.c -o smoothstep.bc
 *   batchify smoothstep.bc -o smoothstep.batched.bc --variant _ZGVdN8uuv_smoothstep
 */
#pragma omp declare simd uniform(e0, e1) notinbranch
float smoothstep(float e0, float e1, float x) {
    float t = (x - e0) / (e1 - e0);
    t = t < 0.0f ? 0.0f : t;
    t = t > 1.0f ? 1.0f : t;
    return t * t * (3.0f - 2.0f * t);
}
