/* Early returns taken by some lanes. */
#include "autodiff.h"

double early_return(double x, double y) {
    if (x < -1.0)
        return y * y;
    if (y > 1.0)
        return x * y + 1.0;
    double r = sin(x) * y;
    if (r > 0.25)
        return r * r;
    return exp(r) - x;
}

static void AD_POINT(int k, double *x, double *y) {
    *x = -2.5 + 5.0 * ((k * 27) % 64) / 64.0;
    *y = -1.5 + 3.0 * ((k * 7) % 64) / 64.0;
}

AD_XY(early_return)
