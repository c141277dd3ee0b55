//! `cargo xtask sweep [--quick] [--jobs N] [--out DIR] [...]`: the real-code
//! sweep (see `docs/sweep.md`). Builds `batchify-sweep` in release mode and
//! runs it with every argument: it fetches zlib and lz4 (bundled in the
//! `libz-sys` and `lz4-sys` crates), newlib's libm (Debian's
//! `newlib-source`) and pure-Rust crates from crates.io, compiles them to
//! bitcode under `target/sweep/`, batches every defined function at AVX2 ×8
//! and AVX-512 ×16, masked and unmasked, checks the clones with the oracle,
//! writes `target/sweep/report.md` and `target/sweep/runs.jsonl`, and fails
//! on any internal error, panic, crash, invalid IR, clone without a body or
//! oracle mismatch. `--quick` is the bounded subset (zlib at -O2 and three
//! small Rust crates; about 600 runs).

use crate::setup;
use crate::util;

pub fn run(args: &[String]) -> Result<(), String> {
    let env = setup::ensure(true)?;
    util::header("sweep: build batchify-sweep (release)");
    util::run(&mut env.cargo(&["build", "--release", "-p", "batchify-testkit", "--bin", "batchify-sweep"]))?;
    util::header("sweep: run");
    let bin = util::target_dir().join("release").join("batchify-sweep");
    let mut cmd = std::process::Command::new(bin);
    cmd.args(args).current_dir(util::root()).env("LLVM_SYS_221_PREFIX", &env.llvm_prefix);
    if !args.iter().any(|a| a == "--out") {
        cmd.arg("--out").arg(util::target_dir().join("sweep"));
    }
    util::run(&mut cmd)
}
