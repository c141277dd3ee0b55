/* Two kernels that need cross-lane operations (docs/cross-lane.md).
 *
 * keep: stream compaction. Each point runs a short escape-time loop; the
 * points that last longer than 8 steps are appended to `kept`, in order,
 * by one packed store per group of lanes (scalar: one store per point).
 *
 * settle / settle_all: Newton's square root with a per-lane tolerance.
 * settle leaves its loop lane by lane; settle_all runs the group until
 * all() of its lanes have converged, finished lanes doing nothing. Both
 * give every lane the same result. */
#include <math.h>
#include "batchify.h"

float kept[1 << 22];
int cursor;

/* The escape-time steps of point (x, y), at most 32. */
static int steps(float x, float y) {
  float zx = x, zy = y;
  int i = 0;
  while (i < 32 && zx * zx + zy * zy < 4.0f) {
    float t = zx * zx - zy * zy - 0.4f;
    zy = 2.0f * zx * zy + 0.6f;
    zx = t;
    i++;
  }
  return i;
}

int keep(float x, float y) {
  int i = steps(x, y);
  if (i > 8) {
    cursor += batchify_packed_store_active_f32(kept + cursor, x + (float)i);
    return 1;
  }
  return 0;
}

/* The same without the operation: what a scalar loop writes by hand. */
int keep_plain(float x, float y) {
  int i = steps(x, y);
  if (i > 8) {
    kept[cursor++] = x + (float)i;
    return 1;
  }
  return 0;
}

float settle(float a, float tol) {
  float x = a > 1.0f ? a : 1.0f;
  for (int it = 0; it < 60; it++) {
    float nx = 0.5f * (x + a / x);
    if (fabsf(nx - x) <= tol * nx) return nx;
    x = nx;
  }
  return x;
}

float settle_all(float a, float tol) {
  float x = a > 1.0f ? a : 1.0f;
  int done = 0, it = 0;
  while (!batchify_all(done)) {
    float nx = 0.5f * (x + a / x);
    int now = fabsf(nx - x) <= tol * nx || it == 59;
    x = done ? x : nx;
    done = done | now;
    it++;
  }
  return x;
}
