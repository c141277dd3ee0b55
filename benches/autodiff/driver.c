/* Driver of `cargo xtask bench-autodiff` (xtask/src/bench_autodiff.rs):
 * derivatives of the smooth Mandelbrot escape measure
 * (tests/autodiff/01_smooth_mandel.c) on a W x H grid of points, computed
 * by scalar Enzyme and, per configuration C (lanes and ISA: avx2x4,
 * avx2x8, avx512x8), by Enzyme and batchify in both orders; checked
 * against scalar Enzyme, then timed.
 *
 *   primal  scalar            smooth_mandel(x, y), once per point
 *   forward scalar-enzyme     ad_forward_smooth_mandel (Enzyme's fwddiffesmooth_mandel),
 *                             twice per point: seeds (1, 0) and (0, 1)
 *   reverse scalar-enzyme     ad_reverse_smooth_mandel (Enzyme's diffesmooth_mandel),
 *                             once per point
 * and per configuration C of L lanes:
 *   primal  C                 C_primal: batchify's L-lane clone, once per L points
 *   forward enzyme-of-C       C_enzyme_fwd: Enzyme's forward mode of the L-lane
 *                             clone, two passes per L points
 *   forward C-of-enzyme       C_bf_fwd: batchify's L-lane clone of
 *                             fwddiffesmooth_mandel, two calls per L points
 *   reverse enzyme-of-C       C_enzyme_rev: Enzyme's reverse mode of the L-lane
 *                             clone, once per L points
 *   reverse C-of-enzyme       C_bf_rev: batchify's L-lane clone of
 *                             diffesmooth_mandel, once per L points
 *
 * The configurations are given at compile time as an X-macro list,
 * -DCONFIGS='X(avx2x4, 4) X(avx2x8, 8)': the xtask builds only those the
 * CPU can run. Every function above lives in another object (no LTO), so
 * each call is a real call. Usage: driver W H REPS. Prints
 *   CHECK <mode> <version> <values> <exact> <max_rel> <bad> <bound>
 * per version against the scalar one of its mode (primal values bit for
 * bit; derivatives bit for bit or within REL_FWD / REL_REV relative
 * difference, NaN matching NaN), exits 1 if any value is bad, else prints
 *   TIME <mode> <version> <rep> <shift> <ns per point>
 * for REPS rounds, each round running every version once over all points
 * (thread CPU time), in an order that rotates from round to round, with
 * the stack shifted by 0, 16, 32, 48, 0, ... bytes (see run_shifted). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifndef CONFIGS
#error "compile with -DCONFIGS='X(name, lanes) ...'"
#endif

/* Relative bounds of the derivatives (the primal of the clone must match
 * bit for bit). Enzyme puts `fast` flags on the derivative arithmetic, so
 * clang -O2 may reassociate the scalar derivative code and the vector one
 * differently (and, with AVX-512, which implies FMA, fuse multiplies and
 * adds in the vector code only): forward mode then differs by a few ulp,
 * and reverse mode, whose adjoints go back through up to 200 iterations of
 * the map, by more (scalar Enzyme's own forward and reverse derivatives
 * differ by up to 2e-10 on these points). A wrong derivative differs in
 * the first digits. */
#ifndef REL_FWD
#define REL_FWD 1e-12
#endif
#ifndef REL_REV
#define REL_REV 1e-9
#endif

typedef struct {
    double d0, d1;
} ad_pair;
double smooth_mandel(double x, double y);
double ad_forward_smooth_mandel(double x, double dx, double y, double dy);
ad_pair ad_reverse_smooth_mandel(double x, double y);

typedef void primal_fn(const double *x, const double *y, double *out);
typedef void deriv_fn(const double *x, const double *y, double *dx, double *dy);
#define X(c, l) primal_fn c##_primal; deriv_fn c##_enzyme_fwd, c##_bf_fwd, c##_enzyme_rev, c##_bf_rev;
CONFIGS
#undef X

/* What a version calls. */
enum kind { P_SC, F_SC, R_SC, P_VEC, D_VEC };
typedef struct {
    const char *mode;
    char name[48];
    enum kind kind;
    int lanes;         /* points per call of the vector versions */
    primal_fn *primal; /* P_VEC */
    deriv_fn *deriv;   /* D_VEC */
    int ref;           /* the scalar version of the mode */
    double *a, *b;     /* results (b: d/dy; none for the primal) */
} version;

