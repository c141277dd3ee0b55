/* Bisection for the root of x^3 + x - c to an absolute tolerance, in
   double (4 lanes on AVX2): the trip count grows with log2 |c| (31 to 51). */
#include <math.h>
// bench: ret double
// bench: v double c = rnd_range_d(-1.0, 1.0) * pow(10.0, rnd_int(0, 6))
#pragma omp declare simd notinbranch
double bisect(double c) {
    double lo = -fabs(c) - 1.0, hi = fabs(c) + 1.0;
    int k = 0;
    while (hi - lo > 1e-9 && k < 200) {
        double mid = 0.5 * (lo + hi);
        double f = mid * mid * mid + mid - c;
        if (f < 0.0)
            lo = mid;
        else
            hi = mid;
        k++;
    }
    return 0.5 * (lo + hi);
}
