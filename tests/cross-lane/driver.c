/* driver.c: runs each kernel of kernels.h on random inputs and compares
 * with its reference model (reference.c), bit for bit (any NaN matches any
 * NaN: LLVM does not keep NaN payloads).
 *
 * CL_N > 0: the kernels' maps k_<name>_map(n, a, b, f, m, out) built by
 * batchify at N = CL_N lanes run the elements in groups of N (the last
 * group through the masked clone); the reference runs each group with
 * the group's lanes below n active.
 * CL_N == 0: the scalar kernels, compiled without batchify, against the
 * reference at one lane.
 *
 * Usage: driver SEED ROUNDS. Prints one line per kernel; exits 1 on the
 * first kernel with a mismatch (after printing up to 5 of them). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stddef.h>

#define CL_KERNELS(X)                                                          \
  X(k_any_all) X(k_ballot) X(k_reduce_int) X(k_reduce_i64) X(k_reduce_float)   \
  X(k_scan_loop) X(k_extract) X(k_shuffle) X(k_first) X(k_pack) X(k_pack_loop) \
  X(k_group_exit) X(k_nested) X(k_callee)

#define DECLARE(name)                                                          \
  double name(int a, int b, float f, int m);                                   \
  void name##_map(size_t n, const int *a, const int *b, const float *f,       \
                  const int *m, double *out);                                  \
  void ref_##name(int N, const int *a, const int *b, const float *f,          \
                  const int *m, const int *entry, double *out);
CL_KERNELS(DECLARE)

static uint64_t state;
static uint32_t next(void) {
  state = state * 6364136223846793005ull + 1442695040888963407ull;
  return (uint32_t)(state >> 33);
}

static float random_float(void) {
  static const float special[] = {0.0f, -0.0f, INFINITY, -INFINITY, 1e30f, -1e-30f, 1.0f, -1.0f};
  uint32_t r = next() % 100;
  if (r < 10) return special[next() % 8];
  if (r < 20) return (float)((int)(next() % 9) - 4);
  return ((float)(next() % 20001) - 10000.0f) / 100.0f;
}

static int same(double x, double y) {
  if (isnan(x) && isnan(y)) return 1;
  return memcmp(&x, &y, sizeof x) == 0;
}

#define MAXLEN 2048

typedef void (*map_fn)(size_t, const int *, const int *, const float *, const int *, double *);
typedef double (*scalar_fn)(int, int, float, int);
typedef void (*ref_fn)(int, const int *, const int *, const float *, const int *, const int *, double *);

static int run(const char *name, map_fn map, scalar_fn scalar, ref_fn ref, int rounds) {
  static int a[MAXLEN], b[MAXLEN], m[MAXLEN];
  static float f[MAXLEN];
  static double out[MAXLEN], want[MAXLEN];
  int n_lanes = CL_N > 0 ? CL_N : 1;
  int bad = 0;
  long checked = 0;
  for (int round = 0; round < rounds; round++) {
    size_t sizes[] = {0, 1, (size_t)n_lanes - 1, (size_t)n_lanes, (size_t)n_lanes + 1,
                      (size_t)(3 * n_lanes + 2), (size_t)(next() % 300)};
    size_t n = sizes[round % 7];
    size_t padded = (n + n_lanes - 1) / n_lanes * n_lanes;
    for (size_t i = 0; i < padded; i++) {
      uint32_t r = next() % 10;
      a[i] = r == 0 ? 0 : (int)(next() % 101) - 50;
      b[i] = r == 1 ? a[i] : (int)(next() % 101) - 50;
      f[i] = random_float();
      m[i] = (int)(next() % 2);
      out[i] = want[i] = -12345.0;
    }
    if (CL_N > 0) {
      map(n, a, b, f, m, out);
    } else {
      for (size_t i = 0; i < n; i++) out[i] = scalar(a[i], b[i], f[i], m[i]);
    }
    for (size_t g = 0; g < padded; g += n_lanes) {
      int entry[64];
      for (int k = 0; k < n_lanes; k++) entry[k] = g + k < n;
      ref(n_lanes, a + g, b + g, f + g, m + g, entry, want + g);
    }
    for (size_t i = 0; i < n; i++, checked++) {
      if (!same(out[i], want[i])) {
        if (bad < 5)
          printf("mismatch %s N=%d n=%zu element %zu (lane %zu): got %a, want %a; a=%d b=%d f=%a m=%d\n",
                 name, CL_N, n, i, i % n_lanes, out[i], want[i], a[i], b[i], f[i], m[i]);
        bad++;
      }
    }
  }
  printf("%s %s: %ld elements, %d mismatches\n", bad ? "FAIL" : "ok", name, checked, bad);
  return bad != 0;
}

int main(int argc, char **argv) {
  state = argc > 1 ? strtoull(argv[1], 0, 10) : 1;
  int rounds = argc > 2 ? atoi(argv[2]) : 70;
  int failed = 0;
#if CL_N > 0
#define RUN(name) failed |= run(#name, name##_map, 0, ref_##name, rounds);
#else
#define RUN(name) failed |= run(#name, 0, name, ref_##name, rounds);
#endif
  CL_KERNELS(RUN)
  return failed;
}
