//! Oracle tests over the aggregates corpus (`tests/corpus/aggregates`:
//! structs and tuples returned by value, built under divergent branches,
//! carried through loops, returned by batched helpers; overflow-checking
//! intrinsics; nested structs and arrays written in IR), C at `-O2` and at
//! `-O0` + mem2reg, Rust at `opt-level` 1 and 2, IR as written, batched at
//! N = 4, 8, 16, unmasked and with random masks, target-independent and
//! for the host's x86 ISAs, checked bit for bit against N scalar calls.

use batchify_core::vfabi::Isa;
use batchify_testkit::corpus::{run_corpus, CLevel, CorpusRun};
use std::path::{Path, PathBuf};

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus/aggregates")
}

fn check(exts: &[&str], levels: &[CLevel], widths: &[u32], masked: bool, isa: Isa, min: usize) {
    let run = CorpusRun { widths, masked, isa, trials: 60 };
    match run_corpus(&corpus_dir(), exts, levels, run) {
        Ok(n) => assert!(n >= min, "too few functions checked: {n} < {min}"),
        Err(e) => panic!("{e}"),
    }
}

#[test]
fn c_unmasked_and_masked() {
    for masked in [false, true] {
        check(&["c"], &[CLevel::O2, CLevel::O0Mem2Reg], &[4, 8, 16], masked, Isa::Llvm, 6 * 11);
    }
}

#[test]
fn rust_unmasked_and_masked() {
    for masked in [false, true] {
        check(&["rs"], &[CLevel::RustO1, CLevel::RustO2], &[4, 8, 16], masked, Isa::Llvm, 6 * 7);
    }
}

#[test]
fn ir_unmasked_and_masked() {
    for masked in [false, true] {
        check(&["ll"], &[CLevel::O2], &[4, 8, 16], masked, Isa::Llvm, 3 * 7);
    }
}

/// x86 variants (GCC's mask parameter); each runs only where the CPU has the ISA.
#[test]
fn x86_isas_masked() {
    let isas = [(Isa::Sse2, 4, "sse2"), (Isa::Avx2, 8, "avx2"), (Isa::Avx512, 16, "avx512f")];
    for (isa, width, feature) in isas {
        if !batchify_testkit::skip::require_cpu("aggregates x86_isas_masked", feature) {
            continue;
        }
        check(&["c"], &[CLevel::O2], &[width], true, isa, 11);
        check(&["rs"], &[CLevel::RustO2], &[width], true, isa, 7);
        check(&["ll"], &[CLevel::O2], &[width], true, isa, 7);
    }
}
