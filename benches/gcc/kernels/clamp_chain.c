/* Clamp to varying bounds, then a soft knee above the midpoint: nested
   divergent branches on three varying inputs. */
// bench: ret float
// bench: v float x = rnd_range(-10.0f, 10.0f)
// bench: v float lo = rnd_range(-8.0f, 0.0f)
// bench: v float hi = rnd_range(0.0f, 8.0f)
#pragma omp declare simd notinbranch
float clamp_chain(float x, float lo, float hi) {
    if (x < lo) {
        x = lo;
    } else if (x > hi) {
        x = hi;
    } else {
        float mid = 0.5f * (lo + hi);
        if (x > mid)
            x = mid + 0.5f * (x - mid);
        else if (x < lo + 0.1f)
            x = lo;
    }
    return x;
}
