#!/usr/bin/env bash
# The front-door benchmarks of docs/benchmarks.md ("Callers the way people
# write them"): each program times its `omp simd` loop calling batchify's
# variants against the same loop over a scalar copy of the function, in one
# process (median of 11 repetitions, min and max), and prints the speed-up.
# Usage: benches/front-doors/run.sh [PLUGIN] [RUNS]  (default: the debug
# plugin of this checkout, 5 runs of each program).
set -euo pipefail
cd "$(dirname "$0")"
root=$(cd ../.. && pwd)
plugin=${1:-$root/target/debug/libbatchify_plugin.so}
runs=${2:-5}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
flags=(-O2 -fopenmp-simd -march=x86-64-v3 -fpass-plugin="$plugin")
clang-22 "${flags[@]}" same_tu_bench.c -o "$out/same_tu"
clang++-22 "${flags[@]}" cxx_invoke_bench.cpp "$root/tests/front-doors/cxx_invoke/kernel.cpp" -o "$out/cxx_invoke"
clang-22 "${flags[@]}" -flto=thin -fuse-ld=lld -DF_ELSEWHERE same_tu_bench.c "$root/tests/front-doors/thinlto/kernel.c" -o "$out/thinlto"
clang-22 "${flags[@]}" refused_loop_bench.c "$root/tests/front-doors/refused_loops/kernels.c" -o "$out/refused_loop"
for prog in same_tu cxx_invoke thinlto refused_loop; do
    for ((r = 0; r < runs; r++)); do
        printf '%-11s run %d: %s\n' "$prog" "$r" "$("$out/$prog" | tr -s '\n ' '  ')"
    done
done
