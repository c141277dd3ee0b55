//! `cargo xtask judge-cost [--count N] [--seed S] [...]`: the cost model's
//! choice against measurement on random programs, built in release mode.
//! Every argument goes to `batchify-judge-cost` (see its `--help`); it
//! prints the table of chosen x faster form, the share within 10% of the
//! faster form, the worst ratios with their cost notes and the skips.

use crate::setup;
use crate::util;

pub fn run(args: &[String]) -> Result<(), String> {
    let env = setup::ensure(true)?;
    util::header("judge-cost: build batchify-judge-cost (release)");
    util::run(&mut env.cargo(&["build", "--release", "-p", "batchify-testkit", "--bin", "batchify-judge-cost"]))?;
    util::header("judge-cost: run");
    let bin = util::target_dir().join("release").join("batchify-judge-cost");
    let mut cmd = std::process::Command::new(bin);
    cmd.args(args);
    util::run(&mut cmd)
}
