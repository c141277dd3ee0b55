/* Length of a 3-vector stored in an array of 4-float structures: a linear
   pointer with a constant stride of 4 elements (l16), three strided reads. */
#include <math.h>
// bench: ret float
// bench: l const float* p 4 = rnd_range(-10.0f, 10.0f)
#pragma omp declare simd linear(p : 4) notinbranch
float aos_norm(const float *p) {
    return sqrtf(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]);
}
