/* Euclidean distance sqrtf(x*x + y*y): sqrtf is correctly rounded, so the
   clone must match bit for bit. */
#include <math.h>
// bench: ret float
// bench: v float x = rnd_range(-100.0f, 100.0f)
// bench: v float y = rnd_range(-100.0f, 100.0f)
#pragma omp declare simd notinbranch
float dist2(float x, float y) {
    return sqrtf(x * x + y * y);
}
