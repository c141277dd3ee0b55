/* Demo driver: the scalar smoothstep against the 8-lane AVX2 clone that
 * batchify generated from the same bitcode.
 *
 *   clang-22 -O2 -mavx2 -c driver_avx2.c -o driver_avx2.o
 *   clang-22 -O2 driver.c driver_avx2.o smoothstep.batched.bc -o smoothstep-demo
 *
 * It prints scalar vs batched results for 8 special inputs, checks that both
 * agree bit for bit on a large array (special values, random values around
 * the edges, random bit patterns), and times both ways.
 *
 * This file is built for the baseline host: nothing in it uses AVX, so it
 * runs anywhere and checks __builtin_cpu_supports("avx2") before calling into
 * driver_avx2.c, which holds the calls to the clone (see there why they need
 * a translation unit of their own).
 *
 * Exit status: 0 when every result is bit-identical (or the CPU lacks AVX2,
 * which is reported as a skip), 1 on any mismatch or allocation failure.
 */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define LANES 8
#define N_ELEMS ((size_t)1 << 20)
#define REPS 15

/* The scalar function, from smoothstep.c, as clang compiled it. */
float smoothstep(float e0, float e1, float x);
/* The batched way, in driver_avx2.c: 8 elements per call of the clone
 * __m256 _ZGVdN8uuv_smoothstep(float e0, float e1, __m256 x). */
void smoothstep_batched_array(float e0, float e1, const float *x, float *out, size_t n);

static const float E0 = 0.25f, E1 = 0.75f;

/* The scalar function is called through a volatile function pointer, so
 * clang can neither inline nor vectorize it away: one real call per element
 * (driver_avx2.c does the same for the clone: one call per 8 elements). */
typedef float (*scalar_fn)(float, float, float);
static scalar_fn volatile scalar_ptr = smoothstep;

static uint32_t bits(float f) {
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static float from_bits(uint32_t u) {
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint32_t next_u32(void) { /* xorshift64* */
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return (uint32_t)((rng_state * 0x2545F4914F6CDD1Dull) >> 32);
}

static void fill_inputs(float *x, size_t n) {
    const float special[] = {
        /* the 8 lanes of the table: NaN, -0, +0, -inf, +inf, below, inside, above */
        NAN, -0.0f, 0.0f, -INFINITY, INFINITY, 0.1f, 0.5f, 0.9f,
        /* exactly on and next to the edges */
        E0, E1, from_bits(bits(E0) - 1), from_bits(bits(E0) + 1), from_bits(bits(E1) - 1),
        from_bits(bits(E1) + 1), (E0 + E1) / 2.0f, 1.0f,
        /* other NaNs (negative, signalling, with payload), extremes, subnormals */
        -NAN, from_bits(0x7f800001u), from_bits(0x7fc12345u), from_bits(0xffbfffffu),
        FLT_MAX, -FLT_MAX, FLT_MIN, -FLT_MIN, 1e-40f, -1e-40f, FLT_TRUE_MIN, 1e30f,
        -1e30f, 0.25000003f, 0.7499999f, 3.0f,
    };
    size_t n_special = sizeof special / sizeof special[0];
    for (size_t i = 0; i < n; i++) {
        if (i < n_special) {
            x[i] = special[i];
        } else if (i % 4 == 3) {
            x[i] = from_bits(next_u32()); /* any bit pattern at all */
        } else {
            /* uniform in [-0.5, 1.5): below, inside and above the edges */
            x[i] = -0.5f + 2.0f * (float)(next_u32() >> 8) / (float)(1u << 24);
        }
    }
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void run_scalar(const float *x, float *out, size_t n) {
    for (size_t i = 0; i < n; i++)
        out[i] = scalar_ptr(E0, E1, x[i]);
}

static void run_batched(const float *x, float *out, size_t n) {
    smoothstep_batched_array(E0, E1, x, out, n);
}

/* Best of REPS runs, in seconds. */
static double time_best(void (*run)(const float *, float *, size_t), const float *x, float *out,
                        size_t n) {
    double best = 1e30;
    run(x, out, n); /* warm-up */
    for (int r = 0; r < REPS; r++) {
        double t0 = now_s();
        run(x, out, n);
        double t = now_s() - t0;
        if (t < best)
            best = t;
    }
    return best;
}

static void print_table(const float *x, const float *scalar, const float *batched) {
    printf("\n  lane  x             scalar smoothstep          batched lane               bits\n");
    printf("  ----  ------------  -------------------------  -------------------------  ----\n");
    for (int i = 0; i < LANES; i++) {
        printf("  %4d  %-12g  %-12g (0x%08x)  %-12g (0x%08x)  %s\n", i, (double)x[i],
               (double)scalar[i], bits(scalar[i]), (double)batched[i], bits(batched[i]),
               bits(scalar[i]) == bits(batched[i]) ? "same" : "DIFFERENT");
    }
    printf("\n");
}

static size_t compare(const float *x, const float *scalar, const float *batched, size_t n) {
    size_t mismatches = 0;
    for (size_t i = 0; i < n; i++) {
        if (bits(scalar[i]) != bits(batched[i])) {
            if (mismatches < 10)
                fprintf(stderr,
                        "MISMATCH at element %zu: x = %g (0x%08x): scalar %g (0x%08x), "
                        "batched %g (0x%08x)\n",
                        i, (double)x[i], bits(x[i]), (double)scalar[i], bits(scalar[i]),
                        (double)batched[i], bits(batched[i]));
            mismatches++;
        }
    }
    return mismatches;
}

int main(void) {
    printf("smoothstep(e0 = %g, e1 = %g, x): scalar function vs batchify's 8-lane clone "
           "_ZGVdN8uuv_smoothstep\n",
           (double)E0, (double)E1);
    if (!__builtin_cpu_supports("avx2")) {
        printf("SKIP: this CPU has no AVX2, which the clone _ZGVdN8uuv_smoothstep "
               "(VFABI ISA 'd') needs; nothing was compared.\n");
        return 0;
    }

    size_t n = N_ELEMS;
    float *x = aligned_alloc(32, n * sizeof(float));
    float *scalar = aligned_alloc(32, n * sizeof(float));
    float *batched = aligned_alloc(32, n * sizeof(float));
    if (!x || !scalar || !batched) {
        fprintf(stderr, "error: out of memory\n");
        return 1;
    }
    fill_inputs(x, n);

    double t_scalar = time_best(run_scalar, x, scalar, n);
    double t_batched = time_best(run_batched, x, batched, n);

    print_table(x, scalar, batched);

    size_t mismatches = compare(x, scalar, batched, n);
    if (mismatches) {
        printf("bit-identical: NO (%zu of %zu elements differ)\n", mismatches, n);
        return 1;
    }
    printf("bit-identical: yes (%zu elements)\n", n);

    double ns_scalar = t_scalar * 1e9 / (double)n, ns_batched = t_batched * 1e9 / (double)n;
    printf("scalar : %6.3f ns/element  (one call per element, best of %d runs)\n", ns_scalar,
           REPS);
    printf("batched: %6.3f ns/element  (one call per %d elements, best of %d runs)\n",
           ns_batched, LANES, REPS);
    printf("speedup: %.2fx\n", ns_scalar / ns_batched);
    free(x);
    free(scalar);
    free(batched);
    return 0;
}