static version vs[3 + 5 * 8];
static int nv;

static long n;
static double *px, *py;

__attribute__((noinline)) static void run(const version *v) {
    double *a = v->a, *b = v->b;
    long l = v->lanes;
    switch (v->kind) {
    case P_SC:
        for (long i = 0; i < n; i++)
            a[i] = smooth_mandel(px[i], py[i]);
        break;
    case F_SC:
        for (long i = 0; i < n; i++) {
            a[i] = ad_forward_smooth_mandel(px[i], 1.0, py[i], 0.0);
            b[i] = ad_forward_smooth_mandel(px[i], 0.0, py[i], 1.0);
        }
        break;
    case R_SC:
        for (long i = 0; i < n; i++) {
            ad_pair g = ad_reverse_smooth_mandel(px[i], py[i]);
            a[i] = g.d0;
            b[i] = g.d1;
        }
        break;
    case P_VEC:
        for (long i = 0; i < n; i += l)
            v->primal(px + i, py + i, a + i);
        break;
    case D_VEC:
        for (long i = 0; i < n; i += l)
            v->deriv(px + i, py + i, a + i, b + i);
        break;
    }
}

static double *alloc(void) {
    double *p = aligned_alloc(64, (size_t)n * sizeof(double));
    if (!p) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    memset(p, 0, (size_t)n * sizeof(double));
    return p;
}

/* run(v) with the stack pointer `shift` bytes lower (a multiple of 16).
 * One run of this benchmark found the forward x8-of-enzyme version 1.9x
 * slower in every round than the run before, with the same code, and
 * padding the environment (which moves the stack) reproduced two such
 * levels for a while; the 8-lane AVX2 clones spill ymm registers with
 * unaligned moves into frames aligned to 16 bytes only, so where a spill
 * slot falls in a cache line depends on the stack address. The rounds
 * therefore cycle through the four shifts modulo 64 rather than time
 * whatever alignment the process started with (docs/benchmarks.md: the
 * cause was not confirmed). */
__attribute__((noinline)) static void run_shifted(const version *v, int shift) {
    char *pad = __builtin_alloca((size_t)shift + 16);
    __asm__ volatile("" : : "r"(pad) : "memory");
    run(v);
}

static double now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

/* Compares got with want over all points; counts exact values, the largest
 * relative difference, and the bad ones (first few printed). */
static long check(const char *what, const double *got, const double *want, double bound, long *exact, double *max_rel) {
    long bad = 0;
    for (long i = 0; i < n; i++) {
        if (memcmp(&got[i], &want[i], sizeof(double)) == 0 || (isnan(got[i]) && isnan(want[i]))) {
            ++*exact;
            continue;
        }
        double rel = fabs(got[i] - want[i]) / fmax(fabs(want[i]), 1e-300);
        if (isfinite(got[i]) && isfinite(want[i]) && rel <= bound) {
            if (rel > *max_rel)
                *max_rel = rel;
            continue;
        }
        if (bad++ < 5)
            printf("MISMATCH %s point %ld (%.17g, %.17g): %.17g, scalar Enzyme %.17g\n", what, i, px[i], py[i],
                   got[i], want[i]);
    }
    return bad;
}

static void add(const char *mode, const char *fmt, const char *cfg, enum kind kind, int lanes, primal_fn *p,
                deriv_fn *d, int ref) {
    if (nv == (int)(sizeof vs / sizeof vs[0])) {
        fprintf(stderr, "too many configurations\n");
        exit(2);
    }
    version *v = &vs[nv++];
    v->mode = mode;
    snprintf(v->name, sizeof v->name, fmt, cfg);
    v->kind = kind;
    v->lanes = lanes;
    v->primal = p;
    v->deriv = d;
    v->ref = ref;
    v->a = alloc();
    v->b = kind == P_SC || kind == P_VEC ? NULL : alloc();
}

