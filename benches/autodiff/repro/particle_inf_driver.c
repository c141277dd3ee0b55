/* Enzyme's reverse mode of batchify's 4-lane --for-autodiff clone of
 * particle_inf.ll against Enzyme's reverse mode of the scalar function
 * (see README.md). Lane 0 bounces off a wall; lanes 1 to 3 hit no wall
 * and leave the loop in the first trip. */
#include <immintrin.h>
#include <stdio.h>

extern int enzyme_dup, enzyme_dupnoneed, enzyme_const;
void __enzyme_autodiff(void *, ...);
typedef struct {
    double d0, d1, d2, d3;
} quad;
quad __enzyme_autodiff_x4(void *, double, double, double, double);
double particle(double, double, double, double);
__m256d _ZGVdN4vvvv_particle(__m256d, __m256d, __m256d, __m256d);

static void particle4(const double *x, const double *y, const double *vx, const double *vy, double *out) {
    _mm256_storeu_pd(out, _ZGVdN4vvvv_particle(_mm256_loadu_pd(x), _mm256_loadu_pd(y), _mm256_loadu_pd(vx),
                                               _mm256_loadu_pd(vy)));
}

int main(void) {
    double x[4] = {0.26678149265602047, 0.5, 0.5, 0.5}, y[4] = {0.34290332472215679, 0.5, 0.5, 0.5};
    double vx[4] = {2.3013708564055761, 0.1, 0.1, 0.1}, vy[4] = {-0.90695126413367433, 0.1, 0.1, 0.1};
    double gx[4] = {0}, gy[4] = {0}, gvx[4] = {0}, gvy[4] = {0}, out[4], dout[4] = {1, 1, 1, 1};
    __enzyme_autodiff((void *)particle4, enzyme_dup, x, gx, enzyme_dup, y, gy, enzyme_dup, vx, gvx, enzyme_dup, vy,
                      gvy, enzyme_dupnoneed, out, dout);
    int bad = 0;
    for (int k = 0; k < 4; k++) {
        quad g = __enzyme_autodiff_x4((void *)particle, x[k], y[k], vx[k], vy[k]);
        printf("lane %d: clone %g %g %g %g, scalar %g %g %g %g\n", k, gx[k], gy[k], gvx[k], gvy[k], g.d0, g.d1, g.d2,
               g.d3);
        bad += gx[k] != g.d0 || gy[k] != g.d1 || gvx[k] != g.d2 || gvy[k] != g.d3;
    }
    return bad != 0;
}
