//! Finds LLVM 22 and emits the link flags for `libLLVM-22`.
//!
//! Search order: `LLVM_SYS_221_PREFIX`, then `llvm-config-22 --prefix`, then
//! `/usr/lib/llvm-22`. A missing LLVM stops the build with one line saying
//! what to install.
use std::path::PathBuf;
use std::process::Command;

fn llvm_prefix() -> Option<PathBuf> {
    if let Ok(p) = std::env::var("LLVM_SYS_221_PREFIX") {
        return Some(PathBuf::from(p));
    }
    if let Ok(out) = Command::new("llvm-config-22").arg("--prefix").output() {
        if out.status.success() {
            return Some(PathBuf::from(String::from_utf8_lossy(&out.stdout).trim()));
        }
    }
    let default = PathBuf::from("/usr/lib/llvm-22");
    default.exists().then_some(default)
}

fn main() {
    println!("cargo:rerun-if-env-changed=LLVM_SYS_221_PREFIX");
    let Some(prefix) = llvm_prefix() else {
        panic!("LLVM 22 not found: run `cargo xtask setup` (or `apt-get install llvm-22-dev clang-22 llvm-22-tools`)");
    };
    let lib = prefix.join("lib");
    if !lib.join("libLLVM-22.so").exists() && !lib.join("libLLVM.so").exists() {
        panic!("libLLVM-22.so not found under {}: install llvm-22-dev", lib.display());
    }
    println!("cargo:rustc-link-search=native={}", lib.display());
    println!("cargo:rustc-link-lib=dylib=LLVM-22");
}
