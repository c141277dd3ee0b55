/* Smoothstep between uniform edges: a clamp chain and a cubic. */
// bench: ret float
// bench: u float e0 = -1.0f
// bench: u float e1 = 1.5f
// bench: v float x = rnd_range(-3.0f, 3.0f)
#pragma omp declare simd uniform(e0, e1) notinbranch
float smoothstep(float e0, float e1, float x) {
    float t = (x - e0) / (e1 - e0);
    if (t < 0.0f)
        t = 0.0f;
    else if (t > 1.0f)
        t = 1.0f;
    return t * t * (3.0f - 2.0f * t);
}
