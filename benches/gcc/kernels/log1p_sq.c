/* logf(1 + x*x): libm that is not exactly rounded. */
#include <math.h>
// bench: ret float
// bench: v float x = rnd_range(-100.0f, 100.0f)
// bench: veclib
// bench: ulp 4
#pragma omp declare simd notinbranch
float log1p_sq(float x) {
    return logf(1.0f + x * x);
}
