/* 1 / sqrtf(x) as an inbranch (masked) variant, called only for x > 0:
   the caller's mask (about half of the lanes) is the clone's entry mask. */
#include <math.h>
// bench: ret float
// bench: v float x = rnd_range(-1.0f, 4.0f)
// bench: mask x[i] > 0.0f
#pragma omp declare simd inbranch
float masked_rsqrt(float x) {
    return 1.0f / sqrtf(x);
}
