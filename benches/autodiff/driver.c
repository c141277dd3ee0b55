/* Driver of `cargo xtask bench-autodiff` (xtask/src/bench_autodiff.rs):
 * derivatives of up to three scalar functions of doubles, computed by
 * scalar Enzyme and, per configuration C (lanes and ISA: avx2x4, avx2x8,
 * avx512x8), by Enzyme and batchify in both orders; checked against
 * scalar Enzyme, then timed. The functions (-DFUNCS, K inputs each):
 *
 *   mandel    smooth_mandel(cx, cy), tests/autodiff/01_smooth_mandel.c, K = 2:
 *             a W x H grid over [-2, 0.5) x [-1.2, 1.2)
 *   dense     dense(x0, x1, x2, x3), benches/autodiff/dense.c, K = 4:
 *             W * H examples, each input the sum of three uniform numbers
 *             in [-1, 1) (mean 0, variance 1), splitmix64 seed 1
 *   particle  particle(x, y, vx, vy), benches/autodiff/particle.c, K = 4:
 *             W * H particles, position uniform in (0, 1)^2, velocity
 *             uniform in [-3, 3)^2, splitmix64 seed 2
 *
 * Versions of a function F:
 *
 *   primal  scalar            F(x), once per point
 *   forward scalar-enzyme     ad_forward_F (Enzyme's fwddiffeF), K times per
 *                             point: seeds e_0, ..., e_{K-1}
 *   reverse scalar-enzyme     ad_reverse_F (Enzyme's diffeF), once per point
 * and per configuration C of L lanes (the uniform entry points
 * C_F_v_* of benches/autodiff/enzyme_lanes.c):
 *   primal  C                 batchify's L-lane clone, once per L points
 *   forward enzyme-of-C       Enzyme's forward mode of the L-lane clone, K
 *                             passes per L points
 *   forward C-of-enzyme       batchify's L-lane clone of fwddiffeF, K calls
 *                             per L points
 *   reverse enzyme-of-C       Enzyme's reverse mode of the L-lane clone, once
 *                             per L points
 *   reverse C-of-enzyme       batchify's L-lane clone of diffeF, once per L
 *                             points
 *
 * The functions and the (configuration, function) pairs built are given at
 * compile time as X-macro lists, -DFUNCS='F(mandel, smooth_mandel, 2) ...'
 * and -DCLONES='V(avx2x4, 4, mandel) ...': the xtask builds only those
 * asked for that the CPU can run. Every function above lives in another
 * object (no LTO), so each call is a real call. Usage: driver W H REPS
 * (W * H points per function). Prints
 *   CHECK <function> <mode> <version> <values> <exact> <max_rel> <bad> <bound>
 * per version against the scalar one of its mode (primal values bit for
 * bit; derivatives bit for bit or within REL_FWD / REL_REV relative
 * difference, NaN matching NaN), exits 1 if any value is bad, else prints
 *   TIME <function> <mode> <version> <rep> <shift> <ns per point>
 * for REPS rounds, each round running every version of every function
 * once over all its points (thread CPU time), in an order that rotates
 * from round to round, with the stack shifted by 0, 16, 32, 48, 0, ...
 * bytes (see run_shifted). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if !defined(FUNCS) || !defined(CLONES)
#error "compile with -DFUNCS='F(tag, function, inputs) ...' -DCLONES='V(configuration, lanes, tag) ...'"
#endif

/* Relative bounds of the derivatives (the primal of the clone must match
 * bit for bit). Enzyme puts `fast` flags on the derivative arithmetic, so
 * clang -O2 may reassociate the scalar derivative code and the vector one
 * differently: forward mode then differs by a few ulp, and reverse mode,
 * whose adjoints go back through up to 200 iterations of the Mandelbrot
 * map, by more (scalar Enzyme's own forward and reverse derivatives
 * differ by up to 2e-10 on those points). A wrong derivative differs in
 * the first digits. */
