//! The execution oracle over the corpora with the clones built for
//! automatic differentiation (`Options::for_autodiff`, `--for-autodiff`):
//! held loop-carried values, per-lane exit blends and per-element scalar
//! memory accesses must keep every clone bit-identical to N scalar calls
//! (results and every buffer byte), unmasked and with random masks, C at
//! `-O2` and `-O0` + mem2reg, Rust at `opt-level` 2, IR as written
//! (corpora divergent, memory, vector_input, aggregates, callees,
//! regressions and uniform).

use batchify_core::vfabi::Isa;
use batchify_core::Options;
use batchify_testkit::corpus::{corpus_options, run_corpus_with, CLevel, CorpusRun};
use std::path::{Path, PathBuf};

fn corpus_dir(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus").join(name)
}

fn autodiff() -> Options {
    Options { for_autodiff: true, ..corpus_options() }
}

/// Checks `dir` unmasked and masked at `widths`; at least `min` clones.
fn check(dir: &str, exts: &[&str], levels: &[CLevel], widths: &[u32], isa: Isa, min: usize) {
    let mut n = 0;
    for masked in [false, true] {
        let run = CorpusRun { widths, masked, isa, trials: 40 };
        match run_corpus_with(&corpus_dir(dir), exts, levels, run, &autodiff()) {
            Ok(k) => n += k,
            Err(e) => panic!("{dir} masked={masked}: {e}"),
        }
    }
    assert!(n >= min, "{dir}: too few functions checked: {n} < {min}");
    eprintln!("autodiff_corpus: {dir}: {n} clones checked");
}

#[test]
fn divergent_c() {
    check("divergent", &["c"], &[CLevel::O2, CLevel::O0Mem2Reg], &[4, 8], Isa::Llvm, 4 * 2 * 50);
}

#[test]
fn divergent_rust() {
    check("divergent", &["rs"], &[CLevel::RustO2], &[8], Isa::Llvm, 2 * 25);
}

#[test]
fn memory_c_and_rust() {
    check("memory", &["c"], &[CLevel::O2, CLevel::O0Mem2Reg], &[4, 16], Isa::Llvm, 4 * 2 * 10);
    check("memory", &["rs"], &[CLevel::RustO2], &[8], Isa::Llvm, 2 * 5);
    check("vector_input", &["c", "ll"], &[CLevel::O2], &[4], Isa::Llvm, 2);
}

#[test]
fn aggregates_callees_and_regressions() {
    check("aggregates", &["c", "ll"], &[CLevel::O2], &[4, 8], Isa::Llvm, 2 * 2 * 11);
    check("callees", &["ll"], &[CLevel::O2], &[8], Isa::Llvm, 2);
    check("regressions", &["ll"], &[CLevel::O2], &[4, 8], Isa::Llvm, 2 * 2);
}

#[test]
fn uniform() {
    check("uniform", &["c", "ll"], &[CLevel::O2], &[4, 8], Isa::Llvm, 2 * 2 * 80);
}

/// x86 clones (full-width lane masks, GCC's mask parameter) where the CPU
/// has the ISA.
#[test]
fn x86_avx2() {
    if !batchify_testkit::skip::require_cpu("autodiff_corpus::x86_avx2", "avx2") {
        return;
    }
    check("divergent", &["c"], &[CLevel::O2], &[8], Isa::Avx2, 2 * 50);
    check("memory", &["c"], &[CLevel::O2], &[8], Isa::Avx2, 2 * 10);
}
