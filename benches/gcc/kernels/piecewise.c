/* A piecewise function with five pieces (a chain of divergent if/else,
   polynomial and sqrtf pieces). */
#include <math.h>
// bench: ret float
// bench: v float x = rnd_range(-4.0f, 4.0f)
#pragma omp declare simd notinbranch
float piecewise(float x) {
    if (x < -2.0f)
        return -1.0f;
    else if (x < 0.0f)
        return 0.25f * x * x + x;
    else if (x < 1.0f)
        return x * x * x;
    else if (x < 3.0f)
        return 1.0f + sqrtf(x - 1.0f);
    return 1.0f + 1.41421356f + 0.5f * (x - 3.0f);
}
