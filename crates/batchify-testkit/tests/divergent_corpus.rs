//! Oracle tests over the divergent-control-flow corpus
//! (`tests/corpus/divergent`): C at `-O2` and at `-O0` + mem2reg, Rust at
//! `opt-level` 1 and 2, batched at N = 4, 8, 16, unmasked and with random
//! masks, checked bit for bit against N scalar calls.

use batchify_testkit::corpus::{run_corpus, CLevel};
use std::path::{Path, PathBuf};

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus/divergent")
}

fn check(exts: &[&str], levels: &[CLevel], masked: bool, min: usize) {
    match run_corpus(&corpus_dir(), exts, levels, &[4, 8, 16], masked, 60) {
        Ok(n) => assert!(n >= min, "too few functions checked: {n} < {min}"),
        Err(e) => panic!("{e}"),
    }
}

#[test]
fn c_at_o2() {
    check(&["c"], &[CLevel::O2], false, 3 * 30);
}

#[test]
fn c_at_o0_mem2reg() {
    check(&["c"], &[CLevel::O0Mem2Reg], false, 3 * 30);
}

#[test]
fn c_masked() {
    check(&["c"], &[CLevel::O2, CLevel::O0Mem2Reg], true, 3 * 60);
}

#[test]
fn rust_unmasked_and_masked() {
    check(&["rs"], &[CLevel::RustO1, CLevel::RustO2], false, 3 * 20);
    check(&["rs"], &[CLevel::RustO2], true, 3 * 10);
}
