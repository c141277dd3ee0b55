#!/usr/bin/env bash
# Compares what two batchify builds emit, to show that a change of the core
# leaves the output as it was (issue 23's output identity).
#
# Usage: tools/output-identity.sh OLD_BATCHIFY NEW_BATCHIFY [OUT_DIR]
#
# Inputs: every C file of tests/corpus/*/ (compiled once with clang-22 -O2,
# vectorizers off) and every .ll file of tests/corpus/ and lit-tests/. For
# each function defined in an input, both builds batch it as
# `--function NAME` at AVX2 x8 and at AVX-512 x16 (textual IR on stdout);
# their outputs, exit codes and error lines must be the same. Prints one
# line per difference and a summary, and exits 1 if anything differs.
set -uo pipefail
old=${1:?usage: tools/output-identity.sh OLD_BATCHIFY NEW_BATCHIFY [OUT_DIR]}
new=${2:?usage: tools/output-identity.sh OLD_BATCHIFY NEW_BATCHIFY [OUT_DIR]}
root=$(cd "$(dirname "$0")/.." && pwd)
out=${3:-$(mktemp -d)}
mkdir -p "$out/ir"
clang=${CLANG:-clang-22}

inputs=()
for c in "$root"/tests/corpus/*/*.c; do
    ll="$out/ir/$(basename "$(dirname "$c")")-$(basename "$c" .c).ll"
    if "$clang" -O2 -fno-vectorize -fno-slp-vectorize -fno-unroll-loops -fopenmp-simd -S -emit-llvm \
        -I"$(dirname "$c")" "$c" -o "$ll" 2>/dev/null; then
        inputs+=("$ll")
    fi
done
while IFS= read -r ll; do inputs+=("$ll"); done < <(find "$root/tests/corpus" "$root/lit-tests" -name '*.ll' | sort)

same=0
differ=0
for ll in "${inputs[@]}"; do
    # Defined functions: `define ... @name(`, quoted names included.
    mapfile -t names < <(grep -oE '^define [^@]*@("[^"]+"|[-a-zA-Z$._0-9]+)\(' "$ll" |
        sed -E 's/^define [^@]*@//; s/\($//; s/^"//; s/"$//')
    for name in "${names[@]}"; do
        for config in "avx2 8" "avx512 16"; do
            set -- $config
            args=(--function "$name" --isa "$1" -n "$2" -S -o -)
            a_out=$("$old" "$ll" "${args[@]}" 2>"$out/a.err"); a_rc=$?
            b_out=$("$new" "$ll" "${args[@]}" 2>"$out/b.err"); b_rc=$?
            if [[ $a_rc == "$b_rc" && "$a_out" == "$b_out" ]] && cmp -s "$out/a.err" "$out/b.err"; then
                same=$((same + 1))
            else
                differ=$((differ + 1))
                echo "DIFFERENT: ${ll#"$root"/} @$name $1 x$2 (exit $a_rc vs $b_rc)"
                diff <(printf '%s\n' "$a_out") <(printf '%s\n' "$b_out") | head -5
            fi
        done
    done
done
echo "output identity: $same same, $differ different, over ${#inputs[@]} modules"
[[ $differ == 0 ]]
