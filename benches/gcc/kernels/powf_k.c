/* powf(x, y) with x > 0 and varying y: libm that is not exactly rounded. */
#include <math.h>
// bench: ret float
// bench: v float x = rnd_range(0.01f, 10.0f)
// bench: v float y = rnd_range(-3.0f, 3.0f)
// bench: veclib
// bench: ulp 4
#pragma omp declare simd notinbranch
float powf_k(float x, float y) {
    return powf(x, y);
}
