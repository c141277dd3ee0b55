/* copysignf(fminf(fabsf(x), lim), y): exact libm functions that map to
   single instructions or short sequences. */
#include <math.h>
// bench: ret float
// bench: v float x = rnd_range(-3.0f, 3.0f)
// bench: v float y = rnd_range(-1.0f, 1.0f)
// bench: u float lim = 2.0f
#pragma omp declare simd uniform(lim) notinbranch
float soft_sign(float x, float y, float lim) {
    return copysignf(fminf(fabsf(x), lim), y);
}
