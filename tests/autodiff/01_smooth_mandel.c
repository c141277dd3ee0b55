/* Smooth Mandelbrot escape measure: a divergent loop in which finished
 * lanes would overflow to inf if they kept iterating (|z| grows doubly
 * exponentially once past the bailout), then log(log|z|). */
#include "autodiff.h"

double smooth_mandel(double cx, double cy) {
    double x = 0.0, y = 0.0;
    int it = 0;
    while (it < 200 && x * x + y * y <= 256.0) {
        double xt = x * x - y * y + cx;
        y = 2.0 * x * y + cy;
        x = xt;
        it++;
    }
    return it + 1.0 - log(log(x * x + y * y) * 0.5) / log(2.0);
}

/* Points around the set's boundary: escape after 1 to 200 iterations, and
 * some that never escape. */
static void AD_POINT(int k, double *x, double *y) {
    *x = -2.0 + 2.5 * ((k * 37) % 64) / 64.0;
    *y = -1.2 + 2.4 * ((k * 11) % 64) / 64.0;
}

AD_XY(smooth_mandel)
