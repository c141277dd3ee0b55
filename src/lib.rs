//! Link-only crate: depending on it makes the final artifact link Debian's
//! `libLLVM-22`. See the workspace root `build.rs` for how LLVM is found.
//! It has no code; `inkwell` and `llvm-sys` are built with `no-llvm-linking`
//! everywhere so that a pass plugin (which must bind to its host's LLVM) can
//! live in the same workspace.
