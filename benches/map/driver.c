/* Driver of `cargo xtask bench-map`: times the scalar functions of
   kernels.c in a loop and the maps batchify built of them (one shared
   object per ISA, width and map form, bucketed by the keys of kernels.c
   included, given as LABEL=PATH arguments), on
   natural, shuffled and sorted input, in one process. Every map's output is
   compared with the scalar loop's, bit for bit, in every run; a difference
   ends the driver with status 1.

   usage: driver RUNS N LABEL=LIB.so ...
   prints: TIME <kernel> <order> <label|scalar> <seconds>  (thread CPU time) */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int mandel(float, float);
int collatz(int);
double newton_sqrt(double);
int bsearch_tab(float, const float *, int);
float raymarch(float, float);

enum { MANDEL, COLLATZ, NEWTON, BSEARCH, RAYMARCH, KERNELS };
static const char *names[KERNELS] = {"mandel", "collatz", "newton_sqrt", "bsearch_tab", "raymarch"};
static const char *orders[3] = {"natural", "shuffled", "sorted"};
#define TABLE 4096

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

/* Inputs and outputs of one kernel: up to two input arrays of 4 or 8 bytes
   per element, the output (4 or 8 bytes). */
typedef struct {
    long n;
    void *a, *b, *out, *ref;
    size_t in_size, out_size;
    float *tab;
} Data;

static void scalar(int k, Data *d, void *out) {
    long n = d->n;
    switch (k) {
    case MANDEL: for (long i = 0; i < n; i++) ((int *)out)[i] = mandel(((float *)d->a)[i], ((float *)d->b)[i]); break;
    case COLLATZ: for (long i = 0; i < n; i++) ((int *)out)[i] = collatz(((int *)d->a)[i]); break;
    case NEWTON: for (long i = 0; i < n; i++) ((double *)out)[i] = newton_sqrt(((double *)d->a)[i]); break;
    case BSEARCH: for (long i = 0; i < n; i++) ((int *)out)[i] = bsearch_tab(((float *)d->a)[i], d->tab, TABLE); break;
    case RAYMARCH: for (long i = 0; i < n; i++) ((float *)out)[i] = raymarch(((float *)d->a)[i], ((float *)d->b)[i]); break;
    }
}

typedef void (*map2)(long, const void *, const void *, void *);
typedef void (*map1)(long, const void *, void *);
typedef void (*mapbs)(long, const void *, const float *, int, void *);

static void mapped(int k, void *fn, Data *d) {
    switch (k) {
    case MANDEL: case RAYMARCH: ((map2)fn)(d->n, d->a, d->b, d->out); break;
    case COLLATZ: case NEWTON: ((map1)fn)(d->n, d->a, d->out); break;
    case BSEARCH: ((mapbs)fn)(d->n, d->a, d->tab, TABLE, d->out); break;
    }
}

static uint64_t rng = 0x9e3779b97f4a7c15u;
static uint64_t next(void) {
    rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
    return rng;
}

static void make(int k, Data *d, long side) {
    long n = d->n;
    d->in_size = k == NEWTON ? 8 : 4;
    d->out_size = k == NEWTON ? 8 : 4;
    d->a = malloc(n * d->in_size); d->b = malloc(n * d->in_size);
    d->out = malloc(n * d->out_size); d->ref = malloc(n * d->out_size);
    d->tab = malloc(TABLE * sizeof(float));
    for (int i = 0; i < TABLE; i++) d->tab[i] = (float)i * (float)i / TABLE;
    for (long i = 0; i < n; i++) {
        float fx = (float)(i % side) / side, fy = (float)(i / side) / side;
        switch (k) {
        case MANDEL: ((float *)d->a)[i] = -2.0f + 2.5f * fx; ((float *)d->b)[i] = -1.25f + 2.5f * fy; break;
        case COLLATZ: ((int *)d->a)[i] = (int)(i + 1); break;
        case NEWTON: ((double *)d->a)[i] = 1e-6 * (double)(i + 1) * (double)(i + 1); break;
        case BSEARCH: ((float *)d->a)[i] = (float)TABLE * fx; break;
        case RAYMARCH: ((float *)d->a)[i] = -1.0f + 2.0f * fx; ((float *)d->b)[i] = 1.0f - 2.0f * fy; break;
        }
    }
}

