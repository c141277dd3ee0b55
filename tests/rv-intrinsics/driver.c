/* Checks the clones of kernels.c at N lanes (-DN=8: AVX2, -DN=16:
 * AVX-512) as RV's launchers check its tests: against scalar calls where
 * the result is lane-wise, against the group's meaning (computed here)
 * where it is not. Usage: driver SEED. Exit 1 on a mismatch. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if N == 8
#define ISA "d"
#elif N == 16
#define ISA "e"
#endif
typedef float vf __attribute__((vector_size(4 * N)));
typedef int vi __attribute__((vector_size(4 * N)));
struct node { float key; int lo, hi; };

#define STR2(x) #x
#define STR(x) STR2(x)
#define CLONE(ret, name, shape, ...) ret name##_v(__VA_ARGS__) __asm__("_ZGV" ISA "N" STR(N) shape "_" #name);
CLONE(vf, t007, "uu", float, float)
CLONE(vi, t022, "uv", struct node *, vf)
CLONE(vf, t036, "vv", vf, vf)
CLONE(vf, t046, "vv", vf, vf)
CLONE(vi, t047, "vv", vf, vf)
CLONE(vi, t071, "vv", vf, vf)
CLONE(vi, t077, "vv", vf, vf)
CLONE(vf, t078, "vv", vf, vi)
/* 64-bit lanes do not fit one AVX2 register: t079 runs through its map. */
void t079_map(size_t n, const float *a, const float *b, int64_t *out);
CLONE(vf, t084, "uvu", float *, vi, int)
CLONE(vf, rot, "vv", vf, vf)
CLONE(vi, idx, "vv", vf, vf)
float t007(float, float);
int t022(struct node *, float);
float t036(float, float);
int t077(float, float);

static uint64_t state;
static double uniform01(void) {
  state = state * 6364136223846793005ull + 1442695040888963407ull;
  return (double)(state >> 11) / 9007199254740992.0;
}
static float rnd(float lo, float hi) { return lo + (hi - lo) * (float)uniform01(); }

static int failures;
static void expect(const char *test, int round, int lane, double got, double want) {
  if (memcmp(&got, &want, sizeof got) != 0 && !(isnan(got) && isnan(want))) {
    if (failures < 10) printf("MISMATCH %s round %d lane %d: got %a, want %a\n", test, round, lane, got, want);
    failures++;
  }
}

/* A binary search tree of 63 distinct keys, node 0 the root; 0 marks "no child". */
static struct node tree[64];
static int nodes;
static int insert(float key) {
  int at = 0;
  for (;;) {
    if (tree[at].key == key) return 0;
    int *next = key < tree[at].key ? &tree[at].lo : &tree[at].hi;
    if (*next == 0) { tree[nodes] = (struct node){key, 0, 0}; *next = nodes++; return 1; }
    at = *next;
  }
}

int main(int argc, char **argv) {
  state = argc > 1 ? strtoull(argv[1], 0, 10) : 1;
  for (int round = 0; round < 200; round++) {
    vf a, b;
    vi flags, at;
    for (int k = 0; k < N; k++) {
      a[k] = rnd(-4.0f, 200.0f);
      b[k] = rnd(-4.0f, 200.0f);
      flags[k] = (int)(uniform01() * 5);
      at[k] = (int)(uniform01() * N);
    }
    float x = rnd(-10, 10), y = rnd(-10, 10);
    vf r = t007_v(x, y);
    for (int k = 0; k < N; k++) expect("007", round, k, r[k], t007(x, y));

    nodes = 1;
    tree[0] = (struct node){100.0f, 0, 0};
    while (nodes < 63) insert((float)(int)rnd(0, 200));
    vf keys;
    for (int k = 0; k < N; k++) keys[k] = uniform01() < 0.5 ? tree[(int)(uniform01() * nodes)].key : (float)(int)rnd(0, 200) + 0.5f;
    vi found = t022_v(tree, keys);
    for (int k = 0; k < N; k++) expect("022", round, k, found[k], t022(tree, keys[k]));

    r = t036_v(a, b);
    for (int k = 0; k < N; k++) expect("036", round, k, r[k], t036(a[k], b[k]));

    r = t046_v(a, b);
    for (int k = 0; k < N; k++) {
      float s = a[3] + b[k];
      expect("046", round, k, r[k], s / (s * s - b[k]));
    }

    vi bits = t047_v(a, b), count = t071_v(a, b);
    float fa[N], fb[N];
    int64_t count64[N];
    memcpy(fa, &a, sizeof fa);
    memcpy(fb, &b, sizeof fb);
    t079_map(N, fa, fb, count64);
    int want_bits = 0, want_count = 0;
    for (int k = 0; k < N; k++) {
      want_bits |= (a[k] < b[k]) << k;
      want_count += a[k] < b[k];
    }
    for (int k = 0; k < N; k++) {
      expect("047", round, k, bits[k], want_bits);
      expect("071", round, k, count[k], want_count);
      expect("079", round, k, (double)count64[k], want_count);
    }

    vi depth = t077_v(a, b);
    for (int k = 0; k < N; k++) expect("077", round, k, depth[k], t077(a[k], b[k]));

    r = t078_v(a, flags);
    float packed[N];
    for (int k = 0, j = 0; k < N; k++) {
      packed[k] = a[k];
      if (flags[k] != 0) packed[j++] = a[k];
    }
    for (int k = 0; k < N; k++) expect("078", round, k, r[k], packed[k]);

    float base[N];
    for (int k = 0; k < N; k++) base[k] = rnd(-100, 100);
    int lane = (int)(uniform01() * N);
    r = t084_v(base, at, lane);
    for (int k = 0; k < N; k++) expect("084", round, k, r[k], base[at[lane]]);

    r = rot_v(a, b);
    for (int k = 0; k < N; k++) {
      int up = b[k] > 100.0f, src = up ? (k + 3) % N : (k + N - 1) % N;
      expect("rot", round, k, r[k], (b[src] > 100.0f) == up ? a[src] : 0.0f);
    }

    vi ix = idx_v(a, b);
    for (int k = 0, below = 0; k < N; k++) {
      expect("idx", round, k, ix[k], a[k] > 50.0f ? below : -1);
      if (a[k] > 50.0f && b[k] > 100.0f) below++;
    }
  }
  printf("%s: 10 tests, rv_shuffle and rv_index x 200 rounds at %d lanes, %d mismatches\n", failures ? "FAIL" : "ok", N, failures);
  return failures != 0;
}
