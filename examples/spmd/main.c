/* Times scalar calls against the batched maps (kernels.c), 5 runs each,
 * interleaved; checks that every version gives the same bits. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

extern float kept[];
extern int cursor;
int keep(float, float);
int keep_plain(float, float);
float settle(float, float);
float settle_all(float, float);
void keep_map(size_t, const float *, const float *, int *);
void settle_map(size_t, const float *, const float *, float *);
void settle_all_map(size_t, const float *, const float *, float *);

#define N (1 << 20)
static float xs[N], ys[N], fa[N], tol[N], out_f[N], want_f[N];
static int out_i[N];
static float want_kept[N];

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}
static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}
static void report(const char *what, double t[5], double base) {
  qsort(t, 5, sizeof t[0], cmp);
  printf("  %-34s median %7.2f ms  (min %7.2f, max %7.2f)  %5.2fx\n", what, t[2] * 1e3, t[0] * 1e3, t[4] * 1e3,
         base / t[2]);
}

int main(void) {
  srand(7);
  for (int i = 0; i < N; i++) {
    xs[i] = (float)rand() / (float)RAND_MAX * 3.0f - 1.5f;
    ys[i] = (float)rand() / (float)RAND_MAX * 3.0f - 1.5f;
    fa[i] = (float)rand() / (float)RAND_MAX * 1e6f;
    tol[i] = (rand() % 3 == 0) ? 1e-2f : 1e-7f;
  }
  double t_plain[5], t_calls[5], t_map[5];
  int want_n = 0;
  for (int r = 0; r < 5; r++) {
    double t0 = now();
    cursor = 0;
    for (int i = 0; i < N; i++) keep_plain(xs[i], ys[i]);
    t_plain[r] = now() - t0;
    want_n = cursor;
    memcpy(want_kept, kept, sizeof(float) * want_n);
    t0 = now();
    cursor = 0;
    for (int i = 0; i < N; i++) keep(xs[i], ys[i]);
    t_calls[r] = now() - t0;
    if (cursor != want_n || memcmp(kept, want_kept, sizeof(float) * want_n)) { puts("MISMATCH keep (scalar calls)"); return 1; }
    t0 = now();
    cursor = 0;
    keep_map(N, xs, ys, out_i);
    t_map[r] = now() - t0;
    if (cursor != want_n || memcmp(kept, want_kept, sizeof(float) * want_n)) { puts("MISMATCH keep (map)"); return 1; }
  }
  double base = t_plain[0];
  printf("stream compaction, %d points, %d kept (%s):\n", N, want_n, LANES);
  qsort(t_plain, 5, sizeof t_plain[0], cmp);
  base = t_plain[2];
  report("scalar loop, plain append", t_plain, base);
  report("scalar calls of keep (one lane)", t_calls, base);
  report("keep_map (batched)", t_map, base);

  double s_calls[5], s_map[5], s_all[5];
  for (int r = 0; r < 5; r++) {
    double t0 = now();
    for (int i = 0; i < N; i++) want_f[i] = settle(fa[i], tol[i]);
    s_calls[r] = now() - t0;
    t0 = now();
    settle_map(N, fa, tol, out_f);
    s_map[r] = now() - t0;
    if (memcmp(out_f, want_f, sizeof out_f)) { puts("MISMATCH settle_map"); return 1; }
    t0 = now();
    settle_all_map(N, fa, tol, out_f);
    s_all[r] = now() - t0;
    if (memcmp(out_f, want_f, sizeof out_f)) { puts("MISMATCH settle_all_map"); return 1; }
  }
  printf("Newton square roots, %d inputs (%s):\n", N, LANES);
  qsort(s_calls, 5, sizeof s_calls[0], cmp);
  base = s_calls[2];
  report("scalar calls of settle", s_calls, base);
  report("settle_map (lanes leave one by one)", s_map, base);
  report("settle_all_map (group leaves on all)", s_all, base);
  return 0;
}
