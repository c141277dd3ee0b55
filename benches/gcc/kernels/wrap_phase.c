/* fmodf by a uniform period, wrapped into [0, period): libm, exactly rounded
   (fmodf is exact). */
#include <math.h>
// bench: ret float
// bench: v float x = rnd_range(-100.0f, 100.0f)
// bench: u float period = 6.2831855f
#pragma omp declare simd uniform(period) notinbranch
float wrap_phase(float x, float period) {
    float r = fmodf(x, period);
    return r < 0.0f ? r + period : r;
}
