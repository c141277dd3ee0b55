/* An integer-driven divergent loop (Collatz steps) with a divergent branch
 * inside that carries a floating-point value. */
#include "autodiff.h"

double collatz(double x, double y) {
    unsigned n = (unsigned)(fabs(x) * 10.0) + 1;
    double acc = y;
    int steps = 0;
    while (n != 1 && steps < 100) {
        if (n & 1) {
            n = 3 * n + 1;
            acc = acc * 1.01 + x;
        } else {
            n = n / 2;
            acc = acc * 0.97 - 0.5 * x;
        }
        steps++;
    }
    return acc;
}

static void AD_POINT(int k, double *x, double *y) {
    *x = -5.0 + 10.0 * ((k * 31) % 64) / 64.0;
    *y = 0.1 * k;
}

AD_XY(collatz)
