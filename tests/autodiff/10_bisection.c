/* Bisection for the root of t^3 + y t - x: a divergent loop (stopping at a
 * lane-dependent tolerance) with a divergent branch inside. The result is
 * the final midpoint, whose derivative is zero almost everywhere, plus a
 * smooth term. */
#include "autodiff.h"

double bisection(double x, double y) {
    double lo = -10.0, hi = 10.0;
    double tol = 1e-6 * (1.0 + fabs(x));
    while (hi - lo > tol) {
        double mid = 0.5 * (lo + hi);
        if (mid * mid * mid + y * mid - x > 0.0)
            hi = mid;
        else
            lo = mid;
    }
    return 0.5 * (lo + hi) + x * y;
}

static void AD_POINT(int k, double *x, double *y) {
    *x = -50.0 + 100.0 * ((k * 37) % 64) / 64.0;
    *y = 0.5 + 0.1 * (k % 9);
}

AD_XY(bisection)
