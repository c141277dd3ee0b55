/* A linear output pointer written in a loop with a varying trip count and a
 * uniform input row; returns how many values it wrote. */
#include "harness.h"

#ifdef SIMD_FUNCS
DS(uniform(row, n) linear(out:4) notinbranch)
SCALAR int F(prefix)(int *out, const int *row, int n, int lim) BODY({
  int s = 0, k = 0;
  for (; k < 4 && k < n; k++) {
    s += row[k];
    if (s > lim)
      break;
    out[k] = s;
  }
  return k;
})
#else
#define N 400
static int row[8], lim[N], o1[N * 4], o2[N * 4], r1[N], r2[N];

int main(void) {
  for (int i = 0; i < 8; i++)
    row[i] = rnd_int(0, 50);
  for (int i = 0; i < N; i++)
    lim[i] = rnd_int(-10, 150);
  for (int i = 0; i < N * 4; i++)
    o1[i] = o2[i] = -1;
#pragma omp simd
  for (int i = 0; i < N; i++)
    r1[i] = prefix(&o1[4 * i], row, 4, lim[i]);
  for (int i = 0; i < N; i++)
    r2[i] = prefix(o2 + 4 * i, row, 3, lim[i]);
  for (int i = 0; i < N; i++) {
    int w1[4] = {-1, -1, -1, -1}, w2[4] = {-1, -1, -1, -1};
    CHECK_EQ("simd loop result", i, r1[i], ref_prefix(w1, row, 4, lim[i]));
    CHECK_EQ("plain loop result", i, r2[i], ref_prefix(w2, row, 3, lim[i]));
    for (int k = 0; k < 4; k++) {
      CHECK_EQ("simd loop memory", 4 * i + k, o1[4 * i + k], w1[k]);
      CHECK_EQ("plain loop memory", 4 * i + k, o2[4 * i + k], w2[k]);
    }
  }
  SIMD_DONE();
}
#endif
