/* One time step of a particle in the unit box, for `cargo xtask
 * bench-autodiff`: from (x, y) with velocity (vx, vy), move for DT,
 * bouncing off the walls (each bounce reverses the velocity's component
 * normal to the wall and keeps RESTITUTION of it), until the step's time is
 * used up or MAX_BOUNCES walls were hit. How many bounces that takes
 * differs from particle to particle: a divergent while loop. The result
 * weights the final position with the remaining kinetic energy; the
 * benchmark takes its derivatives with respect to the initial state. */
#include "bench_ad.h"

#define DT 1.0
#define RESTITUTION 0.9
#define MAX_BOUNCES 16
/* The time to a wall that the particle does not move towards: large but
 * finite. With INFINITY, Enzyme's reverse mode of batchify's
 * --for-autodiff clone gave NaN derivatives with respect to vx and vy in
 * lanes that had left the loop: their held trip takes the branches' other
 * side (the INFINITY), x + vx * hit is inf there, and the zero adjoint
 * times inf is NaN (docs/benchmarks.md). */
#define NEVER 1e300

double particle(double x, double y, double vx, double vy) {
    double t = DT;
    int bounces = 0;
    while (t > 0.0 && bounces < MAX_BOUNCES) {
        /* Time until the next wall in x and in y. */
        double tx = vx > 0.0 ? (1.0 - x) / vx : vx < 0.0 ? -x / vx : NEVER;
        double ty = vy > 0.0 ? (1.0 - y) / vy : vy < 0.0 ? -y / vy : NEVER;
        double hit = fmin(tx, ty);
        if (hit >= t) {
            x += vx * t;
            y += vy * t;
            break;
        }
        x += vx * hit;
        y += vy * hit;
        t -= hit;
        if (tx <= ty)
            vx = -RESTITUTION * vx;
        else
            vy = -RESTITUTION * vy;
        bounces++;
    }
    double energy = 0.5 * (vx * vx + vy * vy);
    return x + 0.5 * y + 0.1 * energy;
}

AD_X4(particle)
