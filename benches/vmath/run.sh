#!/usr/bin/env bash
# Exact-math benchmark (docs/benchmarks.md, "Exact math"): the fmodf/fmod
# and i32 division clones batchify builds now against the per-lane forms it
# built before (before.ll), AVX2, 2^20 elements. Needs an AVX2 CPU.
# Usage: benches/vmath/run.sh   (after `cargo build`)
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$HERE/../.."
BIN="${BATCHIFY:-$ROOT/target/debug/batchify}"
LLVM="$("$ROOT/tools/llvm-prefix.sh")/bin"
T="$(mktemp -d)"; trap 'rm -rf "$T"' EXIT
"$LLVM/clang" -O2 -fno-math-errno -S -emit-llvm -o "$T/k.ll" "$HERE/kernels.c"
"$BIN" "$T/k.ll" -o "$T/new.ll" -S --report \
  --variant _ZGVdN8vv_fm --variant _ZGVdN4vv_fmd --variant _ZGVdN8vv_sdiv32 --variant _ZGVdN8vv_urem32
for f in new before; do
  src="$T/new.ll"; [ "$f" = before ] && src="$HERE/before.ll"
  "$LLVM/clang" -O2 -mavx2 -mfma -Wno-override-module -c -o "$T/$f.o" "$src"
done
# fmodf/fmod calls inside the clones' machine code (not the scalar kernels).
calls() { objdump -dr "$1" | awk '/^[0-9a-f]+ <.*>:$/ { in_clone = ($2 ~ /^<(_ZGV|old_)/) } in_clone && /R_X86_64_PLT32.*fmod/' | wc -l; }
echo "fmodf/fmod calls in the clones: before $(calls "$T/before.o"), after $(calls "$T/new.o")"
"$LLVM/clang" -O2 -mavx2 -o "$T/bench" "$HERE/driver.c" "$T/new.o" "$T/before.o" -lm
"$T/bench"
