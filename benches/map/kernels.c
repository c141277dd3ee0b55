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
