/* A switch on a lane-dependent integer: one formula per case. */
#include "autodiff.h"

double piecewise_switch(double x, double y) {
    int c = (int)floor(x) & 3;
    switch (c) {
    case 0:
        return x * y;
    case 1:
        return x * x - y;
    case 2:
        return cos(x) * y * y;
    default:
        return y / (1.0 + x * x);
    }
}

static void AD_POINT(int k, double *x, double *y) {
    *x = -4.0 + 8.0 * ((k * 45) % 64) / 64.0 + 0.01;
    *y = 1.0 - 0.03 * k;
}

AD_XY(piecewise_switch)
