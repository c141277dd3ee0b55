// Private memory corpus (C): local arrays that mem2reg cannot remove,
// indexed by uniform, linear and varying values, initialised with memset
// or stores, read back as vectors, and one whose address escapes to a
// helper (per-lane layout). See README.md.
#include <string.h>

// A histogram of 3-bit digits in a local int[8] (memset, varying-index
// increments, a vector read for the maximum).
int local_hist(int x) {
  int h[8] = {0};
  unsigned u = (unsigned)x;
  for (int k = 0; k < 10; k++) {
    h[u & 7]++;
    u >>= 3;
  }
  int best = 0;
  for (int k = 0; k < 8; k++)
    best = h[k] > best ? h[k] : best;
  return best;
}

// Powers written at uniform indices, read at a varying index.
float local_pow(float x, int i) {
  float p[8];
  p[0] = 1.0f;
  for (int k = 1; k < 8; k++)
    p[k] = p[k - 1] * x;
  return p[i & 7];
}

// A local table filled under a divergent branch, summed in a loop whose
// trip count differs between lanes.
int local_divergent(int x, int n) {
  int t[16];
  for (int k = 0; k < 16; k++)
    t[k] = (x >> (k & 7)) & 0xff;
  if (x & 1)
    t[x & 15] = -x;
  int s = 0;
  for (int k = 0; k < (n & 15); k++)
    s += t[k];
  return s;
}

// Bytes: a local char buffer written at varying positions.
unsigned local_bytes(unsigned x) {
  unsigned char b[32];
  memset(b, 7, sizeof b);
  for (int k = 0; k < 6; k++)
    b[(x >> (5 * k)) & 31] ^= (unsigned char)(k + 1);
  unsigned s = 0;
  for (int k = 0; k < 32; k++)
    s = s * 31u + b[k];
  return s;
}

// Doubles: a local array used as a small stack (push at varying depth).
double local_stack(double x, int n) {
  double st[8];
  int sp = 0;
  for (int k = 0; k < (n & 7) + 1; k++) {
    st[sp] = x * (double)k;
    sp = (sp + (x > (double)k ? 1 : 0)) & 7;
  }
  double s = 0.0;
  for (int k = 0; k < sp; k++)
    s += st[k];
  return s;
}

__attribute__((noinline)) static void fill(int *out, int v, int n) {
  for (int k = 0; k < n; k++)
    out[k] = v + k * k;
}

// The local array's address escapes to a helper: per-lane layout.
int local_escape(int v, int i) {
  int a[6];
  fill(a, v, 6);
  return a[(unsigned)i % 6u] - a[0];
}