/* Forward mode's bound was 1e-12 of the derivative until the
 * --for-autodiff clones kept `tanh` as one vector intrinsic through
 * Enzyme: Enzyme's derivative of it (a vector `cosh`, squared, under
 * `fast` flags) is rounded and reassociated otherwise than its per-lane
 * scalar calls, and dense's partials are sums of terms near 1 that cancel
 * to 1e-5 or less (137 of 4,000,000 forward values were 1e-12 to 2.2e-10
 * of the partial from scalar Enzyme, 1.3e-16 at most in absolute terms).
 * So derivatives are compared relative to the larger of their magnitude
 * and DERIV_SCALE: below it, the bound is DERIV_SCALE * REL_FWD absolute
 * (so is the primal's with --veclib). */
#ifndef REL_FWD
#define REL_FWD 1e-10
#endif
#ifndef DERIV_SCALE
#define DERIV_SCALE 1e-5
#endif
#ifndef REL_REV
#define REL_REV 1e-9
#endif
/* The primal's bound: 0 (bit for bit) unless the clones call a vector math
 * library (bench-autodiff --veclib). */
#ifndef REL_PRIMAL
#define REL_PRIMAL 0.0
#endif

#define MAX_K 4

typedef struct {
    double d0, d1;
} ad_pair;
typedef struct {
    double d0, d1, d2, d3;
} ad_quad;

typedef struct version version;
/* The uniform entry points of the vector versions: L points from i on,
 * inputs x[0..K), results r[0..K) (the primal: r[0]). */
typedef void vec_fn(const double *const *x, double *const *r, long i);

/* One function, its inputs and its scalar versions. */
typedef struct {
    const char *tag;
    int k;                /* inputs */
    double *in[MAX_K];    /* the points, one array per input */
    int primal, fwd, rev; /* its scalar versions (indices in vs) */
} func;

/* What a version runs. */
struct version {
    const func *f;
    const char *mode;
    char name[48];
    void (*loop)(const version *);
    vec_fn *vec; /* the vector versions */
    int lanes;   /* points per call of vec */
    int ref;     /* the scalar version of the mode */
    int nres;    /* result arrays: 1 for the primal, else K */
    double *res[MAX_K];
};

static long n;
static func fs[3];
static int nf;
static version vs[3 * (3 + 5 * 3)];
static int nv;

/* The scalar versions of a function of 2 and of 4 inputs. */
#define SCALAR_2(tag, fn)                                                                                           \
    double fn(double, double);                                                                                      \
    double ad_forward_##fn(double, double, double, double);                                                         \
    ad_pair ad_reverse_##fn(double, double);                                                                        \
    static void tag##_sc_primal(const version *v) {                                                                 \
        const double *x0 = v->f->in[0], *x1 = v->f->in[1];                                                          \
        double *r = v->res[0];                                                                                      \
        for (long i = 0; i < n; i++)                                                                                \
            r[i] = fn(x0[i], x1[i]);                                                                                \
    }                                                                                                               \
    static void tag##_sc_fwd(const version *v) {                                                                    \
        const double *x0 = v->f->in[0], *x1 = v->f->in[1];                                                          \
        double *r0 = v->res[0], *r1 = v->res[1];                                                                    \
        for (long i = 0; i < n; i++) {                                                                              \
            r0[i] = ad_forward_##fn(x0[i], 1.0, x1[i], 0.0);                                                        \
            r1[i] = ad_forward_##fn(x0[i], 0.0, x1[i], 1.0);                                                        \
        }                                                                                                           \
    }                                                                                                               \
    static void tag##_sc_rev(const version *v) {                                                                    \
        const double *x0 = v->f->in[0], *x1 = v->f->in[1];                                                          \
        double *r0 = v->res[0], *r1 = v->res[1];                                                                    \
        for (long i = 0; i < n; i++) {                                                                              \
            ad_pair g = ad_reverse_##fn(x0[i], x1[i]);                                                              \
            r0[i] = g.d0;                                                                                           \
            r1[i] = g.d1;                                                                                           \
        }                                                                                                           \
    }
