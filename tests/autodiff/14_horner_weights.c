/* A polynomial in x whose degree depends on the lane, coefficients read
 * from differentiated memory in a divergent loop. */
#include "autodiff.h"

double horner_weights(const double *w, double x) {
    int n = (int)(fabs(x) * 5.0) % 12 + 1;
    double s = 0.0;
    for (int k = 0; k < n; k++)
        s = s * x + w[k];
    return s;
}

static void AD_WEIGHTS(double *w) {
    for (int j = 0; j < AD_W; j++)
        w[j] = 1.0 / (1.0 + j) - 0.05 * j;
}

static void AD_POINT(int k, double *x, double *y) {
    *x = -1.2 + 2.4 * ((k * 25) % 64) / 64.0;
    *y = 0.0;
}

AD_WX(horner_weights)
