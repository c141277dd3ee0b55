//! Oracle tests over the uniform-control-flow corpus (`tests/corpus/uniform`):
//! every function of every file, as C at `-O2` and at `-O0` + mem2reg and as
//! hand-written `.ll`, batched at N = 2, 4, 8, 16 and checked bit for bit
//! against N scalar calls.

use batchify_core::vfabi::Isa;
use batchify_testkit::corpus::{run_corpus, CLevel, CorpusRun};
use std::path::{Path, PathBuf};

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus/uniform")
}

fn check(exts: &[&str], levels: &[CLevel], masked: bool, min: usize) {
    let run = CorpusRun { widths: &[2, 4, 8, 16], masked, isa: Isa::Llvm, trials: 100 };
    match run_corpus(&corpus_dir(), exts, levels, run) {
        Ok(n) => assert!(n >= min, "too few functions checked: {n} < {min}"),
        Err(e) => panic!("{e}"),
    }
}

#[test]
fn c_corpus_at_o2_and_o0() {
    check(&["c"], &[CLevel::O2, CLevel::O0Mem2Reg], false, 4 * 120);
}

#[test]
fn ll_corpus() {
    check(&["ll"], &[CLevel::O2], false, 4 * 12);
}

#[test]
fn c_corpus_masked() {
    check(&["c"], &[CLevel::O2], true, 4 * 60);
}
