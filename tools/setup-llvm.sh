#!/usr/bin/env bash
# Checks for, and if need be installs, the LLVM 22 toolchain batchify builds
# and tests against (Debian/Ubuntu, apt). `cargo xtask setup` runs this
# script; it is also usable on its own, without cargo.
#
#   tools/setup-llvm.sh                 check; install what is missing (as root)
#   tools/setup-llvm.sh --check         check only; exit 1 if anything is missing
#   tools/setup-llvm.sh --print-prefix  print the LLVM 22 prefix and exit
#
# The prefix is what tools/llvm-prefix.sh prints (the one place that decides
# it: $LLVM_SYS_221_PREFIX, else `llvm-config-22 --prefix`, else
# /usr/lib/llvm-22).
# Needs: llvm-config, clang-22, opt-22, FileCheck, not, lit, libLLVM-22.so,
# the system libraries LLVM links against, and the AArch64 cross GCC and
# qemu-aarch64. If any is missing, as root it
# runs (otherwise it prints the command to run with sudo and exits 1):
#   dpkg --add-architecture arm64
#   apt-get update
#   DEBIAN_FRONTEND=noninteractive apt-get install -y llvm-22-dev clang-22 \
#       llvm-22-tools lld-22 libclang-rt-22-dev libz3-dev libzstd-dev libxml2-dev \
#       libffi-dev libedit-dev gcc-aarch64-linux-gnu libc6-dev-arm64-cross \
#       qemu-user libsleef-dev:arm64
# (libclang-rt-22-dev: the UBSan runtime of the corpus self-checks; lld-22:
# the ThinLTO links of the plugin tests; gcc-aarch64-linux-gnu,
# libc6-dev-arm64-cross and qemu-user: the AArch64 suite, cross-compiled and
# run under emulation; libsleef-dev:arm64, Debian's multiarch SLEEF, in
# /usr/lib/aarch64-linux-gnu: the `--veclib sleef` test.)
# The LLVM 22 packages must be available from the configured apt sources.
set -euo pipefail

PACKAGES=(llvm-22-dev clang-22 llvm-22-tools lld-22 libclang-rt-22-dev libz3-dev libzstd-dev libxml2-dev libffi-dev libedit-dev gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user libsleef-dev:arm64)
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

say() { printf 'setup-llvm: %s\n' "$*"; }
die() { printf 'setup-llvm: error: %s\n' "$*" >&2; exit 1; }

usage() {
    sed -n '2,25s/^# \{0,1\}//p' "$0"
}

# The LLVM 22 prefix, as tools/llvm-prefix.sh decides it.
llvm_prefix() {
    bash "$HERE/llvm-prefix.sh"
}

# Directories where the linker looks for the system libraries.
lib_dirs() {
    local arch
    arch=$(uname -m)
    printf '%s\n' "/usr/lib/$arch-linux-gnu" "/lib/$arch-linux-gnu" /usr/lib64 /usr/lib /lib64 /lib /usr/local/lib
}

have_lib() { # have_lib NAME: is libNAME.so (the link-time name) installed?
    local d
    while read -r d; do
        [[ -e $d/lib$1.so ]] && return 0
    done < <(lib_dirs)
    return 1
}

check() { # check WHAT PACKAGE COMMAND...: run COMMAND, record WHAT as missing if it fails
    local what=$1 pkg=$2
    shift 2
    if "$@" >/dev/null 2>&1; then
        printf '  ok       %s\n' "$what"
    else
        printf '  MISSING  %s  (package %s)\n' "$what" "$pkg"
        MISSING+=("$what")
    fi
}

