//! batchify on Enzyme's derivative functions (Enzyme, then batchify): for
//! every program of `tests/autodiff`, Enzyme defines the scalar function's
//! forward derivative `fwddiffeF` and reverse derivative `diffeF`
//! (`autodiff.h` with `-DAD_DERIVATIVES`), and batchify must vectorize
//! both (no per-lane fallback: `allow_fallback` off, the cost model off)
//! into 8-lane clones, unmasked and masked, that the execution oracle finds
//! equal to the derivative called once per lane, bit for bit: results,
//! and every byte of the gradient buffers that reverse mode adds into.
//!
//! Enzyme marks its derivative arithmetic `fast`, which allows any compile
//! to contract and reassociate it (two compiles of the same function may
//! differ in the last bit); the flags are taken off first
//! (`enzyme::without_fast_math`), so that the derivative has one result per
//! input. Random inputs on which the scalar derivative converts NaN or an
//! out-of-range value to an integer (poison) are dropped
//! (`OracleOptions::skip_poison_inputs`). The reverse derivatives of the
//! loops hold Enzyme's tape (`malloc`/`realloc`ed caches) and control flow
//! that is irreducible until batchify splits nodes.

use batchify_core::vfabi::Isa;
use batchify_core::{CloneSpec, Options};
use batchify_testkit::corpus::{files_with_extensions, parse_module, run_checked};
use batchify_testkit::{enzyme, CheckConfig, Oracle, OracleOptions};
use std::path::{Path, PathBuf};
use std::process::Command;

fn autodiff_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/autodiff")
}

/// The scalar function of a program: its file name after `NN_`.
fn function_name(src: &Path) -> String {
    let stem = src.file_stem().unwrap().to_string_lossy().into_owned();
    stem.split_once('_').map(|(_, n)| n.to_string()).unwrap_or(stem)
}

/// Enzyme's derivatives of the program's function, without fast-math flags,
/// as textual IR.
fn derivatives_ir(plugin: &Path, src: &Path, dir: &Path) -> String {
    let name = function_name(src);
    let bc = dir.join(format!("{name}.bc"));
    let differentiated = dir.join(format!("{name}.derivatives.bc"));
    let include = autodiff_dir();
    enzyme::compile_for_enzyme(src, &["-DAD_DERIVATIVES", "-I", &include.to_string_lossy()], &bc);
    enzyme::differentiate(plugin, &bc, &differentiated);
    let ir = run_checked(Command::new("llvm-dis-22").arg(&differentiated).arg("-o").arg("-"));
    enzyme::without_fast_math(&ir)
}

/// Batches `function` of `ir` at 8 lanes (masked or not) and runs the
/// oracle; returns the lanes compared. Panics on a fallback, a mismatch
/// or too few lanes compared.
fn batch_and_check(ir: &str, function: &str, masked: bool) -> usize {
    let ctx = inkwell::context::Context::create();
    let module = parse_module(&ctx, ir.as_bytes(), function).unwrap();
    let f = module.get_function(function).unwrap_or_else(|| panic!("Enzyme defined no {function}"));
    let spec = CloneSpec::all_varying(function, f.count_params() as usize, 8, Isa::Llvm, masked);
    let opts = Options { allow_fallback: false, cost_model: false, ..Options::default() };
    let reports = batchify_core::batchify_inkwell(&module, std::slice::from_ref(&spec), &opts)
        .unwrap_or_else(|e| panic!("{function} (masked={masked}) is not vectorized: {e}"));
    assert!(reports.iter().all(|r| r.fallback.is_none()), "{function}: fallback: {:?}", reports[0].fallback);
    let oracle_opts = OracleOptions { skip_poison_inputs: true, ..OracleOptions::default() };
    let oracle = Oracle::with_options(&module, std::slice::from_ref(&spec), &oracle_opts)
        .unwrap_or_else(|e| panic!("{function}: oracle: {e}"));
    let stats = oracle
        .check_all(&CheckConfig { trials: 300, ..CheckConfig::default() })
        .unwrap_or_else(|e| panic!("{function} (masked={masked}): {e}"));
    // Most trials of a function that converts its input to an integer
    // are dropped (some lane's random input is out of range); enough
    // must be left.
    assert!(stats.lanes_compared >= 64, "{function}: only {} lanes compared", stats.lanes_compared);
    stats.lanes_compared
}

#[test]
fn enzyme_derivatives_are_vectorized_and_match_per_lane() {
    let test = "enzyme_derivatives::enzyme_derivatives_are_vectorized_and_match_per_lane";
    let Some(plugin) = enzyme::plugin_or_skip(test, &["clang-22", "opt-22", "llvm-dis-22"]) else { return };
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("enzyme-derivatives");
    std::fs::create_dir_all(&dir).unwrap();
    let programs = files_with_extensions(&autodiff_dir(), &["c"]).unwrap();
    assert!(programs.len() >= 12, "only {} programs", programs.len());
    let (mut clones, mut lanes) = (0, 0);
    for src in &programs {
        let name = function_name(src);
        let ir = derivatives_ir(&plugin, src, &dir);
        for derivative in [format!("fwddiffe{name}"), format!("diffe{name}")] {
            for masked in [false, true] {
                lanes += batch_and_check(&ir, &derivative, masked);
                clones += 1;
            }
        }
    }
    eprintln!(
        "{test}: {} functions, {clones} clones of Enzyme's forward and reverse derivatives vectorized, \
         {lanes} lanes bit for bit",
        programs.len()
    );
}
