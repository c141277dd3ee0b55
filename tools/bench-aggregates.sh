#!/usr/bin/env bash
# Quick timing of aggregates as structs of vectors (docs/benchmarks.md,
# "Aggregates"): builds tests/corpus/aggregates at -O2 (Rust and C), batches
# three of its functions as 8-lane AVX2 clones (`_ZGVdN8vv_<name>`) with each
# given batchify binary (default: target/debug/batchify), and times 4000 x
# 4096 elements through each clone against the scalar function called per
# element (a `noinline` call); prints the median of 5 runs in ns/element.
# Needs clang-22, rustc and an AVX2 CPU.
#
#   tools/bench-aggregates.sh [BATCHIFY ...]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
CLANG="${CLANG:-clang-22}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
bins=("$@")
[ ${#bins[@]} -eq 0 ] && bins=("$root/target/debug/batchify")

corpus="$root/tests/corpus/aggregates"
"${RUSTC:-rustc}" --edition 2021 --crate-type=lib --emit=llvm-bc -C opt-level=2 -C panic=abort \
  "$corpus/rust_aggregates.rs" -o "$tmp/r.bc"
"$CLANG" -O2 -fno-math-errno -c -emit-llvm "$corpus/aggregates.c" -o "$tmp/c.bc"
cat >"$tmp/driver.c" <<'CEOF'
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#ifndef T
#define T float
#endif
void bench(T *a, T *b, T *out, long n);
void bench_scalar(T *a, T *b, T *out, long n);
static double now(void) { struct timespec ts; clock_gettime(CLOCK_MONOTONIC, &ts); return ts.tv_sec + ts.tv_nsec * 1e-9; }
int main(int argc, char **argv) {
  long n = 4096, reps = 4000;
  T *a = aligned_alloc(64, n * sizeof(T)), *b = aligned_alloc(64, n * sizeof(T)), *o = aligned_alloc(64, n * sizeof(T));
  srand(42);
  for (long i = 0; i < n; i++) {
#ifdef INTS
    a[i] = (T)(rand() % 140000 - 70000); b[i] = (T)(rand() % 200000 - 100000);
#else
    a[i] = (T)(rand() / (double)RAND_MAX * 4.0 - 2.0); b[i] = (T)(rand() / (double)RAND_MAX * 4.0 - 2.0);
#endif
  }
  double best[2];
  for (int v = 0; v < 2; v++) {
    double t0 = now();
    for (long r = 0; r < reps; r++) (v ? bench_scalar : bench)(a, b, o, n);
    best[v] = (now() - t0) * 1e9 / (n * reps);
  }
  printf("%.3f %.3f\n", best[0], best[1]);
  return 0;
}
CEOF

# The timing loops, in IR: 8 elements per clone call, or one scalar call.
harness() { # name type variant
  local name=$1 ty=$2 variant=$3 v="<8 x $2>"
  cat <<HEOF
define void @bench(ptr %a, ptr %b, ptr %out, i64 %n) #77 {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %pa = getelementptr $ty, ptr %a, i64 %i
  %pb = getelementptr $ty, ptr %b, i64 %i
  %po = getelementptr $ty, ptr %out, i64 %i
  %va = load $v, ptr %pa, align 4
  %vb = load $v, ptr %pb, align 4
  %r = call $v @$variant($v %va, $v %vb)
  store $v %r, ptr %po, align 4
  %i.next = add i64 %i, 8
  %c = icmp ult i64 %i.next, %n
  br i1 %c, label %loop, label %exit
exit:
  ret void
}
define void @bench_scalar(ptr %a, ptr %b, ptr %out, i64 %n) #77 {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %pa = getelementptr $ty, ptr %a, i64 %i
  %pb = getelementptr $ty, ptr %b, i64 %i
  %po = getelementptr $ty, ptr %out, i64 %i
  %va = load $ty, ptr %pa, align 4
  %vb = load $ty, ptr %pb, align 4
  %r = call $ty @$name($ty %va, $ty %vb) #78
  store $ty %r, ptr %po, align 4
  %i.next = add i64 %i, 1
  %c = icmp ult i64 %i.next, %n
  br i1 %c, label %loop, label %exit
exit:
  ret void
}
attributes #77 = { "target-cpu"="x86-64-v3" }
attributes #78 = { noinline }
HEOF
}

median() { sort -n | sed -n 3p; }
for spec in "r.bc use_pair_rs float float" "r.bc poly_checked_rs i32 int -DINTS" "c.bc use_polar double double"; do
  read -r bc f ty ctype ints <<<"$spec"
  for bin in "${bins[@]}"; do
    "$bin" "$tmp/$bc" -S -o "$tmp/$f.ll" --variant "_ZGVdN8vv_$f"
    harness "$f" "$ty" "_ZGVdN8vv_$f" >>"$tmp/$f.ll"
    "$CLANG" -Wno-override-module -O2 -march=x86-64-v3 -DT="$ctype" ${ints:+"$ints"} "$tmp/driver.c" "$tmp/$f.ll" -o "$tmp/$f" -lm
    for _ in 1 2 3 4 5; do "$tmp/$f"; done >"$tmp/$f.txt"
    printf '%-16s %-40s clone %6s ns/elem   scalar calls %6s ns/elem\n' "$f" "$bin" \
      "$(awk '{print $1}' "$tmp/$f.txt" | median)" "$(awk '{print $2}' "$tmp/$f.txt" | median)"
  done
done
