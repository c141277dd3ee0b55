// driver MODE MASK x0 y0 ... x7 y7: MODE "scalar" calls g lane by lane (in
// lane order, skipping lanes whose MASK bit is clear), MODE "vector" calls
// the masked 8-lane AVX2 clone once (GCC's mask ABI: a vector of the
// characteristic type, int here, nonzero = active). Both print the results
// of active lanes if no lane exits. Built with -mavx2.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
typedef int v8i __attribute__((vector_size(32)));
int g(int x, int y);
v8i _ZGVdM8vv_g(v8i x, v8i y, v8i mask);
int main(int argc, char **argv) {
  if (argc != 19) return 2;
  unsigned mask = (unsigned)atoi(argv[2]);
  int x[8], y[8], r[8];
  for (int k = 0; k < 8; k++) { x[k] = atoi(argv[3 + 2 * k]); y[k] = atoi(argv[4 + 2 * k]); }
  if (strcmp(argv[1], "scalar") == 0) {
    for (int k = 0; k < 8; k++) if (mask >> k & 1) r[k] = g(x[k], y[k]);
  } else {
    v8i vx, vy, m;
    for (int k = 0; k < 8; k++) { vx[k] = x[k]; vy[k] = y[k]; m[k] = (mask >> k & 1) ? -1 : 0; }
    v8i vr = _ZGVdM8vv_g(vx, vy, m);
    for (int k = 0; k < 8; k++) r[k] = vr[k];
  }
  for (int k = 0; k < 8; k++) if (mask >> k & 1) printf("%d ", r[k]);
  printf("\n");
  return 0;
}
