// Divergent-control-flow corpus: calls of functions defined in the module.
//
// Every externally visible function here is a test target; its helpers are
// `static` and `noinline`, so that they stay separate functions at -O2 and
// batchify replaces each varying call of a helper by a call of the helper's
// own clone (see docs/architecture.md, "Batched callees"). Recursion depths
// and trip counts come from masked parameters, so every call tree is small.
// Pointer parameters are written only through the pointer the caller got.
#include <stdint.h>

// A helper with a divergent if / else-if chain.
static __attribute__((noinline)) int call_classify(int x) { if (x < -100) return -1; else if (x < 0) return (int)((unsigned)x * 3u); else if (x < 1000) return x / 7; return 5; }

// A noinline helper with a divergent branch, called by every lane.
int call_branchy(int x) { return call_classify(x) + call_classify(x ^ 0x55); }

// A helper whose loop runs a lane-varying number of times.
static __attribute__((noinline)) float call_poly_steps(float x, int n) { float acc = 0.0f; for (int i = 0; i < (n & 15); i++) acc = acc * 0.5f + x; return acc; }

// The helper is called only by lanes that take the branch (partial mask).
float call_under_branch(float x, int n) { if (n > 0 && x == x) return call_poly_steps(x, n); return -1.0f; }

// Euclid's gcd as a recursion whose depth differs between lanes.
static __attribute__((noinline)) unsigned call_gcd_rec(unsigned a, unsigned b, unsigned depth) { if (b == 0u || depth == 0u) return a; return call_gcd_rec(b, a % b, depth - 1u); }

// Recursive gcd, called by every lane.
unsigned call_gcd(unsigned a, unsigned b) { return call_gcd_rec(a, b, 64u) + 1u; }

// Doubly recursive Fibonacci on a small lane-varying argument.
static __attribute__((noinline)) int call_fib_rec(int n) { if (n < 2) return n; return call_fib_rec(n - 1) + call_fib_rec(n - 2); }

// Fibonacci with n below 16.
int call_fib(int n) { return call_fib_rec(n & 15); }

// A bounded Ackermann function (m < 3, n < 8): nested recursion.
static __attribute__((noinline)) unsigned call_ack_rec(unsigned m, unsigned n) { if (m == 0u) return n + 1u; if (n == 0u) return call_ack_rec(m - 1u, 1u); return call_ack_rec(m - 1u, call_ack_rec(m, n - 1u)); }

// Ackermann on masked arguments.
unsigned call_ack(unsigned m, unsigned n) { return call_ack_rec(m % 3u, n & 7u); }

// Mutual recursion: parity by descent, depth below 64.
static __attribute__((noinline)) int call_is_odd(unsigned n);
static __attribute__((noinline)) int call_is_even(unsigned n) { if (n == 0u) return 1; return call_is_odd(n - 1u); }
static __attribute__((noinline)) int call_is_odd(unsigned n) { if (n == 0u) return 0; return call_is_even(n - 1u); }

// Parity through mutual recursion.
int call_parity(unsigned n) { return call_is_even(n & 63u) * 10 + (int)(n & 1u); }

// A helper with a uniform parameter (the scale) and a varying one.
static __attribute__((noinline)) int64_t call_scale(int64_t x, int k) { if ((k & 3) == 0) return x; if (x > 0) return (int64_t)((uint64_t)x * (uint64_t)(k & 255)); return (int64_t)((uint64_t)x - (uint64_t)(int64_t)k); }

// VARIANT-PARAMS: call_uniform_arg vu
int64_t call_uniform_arg(int64_t x, int k) { if (x != 0) return call_scale(x, k); return 7; }

// A void helper that writes through its pointer argument.
static __attribute__((noinline)) void call_put(int *p, int x) { if (x > 3) p[0] = (int)((unsigned)x * 2u); else p[1] = (int)(0u - (unsigned)x); }

// Each lane writes its own buffer through the helper, under a divergent branch.
int call_store(int* out, int x) { if (x & 1) call_put(out, x); return x; }

// A helper that bumps a counter through its pointer.
static __attribute__((noinline)) void call_bump(int *c, int x) { if (x > 0) *c += x & 7; }

// Every lane bumps the same counter (a uniform pointer): the calls must stay
// in lane order, one whole call per lane.
// VARIANT-PARAMS: call_shared_counter uv
int call_shared_counter(int* c, int x) { call_bump(c, x); return x & 3; }
