/* exp(x) by its Taylor series until the term is negligible: the trip count
 * depends on the lane; finished lanes' terms would underflow if they kept
 * going. */
#include "autodiff.h"

double exp_series(double x, double y) {
    double term = 1.0, sum = 1.0;
    int k = 1;
    while (fabs(term) > 1e-17 * fabs(sum) && k < 200) {
        term *= x / k;
        sum += term;
        k++;
    }
    return sum * y;
}

static void AD_POINT(int k, double *x, double *y) {
    *x = -8.0 + 16.0 * ((k * 21) % 64) / 64.0;
    *y = 1.0 + 0.01 * k;
}

AD_XY(exp_series)
