/* The ten whole-function tests of the RV vectorizer (cdl-saarland/rv,
 * test/suite/ *-wfv.cpp, release/16.x) that call RV's intrinsics, written
 * anew here (same operations, shapes and checks; see README.md). Each
 * function tNNN is RV's test NNN. RV's intrinsics are declared without
 * bodies, as RV's tests declare them; one_lane.c defines their one-lane
 * meaning for the scalar calls. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>

bool rv_any(bool);
bool rv_all(bool);
int rv_ballot(bool);
int rv_popcount(bool);
float rv_extract(float, int);
float rv_compact(float, bool);
float rv_load(float *, int);
unsigned rv_index(bool);
/* convergent: without it clang -O2 merges the two calls of rot() into
 * one call on a selected amount (docs/cross-lane.md, "RV's names"). */
__attribute__((convergent)) float rv_shuffle(float, int);

/* 007: any() of uniform values. */
float t007(float x, float y) { return rv_any(x > y) ? x : y; }

/* 022: search a binary tree for each lane's key, with one stack shared by
 * the group: a child is pushed when any lane needs it. */
struct node { float key; int lo, hi; };
int t022(struct node *tree, float key) {
  int stack[64];
  int depth = 1;
  stack[0] = 0;
  while (depth > 0) {
    int at = stack[--depth];
    float k = tree[at].key;
    int lo = tree[at].lo, hi = tree[at].hi;
    if (k == key) return 1;
    if (lo > 0 && rv_any(key < k)) stack[depth++] = lo;
    if (hi > 0 && rv_any(k < key)) stack[depth++] = hi;
  }
  return 0;
}

/* 036: all() of a condition true in every lane. */
float t036(float x, float y) { return rv_all(fabsf(x) >= -fabsf(y)) ? x : y; }

/* 046: lane 3's value, then per-lane arithmetic on it. */
float t046(float x, float y) {
  float s = rv_extract(x, 3) + y;
  return s / (s * s - y);
}

/* 047: the lanes' bits of a comparison. */
int t047(float x, float y) { return rv_ballot(x < y); }

/* 071: how many lanes have it. */
int t071(float x, float y) { return rv_popcount(x < y); }

/* 077: a recursive callee that recurses while any lane needs it. */
int t077_depth(float x, int n) {
  bool more = x > 0.0001f;
  if (rv_any(more)) {
    if (x > 0.0001f) return 1 + t077_depth(logf(x), n + 1);
    return n;
  }
  return n;
}
int t077(float x, float y) { (void)y; return t077_depth(x, 0) / 2; }

/* 078: the values of the lanes with a set flag, moved to the front. */
float t078(float x, int flag) { return rv_compact(x, flag != 0); }

/* 079 is in kernels64.c (rv_popcount declared with a 64-bit result). */

/* 084: a load through another lane's pointer. */
float t084(float *base, int at, int lane) { return rv_load(&base[at], lane); }

/* Not one of RV's ten: rv_shuffle (a rotation by a constant) in both arms
 * of a divergent branch; a source lane that is not active reads 0. */
float rot(float x, float y) { return y > 100.0f ? rv_shuffle(x, 3) : rv_shuffle(x, -1); }

/* Not one of RV's ten: rv_index (the number of active lanes below this
 * one with the flag) inside a divergent branch. */
int idx(float x, float y) { return x > 50.0f ? (int)rv_index(y > 100.0f) : -1; }
