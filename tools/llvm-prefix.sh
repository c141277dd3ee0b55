#!/usr/bin/env bash
# Prints the LLVM 22 prefix batchify builds, links and tests against: the one
# place that decides it. Everything else asks this script: build.rs (which
# passes the answer on to the Rust crates as `batchify_llvm_link::LLVM_PREFIX`),
# tools/setup-llvm.sh, xtask and lit-tests/lit.cfg.py.
#
# The rule, first match wins:
#   1. $LLVM_SYS_221_PREFIX, if set and not empty (the variable llvm-sys reads);
#   2. `llvm-config-22 --prefix`, if llvm-config-22 runs (Debian/Ubuntu's
#      llvm-22 package puts it on PATH; llvm-sys finds it there too);
#   3. /usr/lib/llvm-22 (Debian's prefix), whether or not it exists yet.
#
# It prints the prefix and exits 0; whether LLVM is really installed there is
# tools/setup-llvm.sh's business.
set -euo pipefail

if [[ -n ${LLVM_SYS_221_PREFIX:-} ]]; then
    printf '%s\n' "$LLVM_SYS_221_PREFIX"
elif prefix=$(llvm-config-22 --prefix 2>/dev/null) && [[ -n $prefix ]]; then
    printf '%s\n' "$prefix"
else
    printf '%s\n' /usr/lib/llvm-22
fi
