/* Enzyme's forward and reverse derivatives of dense_bias_first.c against
 * central differences (see README.md). */
#include <stdio.h>

typedef struct {
    double d0, d1, d2, d3;
} quad;
quad __enzyme_autodiff_x4(void *, double, double, double, double);
double __enzyme_fwddiff_x4(void *, double, double, double, double, double, double, double, double);
double dense(double, double, double, double);

int main(void) {
    double x0 = 0.3, x1 = -1.2, x2 = 0.7, x3 = 2.1, h = 1e-6;
    quad g = __enzyme_autodiff_x4((void *)dense, x0, x1, x2, x3);
    double f0 = __enzyme_fwddiff_x4((void *)dense, x0, 1.0, x1, 0.0, x2, 0.0, x3, 0.0);
    double c0 = (dense(x0 + h, x1, x2, x3) - dense(x0 - h, x1, x2, x3)) / (2 * h);
    printf("d/dx0: forward %.17g, reverse %.17g, central difference %.17g\n", f0, g.d0, c0);
    return f0 - c0 > 1e-6 || c0 - f0 > 1e-6;
}
