/* x * sinf(x) over a few periods: libm that is not exactly rounded. */
#include <math.h>
// bench: ret float
// bench: v float x = rnd_range(-20.0f, 20.0f)
// bench: veclib
// bench: ulp 4
#pragma omp declare simd notinbranch
float sin_x(float x) {
    return x * sinf(x);
}