static void permute(Data *d, const long *perm) {
    long n = d->n;
    char *a = malloc(n * d->in_size), *b = malloc(n * d->in_size);
    for (long i = 0; i < n; i++) {
        memcpy(a + i * d->in_size, (char *)d->a + perm[i] * d->in_size, d->in_size);
        memcpy(b + i * d->in_size, (char *)d->b + perm[i] * d->in_size, d->in_size);
    }
    memcpy(d->a, a, n * d->in_size); memcpy(d->b, b, n * d->in_size);
    free(a); free(b);
}

static const void *sort_key; static size_t sort_size;
static int by_result(const void *x, const void *y) {
    long i = *(const long *)x, j = *(const long *)y;
    double u, v;
    if (sort_size == 8) { u = ((const double *)sort_key)[i]; v = ((const double *)sort_key)[j]; }
    else { u = ((const int *)sort_key)[i]; v = ((const int *)sort_key)[j]; }
    return u < v ? -1 : u > v ? 1 : (i > j) - (i < j);
}
static int by_float_result(const void *x, const void *y) {
    long i = *(const long *)x, j = *(const long *)y;
    float u = ((const float *)sort_key)[i], v = ((const float *)sort_key)[j];
    return u < v ? -1 : u > v ? 1 : (i > j) - (i < j);
}

int main(int argc, char **argv) {
    if (argc < 4) { fprintf(stderr, "usage: driver RUNS N LABEL=LIB.so ...\n"); return 2; }
    int runs = atoi(argv[1]);
    long side = 1; long want = atol(argv[2]);
    while (side * side < want) side++;
    int libs = argc - 3;
    char **labels = calloc(libs, sizeof(char *));
    void **fns = calloc((size_t)libs * KERNELS, sizeof(void *));
    for (int l = 0; l < libs; l++) {
        char *eq = strchr(argv[3 + l], '=');
        if (!eq) { fprintf(stderr, "bad argument %s\n", argv[3 + l]); return 2; }
        *eq = 0; labels[l] = argv[3 + l];
        void *h = dlopen(eq + 1, RTLD_NOW | RTLD_LOCAL);
        if (!h) { fprintf(stderr, "dlopen %s: %s\n", eq + 1, dlerror()); return 2; }
        for (int k = 0; k < KERNELS; k++) {
            char sym[64]; snprintf(sym, sizeof sym, "%s_map", names[k]);
            fns[l * KERNELS + k] = dlsym(h, sym);
            if (!fns[l * KERNELS + k]) { fprintf(stderr, "%s: no %s\n", labels[l], sym); return 2; }
        }
    }
    int bad = 0;
    for (int k = 0; k < KERNELS; k++) {
        for (int o = 0; o < 3; o++) {
            Data d = {.n = side * side};
            make(k, &d, side);
            long *perm = malloc(d.n * sizeof(long));
            for (long i = 0; i < d.n; i++) perm[i] = i;
            if (o == 1) {
                for (long i = d.n - 1; i > 0; i--) { long j = (long)(next() % (uint64_t)(i + 1)); long t = perm[i]; perm[i] = perm[j]; perm[j] = t; }
            } else if (o == 2) {
                scalar(k, &d, d.ref);
                sort_key = d.ref; sort_size = d.out_size;
                qsort(perm, d.n, sizeof(long), k == RAYMARCH ? by_float_result : by_result);
            }
            permute(&d, perm);
            scalar(k, &d, d.ref);
            for (int r = 0; r < runs; r++) {
                double t0 = now(); scalar(k, &d, d.out); double t1 = now();
                printf("TIME %s %s scalar %.6f\n", names[k], orders[o], t1 - t0);
                for (int l = 0; l < libs; l++) {
                    memset(d.out, 0xa5, d.n * d.out_size);
                    t0 = now(); mapped(k, fns[l * KERNELS + k], &d); t1 = now();
                    printf("TIME %s %s %s %.6f\n", names[k], orders[o], labels[l], t1 - t0);
                    if (memcmp(d.out, d.ref, d.n * d.out_size) != 0) {
                        printf("MISMATCH %s %s %s\n", names[k], orders[o], labels[l]);
                        bad = 1;
                    }
                }
                fflush(stdout);
            }
            free(d.a); free(d.b); free(d.out); free(d.ref); free(d.tab); free(perm);
        }
    }
    return bad;
}
