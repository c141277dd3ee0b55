/* Five divergent kernels for `cargo xtask bench-map` (docs/benchmarks.md,
   "Maps: lane refill"). Each is plain scalar C; batchify builds its clones
   and maps. Their loops run a number of trips that depends on the input. */
#include <math.h>

/* Mandelbrot escape count, at most 256 iterations. */
int mandel(float cx, float cy) {
    float x = 0.0f, y = 0.0f;
    int it = 0;
    while (it < 256 && x * x + y * y <= 4.0f) {
        float xt = x * x - y * y + cx;
        y = 2.0f * x * y + cy;
        x = xt;
        it++;
    }
    return it;
}

/* Collatz steps to 1, capped at 1000. */
int collatz(int x) {
    unsigned v = (unsigned)x;
    int n = 0;
    while (v > 1 && n < 1000) {
        v = (v & 1) ? 3 * v + 1 : v >> 1;
        n++;
    }
    return n;
}

/* Newton's square root with a relative tolerance exit (at most 64 steps). */
double newton_sqrt(double a) {
    if (!(a > 0.0))
        return 0.0;
    double x = a > 1.0 ? a : 1.0;
    for (int i = 0; i < 64; i++) {
        double nx = 0.5 * (x + a / x);
        if (fabs(nx - x) <= 1e-15 * nx)
            return nx;
        x = nx;
    }
    return x;
}

/* Lower bound of key in a sorted table shared by all lanes. */
int bsearch_tab(float key, const float *tab, int n) {
    int lo = 0, hi = n;
    while (lo < hi) {
        int mid = (lo + hi) >> 1;
        if (tab[mid] < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Sphere tracing: distance along the ray through pixel (px, py) to a scene
   of three spheres and a floor, at most 128 steps, 20 if it misses. */
static float scene(float x, float y, float z) {
    float d = y + 1.0f;
    float a = sqrtf((x - 0.0f) * (x - 0.0f) + y * y + (z - 1.0f) * (z - 1.0f)) - 0.8f;
    float b = sqrtf((x - 1.2f) * (x - 1.2f) + (y + 0.3f) * (y + 0.3f) + (z - 0.5f) * (z - 0.5f)) - 0.5f;
    float c = sqrtf((x + 1.1f) * (x + 1.1f) + (y - 0.2f) * (y - 0.2f) + (z - 1.6f) * (z - 1.6f)) - 0.6f;
    d = a < d ? a : d;
    d = b < d ? b : d;
    return c < d ? c : d;
}

float raymarch(float px, float py) {
    float inv = 1.0f / sqrtf(px * px + py * py + 2.25f);
    float dx = px * inv, dy = py * inv, dz = 1.5f * inv;
    float t = 0.0f;
    for (int i = 0; i < 128; i++) {
        float d = scene(dx * t, dy * t, dz * t - 3.0f);
        if (d < 1e-3f * (t + 1.0f))
            return t;
        t += d;
        if (t > 20.0f)
            return 20.0f;
    }
    return t;
}

/* Keys of the bucketed maps (`batchify --map --bucket KEY`, docs/cli.md
   "Bucketed maps"): for each kernel a cheap estimate of its trip count,
   with the kernel's parameters and an integer result (the map buckets by
   min(key, 255)). Like the kernels they write no memory (clang gives them
   memory(none)). */

/* Mandelbrot: the escape count of the first 8 iterations, branch-free
   (the loop is unrolled and has no early exit), or 255 for a point that
   has not escaped by then. (16 iterations sort better but cost more than
   they save: docs/benchmarks.md, "Maps".) */
int mandel_key(float cx, float cy) {
    float x = 0.0f, y = 0.0f;
    int it = 0, alive = 1;
    for (int i = 0; i < 8; i++) {
        float xt = x * x - y * y + cx;
        y = 2.0f * x * y + cy;
        x = xt;
        alive &= x * x + y * y <= 4.0f;
        it += alive;
    }
    return alive ? 255 : it;
}

/* Collatz: the bit length of the input (a weak predictor: the number of
   steps grows with it on average but varies widely within a class). */
int collatz_key(int x) {
    unsigned v = (unsigned)x;
    return v ? 32 - __builtin_clz(v) : 0;
}

/* Newton's square root: the binary exponent of a (the number of steps
   that halve x before the quadratic convergence grows with it), biased to
   0 .. 254; 0 for a <= 0 and NaN. */
int newton_sqrt_key(double a) {
    if (!(a > 0.0))
        return 0;
    union { double d; unsigned long long u; } b = {a};
    int e = (int)(b.u >> 52) - 1023 + 128;
    return e < 1 ? 1 : e > 254 ? 254 : e;
}

/* Binary search: the trip count is the same (log2 of the table's size)
   for every key, so no key predicts a cost; this one is a log-scale class
   of the key (its float exponent and top 3 mantissa bits), which puts
   keys that take similar paths through the table into the same groups. */
int bsearch_tab_key(float key, const float *tab, int n) {
    union { float f; unsigned u; } b = {key};
    if (b.u >> 31)
        return 0;
    int c = (int)(b.u >> 20) - ((127 - 12) << 3);
    return c < 0 ? 0 : c > 255 ? 255 : c;
}

/* Sphere tracing: no march at all; the ray's closest approach to the
   nearest sphere (its distance to the centre minus the radius, squared
   distances only, no square root), which predicts grazing rays (many
   steps), and whether the ray goes up (misses the floor: few steps) or
   down (hits the floor: steps growing with the distance to the hit). */
int raymarch_key(float px, float py) {
    float inv = 1.0f / sqrtf(px * px + py * py + 2.25f);
    float dx = px * inv, dy = py * inv, dz = 1.5f * inv;
    static const float c[3][4] = {{0.0f, 0.0f, 1.0f, 0.8f}, {1.2f, -0.3f, 0.5f, 0.5f}, {-1.1f, 0.2f, 1.6f, 0.6f}};
    float best = 1e30f;
    for (int s = 0; s < 3; s++) {
        float ox = c[s][0], oy = c[s][1], oz = c[s][2] + 3.0f;
        float b = ox * dx + oy * dy + oz * dz;
        float m = ox * ox + oy * oy + oz * oz - b * b - c[s][3] * c[s][3];
        best = m < best ? m : best;
    }
    if (best < 0.0f)
        return best < -0.1f ? 0 : 1 + (int)(-best * 100.0f); /* hits a sphere; grazing near 10 */
    int miss = 16 + (int)(best * 64.0f); /* misses the spheres by a margin */
    miss = miss > 127 ? 127 : miss;
    if (dy >= 0.0f)
        return miss;
    float t = -1.0f / dy; /* where the ray meets the floor */
    int f = 128 + (int)(t * 4.0f);
    return f > 255 ? 255 : f;
}
