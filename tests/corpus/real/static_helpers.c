// C as users write it: static helpers (clang -O2 makes them internal
// fastcc), pointer parameters that are read and written, a byval struct.
// Every defined function, of any linkage, is batched with every parameter
// varying by crates/batchify-testkit/tests/oracle_real.rs.

struct big {
  int v[6];
};

__attribute__((noinline)) static int helper(const int *p, int i) {
  return p[i & 7] * 3 + i;
}

int use_helper(const int *p, int i) { return helper(p, i) + helper(p, i + 1); }

__attribute__((noinline)) static void bump(int *p, int x) {
  if (x > 0)
    p[0] += x;
  else
    p[1] -= x;
}

void use_bump(int *p, int x) {
  bump(p, x);
  bump(p + 2, x);
}

// A checksum over 16 bytes, in the style of adler32.
unsigned adler16(const unsigned char *buf) {
  unsigned a = 1, b = 0;
  for (int i = 0; i < 16; i++) {
    a = (a + buf[i]) % 65521u;
    b = (b + a) % 65521u;
  }
  return (b << 16) | a;
}

// Passed by value in memory (byval on x86-64).
__attribute__((noinline)) static int big_sum(struct big s, int k) {
  s.v[k & 3] += k;
  return s.v[0] + s.v[1] + s.v[2] + s.v[3] + s.v[4] + s.v[5];
}

int use_big(const struct big *s, int k) { return big_sum(*s, k); }

// Returns a pointer into its argument.
const int *find_first_negative(const int *p) {
  for (int i = 0; i < 8; i++)
    if (p[i] < 0)
      return p + i;
  return p + 8;
}