int main(int argc, char **argv) {
    long w = argc > 1 ? atol(argv[1]) : 1000, h = argc > 2 ? atol(argv[2]) : 1000;
    int reps = argc > 3 ? atoi(argv[3]) : 7;
    n = w * h;
    if (w <= 0 || h <= 0 || n % 8 || reps <= 0) {
        fprintf(stderr, "usage: %s W H REPS (W*H a multiple of 8)\n", argv[0]);
        return 2;
    }
    /* Points over [-2, 0.5) x [-1.2, 1.2), the region of the test's
     * AD_POINT: escapes after 1 to 200 iterations, and points of the set
     * (200 iterations; their measure is NaN where |z| < 1). */
    px = alloc();
    py = alloc();
    for (long j = 0; j < h; j++)
        for (long i = 0; i < w; i++) {
            px[j * w + i] = -2.0 + 2.5 * (double)i / (double)w;
            py[j * w + i] = -1.2 + 2.4 * (double)j / (double)h;
        }
    add("primal", "scalar", "", P_SC, 1, NULL, NULL, 0);
    add("forward", "scalar-enzyme", "", F_SC, 1, NULL, NULL, 1);
    add("reverse", "scalar-enzyme", "", R_SC, 1, NULL, NULL, 2);
#define X(c, l)                                                                                                       \
    add("primal", "%s", #c, P_VEC, l, c##_primal, NULL, 0);                                                           \
    add("forward", "enzyme-of-%s", #c, D_VEC, l, NULL, c##_enzyme_fwd, 1);                                            \
    add("forward", "%s-of-enzyme", #c, D_VEC, l, NULL, c##_bf_fwd, 1);                                                \
    add("reverse", "enzyme-of-%s", #c, D_VEC, l, NULL, c##_enzyme_rev, 2);                                            \
    add("reverse", "%s-of-enzyme", #c, D_VEC, l, NULL, c##_bf_rev, 2);
    CONFIGS
#undef X
    for (int v = 0; v < nv; v++)
        run(&vs[v]);
    long all_bad = 0;
    for (int i = 3; i < nv; i++) {
        const version *v = &vs[i], *r = &vs[v->ref];
        long exact = 0, bad = 0, values = n;
        double max_rel = 0;
        char what[96];
        double bound = v->kind == P_VEC ? 0.0 : r->kind == F_SC ? REL_FWD : REL_REV;
        snprintf(what, sizeof what, v->b ? "%s %s d/dx" : "%s %s", v->mode, v->name);
        bad += check(what, v->a, r->a, bound, &exact, &max_rel);
        if (v->b) {
            snprintf(what, sizeof what, "%s %s d/dy", v->mode, v->name);
            bad += check(what, v->b, r->b, bound, &exact, &max_rel);
            values += n;
        }
        printf("CHECK %s %s %ld %ld %.3g %ld %g\n", v->mode, v->name, values, exact, max_rel, bad, bound);
        all_bad += bad;
    }
    /* Scalar Enzyme's forward and reverse derivatives, against each other
     * (information only: different code, different rounding). */
    {
        long exact = 0;
        double max_rel = 0;
        long nan = 0;
        for (long i = 0; i < n; i++) {
            const double *f[2] = {vs[1].a, vs[1].b}, *r[2] = {vs[2].a, vs[2].b};
            for (int d = 0; d < 2; d++) {
                if (isnan(f[d][i]) || isnan(r[d][i])) {
                    nan++;
                    continue;
                }
                if (f[d][i] == r[d][i]) {
                    exact++;
                    continue;
                }
                double rel = fabs(f[d][i] - r[d][i]) / fmax(fabs(r[d][i]), 1e-300);
                if (rel > max_rel)
                    max_rel = rel;
            }
        }
        printf("INFO scalar-enzyme forward vs reverse: %ld values, %ld NaN, %ld equal, max_rel %.3g\n", 2 * n, nan,
               exact, max_rel);
    }
    if (all_bad) {
        printf("FAIL %ld values differ from scalar Enzyme beyond the bound\n", all_bad);
        return 1;
    }
    fflush(stdout);
    for (int r = 0; r < reps; r++)
        for (int o = 0; o < nv; o++) {
            const version *v = &vs[(o + r) % nv];
            int shift = 16 * (r % 4);
            double t0 = now_ns();
            run_shifted(v, shift);
            double t1 = now_ns();
            printf("TIME %s %s %d %d %.3f\n", v->mode, v->name, r, shift, (t1 - t0) / (double)n);
            fflush(stdout);
        }
    return 0;
}
