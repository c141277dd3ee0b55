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

/// The memory and divergent corpora's clones, masked and unmasked, call no
/// masked load, store, gather or scatter (Enzyme cannot differentiate
/// them; `docs/autodiff.md`), and the default mode's do (so the check
/// sees them where they are).
#[test]
fn no_masked_memory_intrinsics() {
    use batchify_testkit::corpus::{load_file, parse_module, specs_for_module, Directives};
    let mut default_calls = 0;
    let mut clones = 0;
    for dir in ["memory", "divergent"] {
        for f in batchify_testkit::corpus::files_with_extensions(&corpus_dir(dir), &["c"]).unwrap() {
            let dirs = Directives::parse(&std::fs::read_to_string(&f).unwrap());
            let bytes = load_file(&f, CLevel::O2).unwrap();
            for (masked, autodiff_mode) in [(false, true), (true, true), (true, false)] {
                let ctx = inkwell::context::Context::create();
                let module = parse_module(&ctx, &bytes, &f.to_string_lossy()).unwrap();
                let specs = specs_for_module(&module, &dirs, 8, CLevel::O2, masked, Isa::Llvm);
                let opts = if autodiff_mode { autodiff() } else { corpus_options() };
                batchify_core::batchify_inkwell(&module, &specs, &opts).unwrap();
                let text = module.print_to_string().to_string();
                let calls: Vec<&str> =
                    text.lines().filter(|l| l.contains(" call ") && l.contains("@llvm.masked.")).collect();
                if autodiff_mode {
                    assert!(calls.is_empty(), "{} (masked={masked}): {calls:#?}", f.display());
                    clones += specs.len();
                } else {
                    default_calls += calls.len();
                }
            }
        }
    }
    assert!(clones >= 100, "too few clones checked: {clones}");
    assert!(default_calls > 0, "the default clones call no llvm.masked.* intrinsic: the check would see nothing");
    eprintln!(
        "autodiff_corpus: {clones} clones without llvm.masked.*; the default mode's made {default_calls} such calls"
    );
}

/// Random programs (the fuzzer's generator: divergent branches and loops,
/// buffers at every address shape, helpers) with `--for-autodiff` clones,
/// masked and unmasked, checked by the oracle like the default mode's.
#[test]
fn fuzz_programs() {
    use batchify_testkit::fuzz::{self, FuzzOptions};
    use batchify_testkit::gen::GenConfig;
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let runs = [
        FuzzOptions { count: 400, seed: 0xad_0000, width: 8, masked: true, threads, ..FuzzOptions::default() },
        FuzzOptions {
            count: 200,
            seed: 0xad_1000,
            width: 4,
            masked: false,
            threads,
            gen: GenConfig { p_buffers: 0.9, ..GenConfig::default() },
            ..FuzzOptions::default()
        },
    ];
    for opts in runs {
        let s = fuzz::run(&FuzzOptions { for_autodiff: true, ..opts });
        eprintln!("{}", s.report());
        assert!(!s.failed(), "{}", s.report());
        assert_eq!(s.oracle_setup_errors, 0, "{}", s.report());
        assert!(s.ok as f64 >= 0.85 * s.programs as f64, "only {} of {} checked:\n{}", s.ok, s.programs, s.report());
    }
}