#define SCALAR_4(tag, fn)                                                                                           \
    double fn(double, double, double, double);                                                                      \
    double ad_forward_##fn(double, double, double, double, double, double, double, double);                         \
    ad_quad ad_reverse_##fn(double, double, double, double);                                                        \
    static void tag##_sc_primal(const version *v) {                                                                 \
        const double *x0 = v->f->in[0], *x1 = v->f->in[1], *x2 = v->f->in[2], *x3 = v->f->in[3];                    \
        double *r = v->res[0];                                                                                      \
        for (long i = 0; i < n; i++)                                                                                \
            r[i] = fn(x0[i], x1[i], x2[i], x3[i]);                                                                  \
    }                                                                                                               \
    static void tag##_sc_fwd(const version *v) {                                                                    \
        const double *x0 = v->f->in[0], *x1 = v->f->in[1], *x2 = v->f->in[2], *x3 = v->f->in[3];                    \
        double *r0 = v->res[0], *r1 = v->res[1], *r2 = v->res[2], *r3 = v->res[3];                                  \
        for (long i = 0; i < n; i++) {                                                                              \
            r0[i] = ad_forward_##fn(x0[i], 1.0, x1[i], 0.0, x2[i], 0.0, x3[i], 0.0);                                \
            r1[i] = ad_forward_##fn(x0[i], 0.0, x1[i], 1.0, x2[i], 0.0, x3[i], 0.0);                                \
            r2[i] = ad_forward_##fn(x0[i], 0.0, x1[i], 0.0, x2[i], 1.0, x3[i], 0.0);                                \
            r3[i] = ad_forward_##fn(x0[i], 0.0, x1[i], 0.0, x2[i], 0.0, x3[i], 1.0);                                \
        }                                                                                                           \
    }                                                                                                               \
    static void tag##_sc_rev(const version *v) {                                                                    \
        const double *x0 = v->f->in[0], *x1 = v->f->in[1], *x2 = v->f->in[2], *x3 = v->f->in[3];                    \
        double *r0 = v->res[0], *r1 = v->res[1], *r2 = v->res[2], *r3 = v->res[3];                                  \
        for (long i = 0; i < n; i++) {                                                                              \
            ad_quad g = ad_reverse_##fn(x0[i], x1[i], x2[i], x3[i]);                                                \
            r0[i] = g.d0;                                                                                           \
            r1[i] = g.d1;                                                                                           \
            r2[i] = g.d2;                                                                                           \
            r3[i] = g.d3;                                                                                           \
        }                                                                                                           \
    }
#define F(tag, fn, k) SCALAR_##k(tag, fn)
FUNCS
#undef F

#define V(c, l, tag) vec_fn c##_##tag##_v_primal, c##_##tag##_v_enzyme_fwd, c##_##tag##_v_bf_fwd,                    \
    c##_##tag##_v_enzyme_rev, c##_##tag##_v_bf_rev;
CLONES
#undef V

static void vec_loop(const version *v) {
    const double *const *x = (const double *const *)v->f->in;
    double *const *r = v->res;
    for (long i = 0; i < n; i += v->lanes)
        v->vec(x, r, i);
}

/* splitmix64: the inputs' deterministic generator. */
static uint64_t rng_state;
static double uniform(double lo, double hi) {
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    z ^= z >> 31;
    return lo + (hi - lo) * (double)(z >> 11) * 0x1p-53;
}

static long grid_w, grid_h;

/* Points over [-2, 0.5) x [-1.2, 1.2), the region of the test's AD_POINT:
 * escapes after 1 to 200 iterations, and points of the set (200
 * iterations; their measure is NaN where |z| < 1). Lanes are neighbours in
 * a row. */
__attribute__((unused)) static void points_mandel(func *f) {
    for (long j = 0; j < grid_h; j++)
        for (long i = 0; i < grid_w; i++) {
            f->in[0][j * grid_w + i] = -2.0 + 2.5 * (double)i / (double)grid_w;
            f->in[1][j * grid_w + i] = -1.2 + 2.4 * (double)j / (double)grid_h;
        }
}

/* Examples of 4 standardized features, each the sum of three uniform
 * numbers in [-1, 1): mean 0, variance 1, in [-3, 3). */
__attribute__((unused)) static void points_dense(func *f) {
    rng_state = 1;
    for (long i = 0; i < n; i++)
        for (int k = 0; k < 4; k++)
            f->in[k][i] = uniform(-1.0, 1.0) + uniform(-1.0, 1.0) + uniform(-1.0, 1.0);
}

