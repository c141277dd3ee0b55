//! Link-only crate: depending on it makes the final artifact link Debian's
//! `libLLVM-22`. See the workspace root `build.rs` for how LLVM is found.
//! Its one item is the LLVM prefix that `build.rs` got from
//! `tools/llvm-prefix.sh` (the one place that decides it), for Rust code
//! that runs LLVM's tools. `inkwell` and `llvm-sys` are built with
//! `no-llvm-linking` everywhere so that a pass plugin (which must bind to its
//! host's LLVM) can live in the same workspace.

use std::path::{Path, PathBuf};

/// The LLVM 22 prefix this build links against (`/usr/lib/llvm-22` on
/// Debian), as `tools/llvm-prefix.sh` printed it at build time.
pub const LLVM_PREFIX: &str = env!("BATCHIFY_LLVM_PREFIX");

/// `LLVM_PREFIX/bin/NAME` if it exists, else `NAME` (found through `PATH`).
pub fn llvm_tool(name: &str) -> PathBuf {
    let p = Path::new(LLVM_PREFIX).join("bin").join(name);
    if p.exists() {
        p
    } else {
        PathBuf::from(name)
    }
}
