/* Store through a linear pointer: out[0] = clamp(x * k, -1, 1), a void
   function whose result is a contiguous store. */
// bench: ret void
// bench: l float* out 1 = 0.0f
// bench: v float x = rnd_range(-2.0f, 2.0f)
// bench: u float k = 1.5f
#pragma omp declare simd linear(out) uniform(k) notinbranch
void store_clamp(float *out, float x, float k) {
    float y = x * k;
    out[0] = y < -1.0f ? -1.0f : (y > 1.0f ? 1.0f : y);
}
