/* One-lane meanings of the RV intrinsics kernels.c calls (a group of one:
 * the calling lane is lane 0), for the scalar functions. */
#include <stdbool.h>
#include <stdint.h>
bool rv_any(bool c) { return c; }
bool rv_all(bool c) { return c; }
int rv_ballot(bool c) { return c ? 1 : 0; }
int rv_popcount(bool c) { return c ? 1 : 0; }
float rv_extract(float x, int lane) { return lane == 0 ? x : 0.0f; }
float rv_compact(float x, bool c) { (void)c; return x; }
float rv_load(float *p, int lane) { return lane == 0 ? *p : 0.0f; }
float rv_shuffle(float x, int s) { (void)s; return x; }
unsigned rv_index(bool c) { (void)c; return 0; }
