//! `cargo xtask fuzz [--count N] [...]`: the random-program fuzzer, built in
//! release mode. Every argument goes to `batchify-fuzz` (see its `--help`);
//! it prints `N programs, M mismatches, K invalid IR` and exits non-zero on
//! any mismatch or invalid IR.

use crate::setup;
use crate::util;

pub fn run(args: &[String]) -> Result<(), String> {
    let env = setup::ensure(true)?;
    util::header("fuzz: build batchify-fuzz (release)");
    util::run(&mut env.cargo(&["build", "--release", "-p", "batchify-testkit", "--bin", "batchify-fuzz"]))?;
    util::header("fuzz: run");
    let bin = util::target_dir().join("release").join("batchify-fuzz");
    let mut cmd = std::process::Command::new(bin);
    cmd.args(args);
    util::run(&mut cmd)
}
