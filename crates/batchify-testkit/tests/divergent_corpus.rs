//! Oracle tests over the divergent-control-flow corpus
//! (`tests/corpus/divergent`): C at `-O2` and at `-O0` + mem2reg, Rust at
//! `opt-level` 1 and 2, batched at N = 4, 8, 16, unmasked and with random
//! masks, target-independent and for the host's x86 ISAs (GCC's mask ABI),
//! checked bit for bit against N scalar calls.

use batchify_core::vfabi::Isa;
use batchify_testkit::corpus::{run_corpus, CLevel, CorpusRun};
use std::path::{Path, PathBuf};

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus/divergent")
}

fn check(exts: &[&str], levels: &[CLevel], widths: &[u32], masked: bool, isa: Isa, min: usize) {
    let run = CorpusRun { widths, masked, isa, trials: 60 };
    match run_corpus(&corpus_dir(), exts, levels, run) {
        Ok(n) => assert!(n >= min, "too few functions checked: {n} < {min}"),
        Err(e) => panic!("{e}"),
    }
}

#[test]
fn c_at_o2() {
    check(&["c"], &[CLevel::O2], &[4, 8, 16], false, Isa::Llvm, 3 * 50);
}

#[test]
fn c_at_o0_mem2reg() {
    check(&["c"], &[CLevel::O0Mem2Reg], &[4, 8, 16], false, Isa::Llvm, 3 * 50);
}

#[test]
fn c_masked() {
    check(&["c"], &[CLevel::O2, CLevel::O0Mem2Reg], &[4, 8, 16], true, Isa::Llvm, 6 * 50);
}

#[test]
fn rust_unmasked_and_masked() {
    check(&["rs"], &[CLevel::RustO1, CLevel::RustO2], &[4, 8, 16], false, Isa::Llvm, 6 * 25);
    check(&["rs"], &[CLevel::RustO2], &[8], true, Isa::Llvm, 25);
}

/// x86 variants use full-width lane masks in their loops and GCC's mask
/// parameter; each runs only where the CPU has the ISA.
#[test]
fn x86_isas_masked() {
    let isas = [(Isa::Sse2, 4, "sse2"), (Isa::Avx2, 8, "avx2"), (Isa::Avx512, 16, "avx512f")];
    for (isa, width, feature) in isas {
        if !batchify_testkit::skip::require_cpu("x86_isas_masked", feature) {
            continue;
        }
        check(&["c"], &[CLevel::O2], &[width], true, isa, 50);
        check(&["rs"], &[CLevel::RustO2], &[width], false, isa, 25);
    }
}
