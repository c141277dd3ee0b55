#!/bin/sh
# Builds kernels.c, batches keep, settle and settle_all with maps at 8 AVX2
# lanes (and 16 AVX-512 lanes where the CPU has AVX-512F), and times them
# against scalar calls (main.c). Usage: sh run.sh [BATCHIFY]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
batchify=${1:-$root/target/release/batchify}
clang=${CLANG:-clang-22}
work=$(mktemp -d)
configs="d:8:avx2"
grep -qw avx512f /proc/cpuinfo && configs="$configs e:16:avx512"
for c in $configs; do
  isa=${c%%:*}; rest=${c#*:}; n=${rest%%:*}; name=${rest#*:}
  "$clang" -O2 -march=native -I"$root/include" -c -emit-llvm "$here/kernels.c" -o "$work/k.bc"
  "$batchify" "$work/k.bc" -o "$work/k-$n.bc" --map \
    --variant "_ZGV${isa}N${n}vv_keep" --variant "_ZGV${isa}N${n}vv_settle" --variant "_ZGV${isa}N${n}vv_settle_all"
  "$clang" -O2 -march=native -DLANES="\"$name x$n\"" "$here/main.c" "$work/k-$n.bc" -o "$work/bench-$n" -lm
  "$work/bench-$n"
done
rm -rf "$work"
