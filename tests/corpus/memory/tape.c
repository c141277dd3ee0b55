// Tapes (C): heap buffers that each call grows with realloc inside a loop
// whose trip count differs between lanes, writes element by element and
// reads back in reverse, as Enzyme's reverse derivatives do with their
// caches. Where the buffer's pointer has a tape's form the clone shares one
// buffer between the lanes (`tape_every_trip`; `--report`: "tape shared by
// the lanes"); clang -O2 turns the first growth of `tape_escape` and
// `tape_branchy` into `malloc`, which keeps them per lane. See README.md.
#include <stdlib.h>

// Doubling growth at powers of two (Enzyme's exponential allocation), an
// escape loop that runs 1 to 64 trips per lane, a reverse sweep.
double tape_escape(double x, double c) {
  double *t = 0;
  double v = x;
  long n = 0;
  for (;;) {
    if ((n & (n - 1)) == 0) // n is 0 or a power of two
      t = realloc(t, (size_t)(n ? 2 * n : 1) * sizeof(double));
    t[n] = v;
    n++;
    v = v * v * 0.5 + c;
    if (!(v < 4.0 && v > -4.0) || n == 64)
      break;
  }
  double s = 0.0;
  for (long k = n - 1; k >= 0; k--)
    s = s * 0.75 + t[k];
  free(t);
  return s + (double)n;
}

// Growth by one element every trip (a size that differs between lanes at
// the same trip when the trip counts started apart), read at varying
// indices.
int tape_every_trip(int x, int m) {
  int *t = 0;
  int len = (x & 7) + 1;
  for (int k = 0; k < len; k++) {
    t = realloc(t, (size_t)(k + 1) * sizeof(int));
    t[k] = x * (k + 3) + m;
  }
  int s = t[(unsigned)m % (unsigned)len];
  for (int k = len - 1; k >= (m & 1); k--)
    s = s * 3 + (t[k] << (k & 3));
  free(t);
  return s;
}

// Growth only in the lanes whose branch asks for it, and an early return
// before the free (the scalar function leaks; the clone frees at return).
long tape_branchy(long x, long y) {
  long *t = realloc(0, 4 * sizeof(long));
  long cap = 4;
  long n = (x & 15) + 1;
  for (long k = 0; k < n; k++) {
    if (k == cap) {
      cap = cap * 2 + (y & 3);
      t = realloc(t, (size_t)cap * sizeof(long));
    }
    t[k] = (x >> (k & 7)) + y * k;
  }
  if (y < 0)
    return t[n - 1];
  long s = 0;
  for (long k = 0; k < n; k++)
    s += t[k] * (k + 1);
  free(t);
  return s;
}
