/* Newton's iteration for sqrt(x) until converged: a divergent loop whose
 * trip count depends on the lane. */
#include "autodiff.h"

double newton_sqrt(double x, double y) {
    double a = x * x + 1.0;
    double g = a > 1.0 ? a : 1.0;
    int it = 0;
    while (fabs(g * g - a) > 1e-14 * a && it < 60) {
        g = 0.5 * (g + a / g);
        it++;
    }
    return g * y + it;
}

static void AD_POINT(int k, double *x, double *y) {
    *x = (k - 32) * (k % 5 == 0 ? 1000.0 : 0.37);
    *y = 0.5 + k / 16.0;
}

AD_XY(newton_sqrt)
