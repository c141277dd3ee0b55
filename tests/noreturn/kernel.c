// `noreturn` calls reached by several lanes: the clone must make the call of
// the lowest such lane, exactly as N scalar calls in lane order would (the
// first lane that exits ends the process). Exits sit in a divergent loop,
// in divergent branches, and after it.
#include <stdlib.h>

int g(int x, int y) {
  int s = 0;
  for (int i = 0; i < (x & 15); i++) {
    s += i * y;
    if (s > 100 + x)
      exit(30 + (i & 7));
  }
  if (x == 1)
    exit(10);
  if (y < -50)
    exit(20 + (x & 3));
  if (x == 3)
    abort();
  return s;
}
