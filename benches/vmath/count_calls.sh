#!/usr/bin/env bash
# Per-lane calls in the AVX2 clones of the math corpus (docs/benchmarks.md,
# "Exact math"): for each input, the "per-lane" count that `--report` gives
# (instructions run once per lane in the IR), and the `call`s and integer
# `div`/`idiv`s in the clones' machine code after `llc -O2` (where a vector
# `frem`, `llvm.ldexp` or `llvm.exp` becomes one libm call per lane, and a
# vector `sdiv` one `idiv` per lane). BATCHIFY selects the binary,
# so that an older build can be measured the same way.
# Usage: benches/vmath/count_calls.sh   (after `cargo build`)
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$HERE/../.."
BIN="${BATCHIFY:-$ROOT/target/debug/batchify}"
LLVM="$("$ROOT/tools/llvm-prefix.sh")/bin"
T="$(mktemp -d)"; trap 'rm -rf "$T"' EXIT
"$LLVM/clang" -O2 -fno-math-errno -S -emit-llvm -o "$T/math.ll" "$ROOT/tests/corpus/divergent/math.c"
"$LLVM/clang" -O2 -S -emit-llvm -o "$T/math_errno.ll" "$ROOT/tests/corpus/divergent/math.c"
rustc --edition 2021 --crate-type=lib -C opt-level=2 --emit=llvm-ir -o "$T/rust_math.ll" \
  "$ROOT/tests/corpus/divergent/rust_math.rs"
cp "$ROOT/tests/corpus/real/libm_calls.ll" "$T/libm_calls.ll"
for f in math math_errno rust_math libm_calls; do
  fns=$(grep -oE '^define [^@]*@[A-Za-z0-9_]+' "$T/$f.ll" | sed 's/.*@//' | grep -v '^my_floorf$')
  args=(); for g in $fns; do args+=(--function "$g"); done
  "$BIN" "$T/$f.ll" -o "$T/$f.out.ll" -S --isa avx2 --report "${args[@]}" 2> "$T/$f.report"
  per_lane=$(grep -oE '[0-9]+ per-lane' "$T/$f.report" | awk '{s += $1} END {print s + 0}')
  "$LLVM/llc" -O2 "$T/$f.out.ll" -o "$T/$f.s"
  calls=$(awk '/^_ZGV[A-Za-z0-9_]*:/ { f = 1; next } /^[A-Za-z_.][A-Za-z0-9_.]*:/ && !/^\.L/ { f = 0 } f && (/^\tcallq?\t/ || /^\tjmpq?\t[A-Za-z_]/)' "$T/$f.s" | wc -l)
  divs=$(awk '/^_ZGV[A-Za-z0-9_]*:/ { f = 1; next } /^[A-Za-z_.][A-Za-z0-9_.]*:/ && !/^\.L/ { f = 0 } f && /^\ti?div[bwlq]?\t/' "$T/$f.s" | wc -l)
  printf '%-12s %3d clones  %3d per-lane instructions  %4d calls, %3d div/idiv in the clones'"'"' machine code\n' \
    "$f" "$(echo "$fns" | wc -w)" "$per_lane" "$calls" "$divs"
done