/* Particles in the unit box, velocity components in [-3, 3): 0 to about
 * 8 bounces in the time step, differing from lane to lane. */
__attribute__((unused)) static void points_particle(func *f) {
    rng_state = 2;
    for (long i = 0; i < n; i++) {
        f->in[0][i] = uniform(0.0, 1.0);
        f->in[1][i] = uniform(0.0, 1.0);
        f->in[2][i] = uniform(-3.0, 3.0);
        f->in[3][i] = uniform(-3.0, 3.0);
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
    v->loop(v);
}

static double now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

/* Compares got with want over all points; counts exact values, the largest
 * relative difference, and the bad ones (first few printed). */
static long check(const char *what, const func *f, const double *got, const double *want, double bound, double scale,
                  long *exact, double *max_rel) {
    long bad = 0;
    for (long i = 0; i < n; i++) {
        if (memcmp(&got[i], &want[i], sizeof(double)) == 0 || (isnan(got[i]) && isnan(want[i]))) {
            ++*exact;
            continue;
        }
        double rel = fabs(got[i] - want[i]) / fmax(fabs(want[i]), scale);
        if (isfinite(got[i]) && isfinite(want[i]) && rel <= bound) {
            if (rel > *max_rel)
                *max_rel = rel;
            continue;
        }
        if (bad++ < 5) {
            printf("MISMATCH %s point %ld (", what, i);
            for (int k = 0; k < f->k; k++)
                printf("%s%.17g", k ? ", " : "", f->in[k][i]);
            printf("): %.17g, scalar Enzyme %.17g\n", got[i], want[i]);
        }
    }
    return bad;
}

static int add(func *f, const char *mode, const char *fmt, const char *cfg, void (*loop)(const version *), vec_fn *vec,
               int lanes, int ref) {
    if (nv == (int)(sizeof vs / sizeof vs[0])) {
        fprintf(stderr, "too many versions\n");
        exit(2);
    }
    version *v = &vs[nv];
    v->f = f;
    v->mode = mode;
    snprintf(v->name, sizeof v->name, fmt, cfg);
    v->loop = loop;
    v->vec = vec;
    v->lanes = lanes;
    v->ref = ref < 0 ? nv : ref;
    v->nres = strcmp(mode, "primal") == 0 ? 1 : f->k;
    return nv++;
}

static func *func_of(const char *tag) {
    for (int i = 0; i < nf; i++)
        if (strcmp(fs[i].tag, tag) == 0)
            return &fs[i];
    fprintf(stderr, "no function %s in FUNCS\n", tag);
    exit(2);
}

int main(int argc, char **argv) {
    grid_w = argc > 1 ? atol(argv[1]) : 1000;
    grid_h = argc > 2 ? atol(argv[2]) : 1000;
    int reps = argc > 3 ? atoi(argv[3]) : 7;
    n = grid_w * grid_h;
    if (grid_w <= 0 || grid_h <= 0 || n % 8 || reps <= 0) {
        fprintf(stderr, "usage: %s W H REPS (W*H a multiple of 8)\n", argv[0]);
        return 2;
    }
#define F(t, fn, kk)                                                                                                \
    {                                                                                                               \
        func *f = &fs[nf++];                                                                                        \
        f->tag = #t;                                                                                                \
        f->k = kk;                                                                                                  \
        for (int k = 0; k < kk; k++)                                                                                \
            f->in[k] = alloc();                                                                                     \
        points_##t(f);                                                                                              \
        f->primal = add(f, "primal", "scalar%s", "", t##_sc_primal, NULL, 1, -1);                                  \
        f->fwd = add(f, "forward", "scalar-enzyme%s", "", t##_sc_fwd, NULL, 1, -1);                                \
        f->rev = add(f, "reverse", "scalar-enzyme%s", "", t##_sc_rev, NULL, 1, -1);                                \
    }
    FUNCS
#undef F
#define V(c, l, t)                                                                                                  \
    {                                                                                                               \
        func *f = func_of(#t);                                                                                      \
        add(f, "primal", "%s", #c, vec_loop, c##_##t##_v_primal, l, f->primal);                                     \
        add(f, "forward", "enzyme-of-%s", #c, vec_loop, c##_##t##_v_enzyme_fwd, l, f->fwd);                         \
        add(f, "forward", "%s-of-enzyme", #c, vec_loop, c##_##t##_v_bf_fwd, l, f->fwd);                             \
        add(f, "reverse", "enzyme-of-%s", #c, vec_loop, c##_##t##_v_enzyme_rev, l, f->rev);                         \
        add(f, "reverse", "%s-of-enzyme", #c, vec_loop, c##_##t##_v_bf_rev, l, f->rev);                             \
    }
    CLONES
#undef V
    /* The scalar versions keep their results; each other version is run
     * into its own arrays, checked, and from then on writes into its
     * function's scratch arrays (one set per function, so that memory
     * stays at a few hundred MB for 1M points). */
    double *scratch[3][MAX_K];
    for (int i = 0; i < nf; i++)
        for (int k = 0; k < fs[i].k; k++)
            scratch[i][k] = alloc();
    for (int i = 0; i < nv; i++)
        if (vs[i].ref == i) {
            for (int k = 0; k < vs[i].nres; k++)
                vs[i].res[k] = alloc();
            vs[i].loop(&vs[i]);
        }
    long all_bad = 0;
    for (int i = 0; i < nv; i++) {
        version *v = &vs[i];
        if (v->ref == i)
            continue;
        const version *r = &vs[v->ref];
        for (int k = 0; k < v->nres; k++)
            v->res[k] = alloc();
        v->loop(v);
        long exact = 0, bad = 0;
        double max_rel = 0;
        double bound = v->nres == 1 && strcmp(v->mode, "primal") == 0 ? REL_PRIMAL
                       : strcmp(v->mode, "forward") == 0             ? REL_FWD
                                                                     : REL_REV;
        for (int k = 0; k < v->nres; k++) {
            char what[128];
            if (v->nres == 1)
                snprintf(what, sizeof what, "%s %s %s", v->f->tag, v->mode, v->name);
            else
                snprintf(what, sizeof what, "%s %s %s d/dx%d", v->f->tag, v->mode, v->name, k);
            /* The primal is bit for bit unless a vector math library
             * rounds it otherwise (--veclib); then dense's sums cancel too. */
            double scale = strcmp(v->mode, "primal") == 0 && REL_PRIMAL == 0.0 ? 1e-300 : DERIV_SCALE;
            bad += check(what, v->f, v->res[k], r->res[k], bound, scale, &exact, &max_rel);
        }
        printf("CHECK %s %s %s %ld %ld %.3g %ld %g\n", v->f->tag, v->mode, v->name, (long)v->nres * n, exact, max_rel,
               bad, bound);
        all_bad += bad;
        int fi = (int)(v->f - fs);
        for (int k = 0; k < v->nres; k++) {
            free(v->res[k]);
            v->res[k] = scratch[fi][k];
        }
    }
    /* Scalar Enzyme's forward and reverse derivatives, against each other
     * (information only: different code, different rounding). */
    for (int i = 0; i < nf; i++) {
        const func *f = &fs[i];
        long exact = 0, nan = 0;
        double max_rel = 0;
        for (long p = 0; p < n; p++)
            for (int d = 0; d < f->k; d++) {
                double a = vs[f->fwd].res[d][p], b = vs[f->rev].res[d][p];
                if (isnan(a) || isnan(b)) {
                    nan++;
                    continue;
                }
                if (a == b) {
                    exact++;
                    continue;
                }
                double rel = fabs(a - b) / fmax(fabs(b), 1e-300);
                if (rel > max_rel)
                    max_rel = rel;
            }
        printf("INFO %s scalar-enzyme forward vs reverse: %ld values, %ld NaN, %ld equal, max_rel %.3g\n", f->tag,
               (long)f->k * n, nan, exact, max_rel);
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
            printf("TIME %s %s %s %d %d %.3f\n", v->f->tag, v->mode, v->name, r, shift, (t1 - t0) / (double)n);
            fflush(stdout);
        }
    return 0;
}
