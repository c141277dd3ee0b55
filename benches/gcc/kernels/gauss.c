/* Gaussian expf(-x*x/2): libm that is not exactly rounded (libmvec's
   vector expf may differ by an ulp or so). */
#include <math.h>
// bench: ret float
// bench: v float x = rnd_range(-6.0f, 6.0f)
// bench: veclib
// bench: ulp 4
#pragma omp declare simd notinbranch
float gauss(float x) {
    return expf(-0.5f * x * x);
}
