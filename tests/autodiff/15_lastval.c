/* The value of the previous trip carried out of a divergent loop (a
 * header phi whose back-edge value is another header phi). */
#include "autodiff.h"

double lastval(double x, double y) {
    double prev = 0.0, cur = y;
    int i = 0;
    while (cur < 10.0 && i < 50) {
        prev = cur;
        cur = cur * x + 1.0;
        i++;
    }
    return prev * y;
}

static void AD_POINT(int k, double *x, double *y) {
    *x = 0.5 + 2.0 * ((k * 37) % 64) / 64.0;
    *y = 0.1 + 0.1 * (k % 13);
}

AD_XY(lastval)
