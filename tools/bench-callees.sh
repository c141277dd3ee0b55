#!/usr/bin/env bash
# Quick timing of batched callees (docs/benchmarks.md, "Batched callees"):
# builds tests/corpus/divergent/calls.c at -O2, batches five of its functions
# as 8-lane AVX2 clones with each given batchify binary (default:
# target/debug/batchify), and times 20 x 4096 calls of each clone against
# 8 x 20 x 4096 scalar calls on the same inputs (a wall-clock loop, not a
# test). Also counts the scalar calls of the file's helpers left in the
# clones. Needs clang-22 and an AVX2 CPU.
#
#   tools/bench-callees.sh [BATCHIFY ...]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
CLANG="${CLANG:-clang-22}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
bins=("$@")
[ ${#bins[@]} -eq 0 ] && bins=("$root/target/debug/batchify")

"$CLANG" -O2 -fno-math-errno -c -emit-llvm "$root/tests/corpus/divergent/calls.c" -o "$tmp/calls.bc"
cat >"$tmp/driver.c" <<'CEOF'
#include <stdint.h>
#include <stdio.h>
#include <time.h>
typedef int v8si __attribute__((vector_size(32)));
typedef unsigned v8su __attribute__((vector_size(32)));
int call_fib(int); v8si _ZGVdN8v_call_fib(v8si);
unsigned call_ack(unsigned, unsigned); v8su _ZGVdN8vv_call_ack(v8su, v8su);
unsigned call_gcd(unsigned, unsigned); v8su _ZGVdN8vv_call_gcd(v8su, v8su);
int call_parity(unsigned); v8si _ZGVdN8v_call_parity(v8su);
int call_branchy(int); v8si _ZGVdN8v_call_branchy(v8si);
static uint64_t s = 88172645463325252ull;
static unsigned rnd(void) { s ^= s << 13; s ^= s >> 7; s ^= s << 17; return (unsigned)s; }
#define NB 4096
static unsigned A[NB][8], B[NB][8];
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec * 1e-9; }
#define BENCH(NAME, SCALAR, VEC, VT) { \
    double t0 = now(); unsigned acc = 0; \
    for (int r = 0; r < 20; r++) for (int i = 0; i < NB; i++) for (int k = 0; k < 8; k++) { \
      unsigned ak = A[i][k] ^ (unsigned)r, bk = B[i][k] ^ (unsigned)r; (void)bk; acc += (unsigned)SCALAR; } \
    double t1 = now(); unsigned acc2 = 0; \
    for (int r = 0; r < 20; r++) for (int i = 0; i < NB; i++) { VT a, b; \
      for (int k = 0; k < 8; k++) { a[k] = A[i][k] ^ (unsigned)r; b[k] = B[i][k] ^ (unsigned)r; } \
      VT v = (VT)VEC; for (int k = 0; k < 8; k++) acc2 += (unsigned)v[k]; } \
    double t2 = now(); \
    printf("%-13s 8 scalar calls: %8.2f ms  one clone call: %8.2f ms  speed-up %.2fx  %s\n", NAME, \
           (t1 - t0) * 1e3, (t2 - t1) * 1e3, (t1 - t0) / (t2 - t1), acc == acc2 ? "same results" : "RESULTS DIFFER"); }
int main(void) {
  for (int i = 0; i < NB; i++) for (int k = 0; k < 8; k++) { A[i][k] = rnd(); B[i][k] = rnd(); }
  BENCH("call_fib", call_fib((int)ak), _ZGVdN8v_call_fib((v8si)a), v8si)
  BENCH("call_ack", call_ack(ak, bk), _ZGVdN8vv_call_ack(a, b), v8su)
  BENCH("call_gcd", call_gcd(ak, bk), _ZGVdN8vv_call_gcd(a, b), v8su)
  BENCH("call_parity", call_parity(ak), _ZGVdN8v_call_parity(a), v8su)
  BENCH("call_branchy", call_branchy((int)ak), _ZGVdN8v_call_branchy((v8si)a), v8si)
  return 0;
}
CEOF
for b in "${bins[@]}"; do
  echo "== $b"
  "$b" "$tmp/calls.bc" -S -o "$tmp/out.ll" -n 8 --isa avx2 \
    --function call_fib --function call_ack --function call_gcd --function call_parity --function call_branchy
  scalar=$(awk '/^define .*@(_ZGV|__batchify)/{f=1} /^}/{f=0} f && /call .*@call_[a-z_]*\(/' "$tmp/out.ll" | wc -l)
  batched=$(awk '/^define .*@(_ZGV|__batchify)/{f=1} /^}/{f=0} f && /call .*@(__batchify|_ZGV)/' "$tmp/out.ll" | wc -l)
  echo "scalar helper calls in the clones: $scalar; calls of callee clones: $batched"
  "$CLANG" -O2 -c "$tmp/out.ll" -o "$tmp/out.o" 2>/dev/null
  "$CLANG" -O2 -mavx2 -w "$tmp/driver.c" "$tmp/out.o" -o "$tmp/bench"
  "$tmp/bench"
done
