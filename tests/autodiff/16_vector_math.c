/* libm calls that --for-autodiff clones compute with one vector intrinsic
 * (log, exp, sin, tanh, cos, atan, asin) under divergent branches and a
 * divergent loop: inactive lanes would take log of a negative number,
 * asin of |x| > 1 and exp of a large argument (their operands are 1
 * there), and some active lanes take log(0), exp overflow and asin of
 * |x| > 1, where the real call runs (errno) and gives the lane its value. */
#include "autodiff.h"

double vector_math(double x, double y) {
    double r;
    if (x > 0.25) {
        r = log(x) * sin(y) + tanh(x * y);
    } else if (x > -1.0) {
        r = exp(40.0 * y) * cos(x) + asin(x);
    } else {
        /* x <= -1: a divergent loop, then log of a value that is 0 in
         * some lanes and exp of one that overflows in others. */
        double s = y;
        int n = 0;
        while (s < 2.0 && n < 20) {
            s = s + 0.3 * (1.0 + atan(s * x));
            n++;
        }
        r = log(fabs(y + 1.0)) + exp(-x * 300.0) * 1e-300 + n + s;
    }
    return r;
}

/* x in [-3, 3), y in [-2, 2): point 16 is (-1.5, -1), log(0) there, and
 * exp(-300 x) overflows for x <= -2.37. */
static void AD_POINT(int k, double *x, double *y) {
    *x = -3.0 + 6.0 * ((k * 29) % 64) / 64.0;
    *y = -2.0 + 4.0 * ((k * 13) % 64) / 64.0;
}

AD_XY(vector_math)
