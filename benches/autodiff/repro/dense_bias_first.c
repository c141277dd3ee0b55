/* benches/autodiff/dense.c as first written, the bias first (see
 * README.md). A small dense layer on one example:
 * 4 inputs, 8 hidden units with tanh, one linear output,
 *
 *   dense(x) = sum_j v[j] * tanh(sum_i W[j][i] * x[i] + b[j]),
 *
 * with the weights as constant tables, written as plain C. The benchmark
 * takes its derivatives with respect to the example's 4 inputs. */
#include <math.h>

#define IN 4
#define HIDDEN 8

static const double W[HIDDEN][IN] = {
    {0.52, -0.31, 0.18, 0.77},  {-0.64, 0.25, 0.91, -0.12}, {0.08, 0.47, -0.55, 0.33}, {0.71, 0.66, 0.14, -0.48},
    {-0.29, -0.83, 0.39, 0.21}, {0.44, -0.17, -0.72, 0.58}, {-0.93, 0.36, 0.05, 0.27}, {0.15, -0.58, 0.62, -0.86},
};
static const double b[HIDDEN] = {0.1, -0.2, 0.05, 0.3, -0.15, 0.0, 0.25, -0.05};
static const double v[HIDDEN] = {0.8, -1.1, 0.6, 0.9, -0.7, 1.2, -0.4, 0.5};

double dense(double x0, double x1, double x2, double x3) {
    const double x[IN] = {x0, x1, x2, x3};
    double y = 0.0;
    for (int j = 0; j < HIDDEN; j++) {
        double a = b[j];
        for (int i = 0; i < IN; i++)
            a += W[j][i] * x[i];
        y += v[j] * tanh(a);
    }
    return y;
}
