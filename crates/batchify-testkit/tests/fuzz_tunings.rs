//! The fuzzer under several x86 tunings (`batchify_testkit::tunings`): the
//! oracle's JIT compiles for other CPUs than the host, so that code that is
//! right only under the host's tuning is found on any machine. Intel's
//! AVX-512 CPUs and `x86-64-v4` prefer 256-bit vectors; a clone that passed
//! a 512-bit vector to a helper in the wrong registers under that tuning
//! (issue 21) passed every check on Zen 4, whose tuning does not.

use batchify_testkit::fuzz::{self, FuzzOptions};
use batchify_testkit::jit::host_has_feature;
use batchify_testkit::skip;
use batchify_testkit::tunings::{fuzz_tuning, Tuning, MATRIX, TUNINGS};

fn base() -> FuzzOptions {
    FuzzOptions { threads: 2, trials: 12, ..FuzzOptions::default() }
}

/// A bounded run per tuning: 6 programs of every clone kind (108 per
/// tuning where the host runs every kind). A tuning whose features the host
/// lacks is skipped loudly; on a host with AVX-512 every AVX-512 tuning runs.
#[test]
fn fuzz_under_every_tuning() {
    let mut avx512_run = 0;
    let mut lines = Vec::new();
    let mut failed = Vec::new();
    for t in TUNINGS {
        if let Some(f) = t.missing_feature() {
            skip::missing_cpu_feature(&format!("fuzz_under_every_tuning ({})", t.name), f);
            continue;
        }
        let run = fuzz_tuning(t, 6, 0x7e57_0000, &base());
        assert!(run.summary.programs >= 6 * run.kinds_run, "{run}");
        avx512_run += usize::from(t.is_avx512());
        if run.failed() {
            failed.push(run.summary.report());
        }
        lines.push(run.to_string());
    }
    eprintln!("{}", lines.join("\n"));
    assert!(failed.is_empty(), "{}", failed.join("\n"));
    if host_has_feature("avx512f") {
        let expected = TUNINGS.iter().filter(|t| t.is_avx512()).count();
        assert_eq!(avx512_run, expected, "an AVX-512 host must run every AVX-512 tuning");
    }
}

/// The range of seeds in which the Intel-only defect showed (8 wrong clones
/// in 1000 programs on an `emeraldrapids` host), under an Intel tuning.
#[test]
fn seeds_5eed0000_under_intel_tuning() {
    let t = Tuning::named("skylake-avx512").unwrap();
    if let Some(f) = t.missing_feature() {
        skip::missing_cpu_feature("seeds_5eed0000_under_intel_tuning", f);
        return;
    }
    let opts = FuzzOptions { count: 1000, seed: 0x5eed_0000, width: 8, jit_target: t.target(), ..base() };
    let s = fuzz::run(&opts);
    assert!(!s.failed() && s.oracle_setup_errors == 0, "{}", s.report());
    assert_eq!(s.programs, 1000);
}

/// Every clone kind of the matrix is distinct, and the matrix covers
/// masked and unmasked, 4, 8 and 16 lanes, and all three ISAs.
#[test]
fn the_matrix_covers_what_the_tunings_are_fuzzed_with() {
    for (i, a) in MATRIX.iter().enumerate() {
        assert!(!MATRIX[i + 1..].contains(a), "{a} twice");
    }
    for w in [4, 8, 16] {
        for masked in [true, false] {
            for isa in ["llvm", "avx2", "avx512"] {
                assert!(
                    MATRIX.iter().any(|k| k.width == w && k.masked == masked && fuzz::isa_flag(k.isa) == isa),
                    "{isa} masked={masked} x{w} missing"
                );
            }
        }
    }
}

/// The program whose scatter ran under a stale mask register under znver4's
/// tuning (LLVM 22's EVEX compression, llvm/llvm-project#198197): a
/// `<16 x i1>` mask parameter read by a scatter and by a gather that the
/// tuning scalarizes. Mask parameters of functions with gathers or
/// scatters are now reloaded from a stack slot (`finish::mask_params`).
#[test]
fn znver4_mask_parameter_regression() {
    let t = Tuning::named("znver4").unwrap();
    if let Some(f) = t.missing_feature() {
        skip::missing_cpu_feature("znver4_mask_parameter_regression", f);
        return;
    }
    let gen = batchify_testkit::gen::GenConfig {
        p_helper: 0.5,
        p_buffers: 0.5,
        p_record: 0.08,
        // The seed's program from before the generator had constant tables.
        p_tables: 0.0,
        ..batchify_testkit::gen::GenConfig::default()
    };
    let opts = FuzzOptions { count: 1, seed: 553_652_672, width: 16, gen, jit_target: t.target(), ..base() };
    let s = fuzz::run(&opts);
    assert!(!s.failed() && s.oracle_setup_errors == 0 && s.ok == 1, "{}", s.report());
}
