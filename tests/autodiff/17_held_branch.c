/* A divergent loop whose body has a divergent branch with a constant
 * INFINITY on one side (a particle's time to a wall it does not move
 * towards): lanes that have left the loop run later trips with their mask
 * off, and must not get the infinite side blended in, or Enzyme's reverse
 * mode gives them NaN (0 * inf) derivatives
 * (benches/autodiff/repro/particle_inf.c). */
#include <math.h>
#include "autodiff.h"

double held_branch(double x, double vx) {
    double t = 1.0;
    int n = 0;
    while (t > 0.0 && n < 16) {
        double hit = vx > 0.0 ? (1.0 - x) / vx : vx < 0.0 ? -x / vx : INFINITY;
        if (hit >= t) {
            x += vx * t;
            break;
        }
        x += vx * hit;
        t -= hit;
        vx = -0.9 * vx;
        n++;
    }
    return x + 0.1 * vx * vx;
}

/* Positions inside (0, 1); speeds from -3 to 3, some of them 0: lanes
 * bounce 0 to 4 times, so most leave the loop while others go on. */
static void AD_POINT(int k, double *x, double *y) {
    *x = 0.05 + 0.9 * ((k * 37) % 64) / 64.0;
    *y = (k % 5 == 0) ? 0.0 : -3.0 + 6.0 * ((k * 11) % 64) / 63.0;
}

AD_XY(held_branch)
