/* A lane-divergent branch whose untaken side is undefined for the lane
 * (sqrt of a negative number in lanes that take the other side). */
#include "autodiff.h"

double branch_sqrt(double x, double y) {
    double r;
    if (x > y)
        r = sqrt(x - y) * y;
    else
        r = x * x + log1p(y * y);
    return r;
}

static void AD_POINT(int k, double *x, double *y) {
    *x = -3.0 + 6.0 * ((k * 29) % 64) / 64.0;
    *y = -2.0 + 4.0 * ((k * 13) % 64) / 64.0;
}

AD_XY(branch_sqrt)
