//! Oracle tests over the memory corpus (`tests/corpus/memory`: loads and
//! stores at uniform, contiguous, reversed, strided and random addresses)
//! and the already-vectorized corpus (`tests/corpus/vector_input`),
//! C at `-O2` and at `-O0` + mem2reg, Rust at `opt-level` 1 and 2, batched at
//! N = 4, 8, 16, unmasked and with random masks, target-independent and for
//! the host's x86 ISAs, checked bit for bit (results and every buffer byte)
//! against N scalar calls. Buffers end right before an inaccessible page.

use batchify_core::vfabi::Isa;
use batchify_testkit::corpus::{run_corpus, CLevel, CorpusRun};
use std::path::{Path, PathBuf};

fn corpus_dir(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus").join(name)
}

fn check_dir(dir: &str, exts: &[&str], levels: &[CLevel], widths: &[u32], masked: bool, isa: Isa, min: usize) {
    let run = CorpusRun { widths, masked, isa, trials: 60 };
    match run_corpus(&corpus_dir(dir), exts, levels, run) {
        Ok(n) => assert!(n >= min, "too few functions checked: {n} < {min}"),
        Err(e) => panic!("{e}"),
    }
}

fn check(exts: &[&str], levels: &[CLevel], widths: &[u32], masked: bool, isa: Isa, min: usize) {
    check_dir("memory", exts, levels, widths, masked, isa, min);
}

#[test]
fn vector_input_c_and_rust() {
    for masked in [false, true] {
        check_dir("vector_input", &["c"], &[CLevel::O2, CLevel::O0Mem2Reg], &[4, 8, 16], masked, Isa::Llvm, 6 * 9);
        check_dir("vector_input", &["rs"], &[CLevel::RustO1, CLevel::RustO2], &[4, 8, 16], masked, Isa::Llvm, 6 * 4);
    }
    if batchify_testkit::skip::require_cpu("vector_input x86 avx2", "avx2") {
        check_dir("vector_input", &["c"], &[CLevel::O2], &[8], true, Isa::Avx2, 9);
        check_dir("vector_input", &["rs"], &[CLevel::RustO2], &[8], true, Isa::Avx2, 4);
    }
}

#[test]
fn c_unmasked_and_masked() {
    check(&["c"], &[CLevel::O2, CLevel::O0Mem2Reg], &[4, 8, 16], false, Isa::Llvm, 6 * 25);
    check(&["c"], &[CLevel::O2, CLevel::O0Mem2Reg], &[4, 8, 16], true, Isa::Llvm, 6 * 25);
}

/// Hand-written IR (`tape_cache.ll`: Enzyme's cache shape, one buffer the
/// lanes share; `lit-tests/transform/tape.ll` checks that form).
#[test]
fn ir_unmasked_and_masked() {
    for masked in [false, true] {
        check(&["ll"], &[CLevel::O2], &[4, 8, 16], masked, Isa::Llvm, 3);
    }
    if batchify_testkit::skip::require_cpu("memory ir avx2", "avx2") {
        check(&["ll"], &[CLevel::O2], &[8], true, Isa::Avx2, 1);
    }
}

#[test]
fn rust_unmasked_and_masked() {
    check(&["rs"], &[CLevel::RustO1, CLevel::RustO2], &[4, 8, 16], false, Isa::Llvm, 6 * 6);
    check(&["rs"], &[CLevel::RustO2], &[8], true, Isa::Llvm, 6);
}

/// x86 variants (GCC's mask parameter); each runs only where the CPU has the ISA.
#[test]
fn x86_isas_masked() {
    let isas = [(Isa::Sse2, 4, "sse2"), (Isa::Avx2, 8, "avx2"), (Isa::Avx512, 16, "avx512f")];
    for (isa, width, feature) in isas {
        if !batchify_testkit::skip::require_cpu("memory x86_isas_masked", feature) {
            continue;
        }
        check(&["c"], &[CLevel::O2], &[width], true, isa, 25);
        check(&["rs"], &[CLevel::RustO2], &[width], true, isa, 6);
    }
}

/// Constant tables of one to four registers (`tests/corpus/tables`): the
/// permute forms at fewer lanes than a register, one register's lanes and
/// several registers' lanes, masked and unmasked, on each ISA that has them
/// (the shapes are in `lit-tests/transform/table-permute.ll`).
#[test]
fn x86_constant_tables() {
    let isas = [(Isa::Avx2, [4, 8, 16], "avx2"), (Isa::Avx512, [8, 16, 32], "avx512f")];
    for (isa, widths, feature) in isas {
        if !batchify_testkit::skip::require_cpu("memory x86_constant_tables", feature) {
            continue;
        }
        for masked in [false, true] {
            check_dir("tables", &["c"], &[CLevel::O2], &widths, masked, isa, 3 * 5);
        }
    }
}
