/* Nested divergent loops: both trip counts depend on the lane. */
#include "autodiff.h"

double nested_loops(double x, double y) {
    int m = (int)(fabs(x) * 2.0) % 6 + 1;
    double s = 0.0;
    for (int j = 0; j < m; j++) {
        double t = y;
        int it = 0;
        while (t * t < 40.0 + j && it < 30) {
            t = t * 1.3 + x * 0.1;
            it++;
        }
        s += t / (j + 1);
    }
    return s;
}

static void AD_POINT(int k, double *x, double *y) {
    *x = -3.0 + 6.0 * ((k * 17) % 64) / 64.0;
    *y = 0.2 + 0.05 * k;
}

AD_XY(nested_loops)
