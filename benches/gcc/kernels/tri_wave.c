/* Triangle wave |2 frac(x) - 1| with floorf and fabsf: exact libm. */
#include <math.h>
// bench: ret float
// bench: v float x = rnd_range(-1000.0f, 1000.0f)
#pragma omp declare simd notinbranch
float tri_wave(float x) {
    float f = x - floorf(x);
    return fabsf(2.0f * f - 1.0f);
}
