//! Finds LLVM 22 and emits the link flags for `libLLVM-22`.
//!
//! The prefix comes from `tools/llvm-prefix.sh`, the one place that decides
//! it (its header gives the rule: `LLVM_SYS_221_PREFIX`, then
//! `llvm-config-22 --prefix`, then `/usr/lib/llvm-22`). The answer is also
//! handed to the crate as `BATCHIFY_LLVM_PREFIX`, for
//! `batchify_llvm_link::LLVM_PREFIX`. A missing LLVM stops the build with one
//! line saying what to install.
use std::path::{Path, PathBuf};
use std::process::Command;

fn llvm_prefix() -> PathBuf {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tools").join("llvm-prefix.sh");
    let out =
        Command::new("bash").arg(&script).output().unwrap_or_else(|e| panic!("cannot run {}: {e}", script.display()));
    let prefix = String::from_utf8_lossy(&out.stdout).trim().to_string();
    if !out.status.success() || prefix.is_empty() {
        panic!("{} printed no LLVM prefix: {}", script.display(), String::from_utf8_lossy(&out.stderr).trim());
    }
    PathBuf::from(prefix)
}

fn main() {
    println!("cargo:rerun-if-env-changed=LLVM_SYS_221_PREFIX");
    println!("cargo:rerun-if-changed=tools/llvm-prefix.sh");
    let prefix = llvm_prefix();
    let lib = prefix.join("lib");
    if !lib.join("libLLVM-22.so").exists() && !lib.join("libLLVM.so").exists() {
        panic!(
            "LLVM 22 not found (no libLLVM-22.so under {}): run `cargo xtask setup` (or `apt-get install llvm-22-dev \
             clang-22 llvm-22-tools`)",
            lib.display()
        );
    }
    println!("cargo:rustc-link-search=native={}", lib.display());
    println!("cargo:rustc-link-lib=dylib=LLVM-22");
    println!("cargo:rustc-env=BATCHIFY_LLVM_PREFIX={}", prefix.display());
}
