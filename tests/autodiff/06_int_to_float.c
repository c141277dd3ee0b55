/* Integer paths: a lane-dependent integer trip count, integer values
 * converted to floating point inside a divergent loop. */
#include "autodiff.h"

double int_to_float(double x, double y) {
    int n = (int)floor(fabs(x) * 3.0);
    double s = 0.0;
    for (int k = 0; k < n && k < 20; k++)
        s += (double)(k * k % 7) * y + (double)k * x;
    return s + (double)n * x * y;
}

static void AD_POINT(int k, double *x, double *y) {
    *x = -6.0 + 12.0 * ((k * 41) % 64) / 64.0;
    *y = 0.5 - 0.02 * k;
}

AD_XY(int_to_float)
