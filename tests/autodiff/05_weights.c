/* Loads through a differentiated pointer at a lane-dependent index: the
 * gradient with respect to the weights sums every lane's contribution. */
#include "autodiff.h"

double weights(const double *w, double x) {
    int i = (int)fabs(x * 4.0) & 7;
    double r = w[i] * x + w[i + 1] * x * x;
    if (x > 0.5)
        r += w[i + 8] * sin(x);
    return r;
}

static void AD_WEIGHTS(double *w) {
    for (int j = 0; j < AD_W; j++)
        w[j] = 0.5 + 0.1 * j - 0.03 * j * j;
}

static void AD_POINT(int k, double *x, double *y) {
    *x = -1.9 + 3.8 * ((k * 19) % 64) / 64.0;
    *y = 0.0;
}

AD_WX(weights)
