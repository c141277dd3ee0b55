/* A search loop over a sorted constant table (loads at a uniform index in
 * a divergent loop; the index leaves the loop), then piecewise-linear
 * interpolation. */
#include "autodiff.h"

static const double K[9] = {-4.0, -2.5, -1.0, -0.2, 0.0, 0.7, 1.5, 3.0, 5.0};
static const double V[9] = {1.0, 0.4, -0.3, 0.2, 0.0, 0.9, 2.0, 2.5, 1.0};

double table_search(double x, double y) {
    int i = 0;
    while (i < 7 && K[i + 1] < x)
        i++;
    double t = (x - K[i]) / (K[i + 1] - K[i]);
    return (V[i] + (V[i + 1] - V[i]) * t) * y;
}

static void AD_POINT(int k, double *x, double *y) {
    *x = -4.5 + 10.0 * ((k * 33) % 64) / 64.0 + 0.01;
    *y = 0.8 + 0.02 * k;
}

AD_XY(table_search)
