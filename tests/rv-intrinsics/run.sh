#!/bin/sh
# RV's ten intrinsic whole-function tests (kernels.c, kernels64.c), batched
# by batchify at 8 lanes (AVX2) and, where the CPU has AVX-512F, 16 lanes
# (AVX-512), and checked by driver.c. Fetches nothing.
# Usage: run.sh BATCHIFY_BINARY [WORKDIR]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
batchify=$1
work=${2:-$(mktemp -d)}
clang=${CLANG:-clang-22}
variants() { # isa letter, lanes
  for v in uu_t007 uv_t022 vv_t036 vv_t046 vv_t047 vv_t071 vv_t077 vv_t078 vv_rot vv_idx; do
    printf ' --variant _ZGV%sN%s%s' "$1" "$2" "$v"
  done
}
widths="8:d:-mavx2"
if grep -qw avx512f /proc/cpuinfo; then widths="$widths 16:e:-mavx512f"; else echo "run.sh: SKIPPED 16 lanes: the CPU has no AVX-512F"; fi
for w in $widths; do
  n=${w%%:*}; rest=${w#*:}; isa=${rest%%:*}; flag=${rest#*:}
  "$clang" -O2 -c -emit-llvm "$here/kernels.c" -o "$work/k.bc"
  "$clang" -O2 -c -emit-llvm "$here/kernels64.c" -o "$work/k64.bc"
  # shellcheck disable=SC2046
  "$batchify" "$work/k.bc" -o "$work/k-$n.bc" $(variants "$isa" "$n") --variant "_ZGV${isa}N${n}uvu_t084"
  "$batchify" "$work/k64.bc" -o "$work/k64-$n.bc" --variant "_ZGV${isa}N${n}vv_t079" --map
  "$clang" -O2 -ffp-contract=off "$flag" -DN="$n" "$here/driver.c" "$here/one_lane.c" "$work/k-$n.bc" "$work/k64-$n.bc" -o "$work/driver-$n" -lm
  "$work/driver-$n" 1
done