MISSING=()
check_all() {
    local prefix
    prefix=$(llvm_prefix)
    MISSING=()
    say "checking for LLVM 22 in $prefix"
    check "llvm-config" llvm-22-dev \
        bash -c "[[ -x $prefix/bin/llvm-config ]] || command -v llvm-config-22"
    check "clang-22" clang-22 \
        bash -c "command -v clang-22 || [[ -x $prefix/bin/clang-22 ]]"
    check "opt-22" llvm-22 \
        bash -c "command -v opt-22 || [[ -x $prefix/bin/opt ]]"
    check "ld.lld-22" lld-22 bash -c "command -v ld.lld-22 || [[ -x $prefix/bin/ld.lld ]]"
    check "$prefix/bin/FileCheck" llvm-22-tools test -x "$prefix/bin/FileCheck"
    check "$prefix/bin/not" llvm-22-tools test -x "$prefix/bin/not"
    check "$prefix/bin/lit" llvm-22-tools test -x "$prefix/bin/lit"
    check "python3 (runs lit)" python3 command -v python3
    check "clang-22's UBSan runtime" libclang-rt-22-dev \
        bash -c "ls $prefix/lib/clang/22/lib/*/libclang_rt.ubsan_standalone*.a"
    check "$prefix/lib/libLLVM-22.so" llvm-22-dev \
        bash -c "[[ -e $prefix/lib/libLLVM-22.so || -e $prefix/lib/libLLVM.so ]]"
    check "aarch64-linux-gnu-gcc" gcc-aarch64-linux-gnu command -v aarch64-linux-gnu-gcc
    check "AArch64 libc (/usr/aarch64-linux-gnu)" libc6-dev-arm64-cross \
        test -e /usr/aarch64-linux-gnu/lib/libc.so.6
    check "qemu-aarch64" qemu-user command -v qemu-aarch64
    check "SLEEF for arm64 (/usr/lib/aarch64-linux-gnu/libsleefgnuabi.so)" libsleef-dev:arm64 \
        test -e /usr/lib/aarch64-linux-gnu/libsleefgnuabi.so
    local lib pkg
    for lib in z3:libz3-dev zstd:libzstd-dev xml2:libxml2-dev ffi:libffi-dev edit:libedit-dev; do
        pkg=${lib#*:}
        lib=${lib%%:*}
        check "lib$lib.so" "$pkg" have_lib "$lib"
    done
}

install_cmd() {
    printf 'dpkg --add-architecture arm64 && apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y %s' "${PACKAGES[*]}"
}

install_packages() {
    command -v apt-get >/dev/null 2>&1 \
        || die "apt-get not found: install LLVM 22 (${PACKAGES[*]}) with your system's package manager"
    # libsleef-dev:arm64 is a multiarch package: apt needs arm64's lists.
    if ! dpkg --print-foreign-architectures | grep -qx arm64; then
        say "running: dpkg --add-architecture arm64"
        dpkg --add-architecture arm64 || die "dpkg --add-architecture arm64 failed (see above)"
    fi
    say "running: apt-get update"
    apt-get update || die "apt-get update failed (see above)"
    say "running: DEBIAN_FRONTEND=noninteractive apt-get install -y ${PACKAGES[*]}"
    local log status=0
    log=$(mktemp)
    DEBIAN_FRONTEND=noninteractive apt-get install -y "${PACKAGES[@]}" 2>&1 | tee "$log" || status=$?
    if ((status != 0)); then
        local unknown
        unknown=$(sed -nE -e "s/^E: Unable to locate package (.*)$/\1/p" \
            -e "s/^E: Package '([^']+)' has no installation candidate$/\1/p" "$log" | tr '\n' ' ')
        if [[ -n $unknown ]]; then
            rm -f "$log"
            die "apt does not know these packages: ${unknown% }. The LLVM 22 packages (${PACKAGES[*]}) must be available from the configured apt sources (/etc/apt/sources.list, /etc/apt/sources.list.d/): add a source that provides LLVM 22 for this distribution, such as LLVM's own apt repository, then run this again."
        fi
        rm -f "$log"
        die "apt-get install failed (exit $status, see above)"
    fi
    rm -f "$log"
}

main() {
    local mode=install
    case ${1:-} in
        "") ;;
        --check) mode=check ;;
        --print-prefix) llvm_prefix; return 0 ;;
        -h | --help) usage; return 0 ;;
        *) die "unknown option: $1 (try --help)" ;;
    esac

    check_all
    if ((${#MISSING[@]} == 0)); then
        say "all present (LLVM prefix $(llvm_prefix))"
        return 0
    fi
    say "missing: ${MISSING[*]}"
    if [[ $mode == check ]]; then
        say "to install, run as root: $(install_cmd)"
        return 1
    fi
    if [[ $(id -u) != 0 ]]; then
        say "not running as root, so not installing. Run:"
        printf '\n    sudo dpkg --add-architecture arm64 && sudo apt-get update && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y %s\n\n' "${PACKAGES[*]}"
        say "(or: sudo $0), then run this again."
        return 1
    fi
    install_packages
    check_all
    if ((${#MISSING[@]} != 0)); then
        die "still missing after apt-get install: ${MISSING[*]}"
    fi
    say "all present (LLVM prefix $(llvm_prefix))"
}

main "$@"
