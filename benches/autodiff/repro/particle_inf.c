/* benches/autodiff/particle.c as first written, with INFINITY as the time
 * to a wall that the particle does not move towards (see README.md). */
#include <math.h>

double particle(double x, double y, double vx, double vy) {
    double t = 1.0;
    int bounces = 0;
    while (t > 0.0 && bounces < 16) {
        double tx = vx > 0.0 ? (1.0 - x) / vx : vx < 0.0 ? -x / vx : INFINITY;
        double ty = vy > 0.0 ? (1.0 - y) / vy : vy < 0.0 ? -y / vy : INFINITY;
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
            vx = -0.9 * vx;
        else
            vy = -0.9 * vy;
        bounces++;
    }
    double energy = 0.5 * (vx * vx + vy * vy);
    return x + 0.5 * y + 0.1 * energy;
}
