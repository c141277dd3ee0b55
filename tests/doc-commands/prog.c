/* docs/enzyme-batch.md's program: f batched 4 ways with __enzyme_batch,
 * a uniform `a`, checked against four scalar calls. */
#include <stdio.h>

extern int enzyme_width, enzyme_vector, enzyme_scalar;
typedef struct { double v[4]; } f64x4;
extern f64x4 __enzyme_batch(...);

__attribute__((noinline)) double f(double x, double a) {
    int n = 0;
    while (x > a && n < 100) { /* lane-divergent loop */
        x = x * 0.5 + 0.1;
        n++;
    }
    return x + n;
}

int main(void) {
    double x0 = 1.0, x1 = 10.0, x2 = 1000.0, x3 = -3.0, a = 0.75;
    f64x4 r = __enzyme_batch(f, enzyme_width, 4, enzyme_vector, x0, x1, x2, x3, enzyme_scalar, a);
    double want[4] = {f(x0, a), f(x1, a), f(x2, a), f(x3, a)};
    int bad = 0;
    for (int k = 0; k < 4; k++) bad += r.v[k] != want[k];
    printf("%d of 4 wrong\n", bad);
    return bad != 0;
}
