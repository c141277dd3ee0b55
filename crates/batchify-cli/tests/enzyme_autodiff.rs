//! `--for-autodiff` clones differentiated by the real Enzyme: the C
//! programs of `tests/autodiff` (divergent branches, divergent loops whose
//! finished lanes would overflow, table lookups, loads through a
//! differentiated pointer, integer-to-float paths, early returns, nested
//! loops, a switch), each through
//!
//! `clang-22 -O2 -fno-vectorize -fno-unroll-loops -mavx2 -emit-llvm` →
//! `batchify --for-autodiff --no-fallback --variant _ZGVdN4..._f` →
//! `opt-22 -load-pass-plugin=LLVMEnzyme-22.so -passes=enzyme` →
//! `clang-22 -O2 -mavx2` → run.
//!
//! Each program (driver in `tests/autodiff/autodiff.h`) compares, for 64
//! points, every lane's value bit for bit and its forward- and
//! reverse-mode derivatives with Enzyme's derivatives of the scalar
//! function at that lane's point: bit for bit, or within a relative error
//! of 1e-12 (the program's `AD_REL`; the reverse gradient of differentiated
//! memory sums the lanes in another order). The clones must hold no
//! masked load, store, gather or scatter. Enzyme is `ENZYME_PLUGIN`, or
//! `shared/enzyme/LLVMEnzyme-22.so` beside the repository or one of its
//! parent folders, or under `/work` (the workplace's shared folder); without it, clang-22, opt-22 or an AVX2 CPU the test is
//! skipped loudly (a failure under `BATCHIFY_REQUIRE_TOOLS=1`).

use batchify_testkit::corpus::{files_with_extensions, run_checked};
use batchify_testkit::{enzyme, skip};
use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Compiles a program of `tests/autodiff` to bitcode as Enzyme wants it.
fn compile_to_bitcode(src: &Path, bc: &Path) {
    let include = root().join("tests/autodiff");
    enzyme::compile_for_enzyme(src, &["-I", &include.to_string_lossy()], bc);
}

fn programs() -> Vec<PathBuf> {
    let dir = root().join("tests/autodiff");
    let progs = files_with_extensions(&dir, &["c"]).unwrap();
    assert!(progs.len() >= 12, "only {} programs in {}", progs.len(), dir.display());
    progs
}

/// The scalar function's name (the file name after `NN_`) and its clone:
/// `_ZGVdN4uv_` for the `AD_WX` driver (a uniform weights pointer), else
/// `_ZGVdN4vv_`.
fn variant(src: &Path) -> (String, String) {
    let stem = src.file_stem().unwrap().to_string_lossy().into_owned();
    let name = stem.split_once('_').map(|(_, n)| n.to_string()).unwrap_or(stem);
    let text = std::fs::read_to_string(src).unwrap();
    let params = if text.contains(&format!("AD_WX({name})")) { "uv" } else { "vv" };
    (name.clone(), format!("_ZGVdN4{params}_{name}"))
}

/// The numbers of a verdict line `F: ok lanes=L derivatives=D exact=E ...`.
fn verdict(stdout: &str, name: &str) -> (usize, usize, usize) {
    let line = stdout
        .lines()
        .find(|l| l.starts_with(&format!("{name}: ok ")))
        .unwrap_or_else(|| panic!("{name}: no `ok` verdict:\n{stdout}"));
    eprintln!("{line}");
    let field = |key: &str| -> usize {
        line.split_whitespace()
            .find_map(|w| w.strip_prefix(key))
            .and_then(|v| v.parse().ok())
            .unwrap_or_else(|| panic!("{name}: no {key} in `{line}`"))
    };
    (field("lanes="), field("derivatives="), field("exact="))
}

/// One program through the pipeline, in `dir`: with `lower`, the
/// `--lower-vector-math --veclib libmvec` step after Enzyme, and the
/// program compiled with `defines`. Returns the verdict's numbers and
/// the number of vector math calls lowered.
fn run_program(src: &Path, dir: &Path, plugin: &Path, defines: &[&str], lower: bool) -> ((usize, usize, usize), usize) {
    let (name, clone) = variant(src);
    let bc = dir.join(format!("{name}.bc"));
    let batched = dir.join(format!("{name}.batched.bc"));
    let differentiated = dir.join(format!("{name}.enzyme.bc"));
    let exe = dir.join(&name);
    let include = root().join("tests/autodiff");
    let mut flags = vec!["-I".to_string(), include.to_string_lossy().into_owned()];
    flags.extend(defines.iter().map(|d| d.to_string()));
    let flags: Vec<&str> = flags.iter().map(String::as_str).collect();
    enzyme::compile_for_enzyme(src, &flags, &bc);
    run_checked(
        Command::new(env!("CARGO_BIN_EXE_batchify"))
            .arg(&bc)
            .args(["--for-autodiff", "--no-fallback", "--variant", &clone, "-o"])
            .arg(&batched),
    );
    let ir = run_checked(Command::new("llvm-dis-22").arg(&batched).arg("-o").arg("-"));
    let body = ir.split(&format!("@{clone}(")).nth(1).and_then(|b| b.split("\n}\n").next()).unwrap_or("");
    assert!(body.contains("ret "), "{name}: the clone {clone} is defined:\n{ir}");
    for intrinsic in ["llvm.masked.load", "llvm.masked.store", "llvm.masked.gather", "llvm.masked.scatter"] {
        assert!(!body.contains(intrinsic), "{name}: the clone calls {intrinsic}:\n{body}");
    }
    assert!(!body.contains("@_ZGV"), "{name}: a --for-autodiff clone calls a vector library:\n{body}");
    enzyme::differentiate(plugin, &batched, &differentiated);
    let mut lowered = 0;
    let linked = if lower {
        let out = dir.join(format!("{name}.lowered.bc"));
        let report = Command::new(env!("CARGO_BIN_EXE_batchify"))
            .arg(&differentiated)
            .args(["--lower-vector-math", "--veclib", "libmvec", "--report", "-o"])
            .arg(&out)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&report.stderr);
        assert!(report.status.success(), "{name}: --lower-vector-math failed:\n{stderr}");
        lowered = stderr
            .lines()
            .find_map(|l| l.strip_prefix("batchify: lowered ")?.split_whitespace().next()?.parse().ok())
            .unwrap_or_else(|| panic!("{name}: no `lowered` line:\n{stderr}"));
        let text = run_checked(Command::new("llvm-dis-22").arg(&out).arg("-o").arg("-"));
        for family in ["log", "exp", "sin", "cos", "tanh"] {
            assert!(
                !text.contains(&format!("call <4 x double> @llvm.{family}.v4f64(")),
                "{name}: llvm.{family}.v4f64 is left:\n{text}"
            );
        }
        out
    } else {
        differentiated
    };
    run_checked(Command::new("clang-22").args(["-O2", "-mavx2"]).arg(&linked).arg("-o").arg(&exe).arg("-lm"));
    let out = run_checked(&mut Command::new(&exe));
    (verdict(&out, &name), lowered)
}

#[test]
fn clones_differentiate_like_the_scalar_functions() {
    let test = "enzyme_autodiff::clones_differentiate_like_the_scalar_functions";
    if !skip::require_cpu(test, "avx2") {
        return;
    }
    let Some(plugin) = enzyme::plugin_or_skip(test, &["clang-22", "opt-22", "llvm-dis-22"]) else { return };
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("enzyme-autodiff");
    std::fs::create_dir_all(&dir).unwrap();
    let (mut functions, mut lanes, mut derivatives, mut exact) = (0, 0, 0, 0);
    for src in programs() {
        let ((l, d, e), _) = run_program(&src, &dir, &plugin, &[], false);
        functions += 1;
        lanes += l;
        derivatives += d;
        exact += e;
    }
    eprintln!(
        "{test}: {functions} functions, {lanes} lanes, {derivatives} derivatives checked against Enzyme's scalar \
         derivatives ({exact} of {} values bit for bit)",
        lanes + derivatives
    );
}

/// The documented pipeline with the step after Enzyme: the clone's and
/// Enzyme's vector math intrinsics become libmvec calls
/// (`--lower-vector-math --veclib libmvec`), so values and derivatives
/// are libmvec's: each within 1e-12 (relative) of the scalar function's
/// and Enzyme's scalar derivatives (libmvec's functions are within 4 ulp;
/// a composition such as `log(log(...))` adds its own conditioning).
#[test]
fn libmvec_lowering_after_enzyme() {
    let test = "enzyme_autodiff::libmvec_lowering_after_enzyme";
    if !skip::require_cpu(test, "avx2") {
        return;
    }
    let Some(plugin) = enzyme::plugin_or_skip(test, &["clang-22", "opt-22", "llvm-dis-22"]) else { return };
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("enzyme-autodiff-libmvec");
    std::fs::create_dir_all(&dir).unwrap();
    let (mut functions, mut lanes, mut derivatives, mut exact, mut lowered) = (0, 0, 0, 0, 0);
    let mut lowered_programs = 0;
    for src in programs() {
        let ((l, d, e), c) = run_program(&src, &dir, &plugin, &["-DAD_PRIMAL_REL=1e-12", "-DAD_REL=1e-12"], true);
        functions += 1;
        lanes += l;
        derivatives += d;
        exact += e;
        lowered += c;
        lowered_programs += usize::from(c > 0);
    }
    assert!(lowered_programs >= 2, "only {lowered_programs} programs had vector math to lower");
    eprintln!(
        "{test}: {functions} functions ({lowered_programs} with {lowered} vector math calls lowered to libmvec), \
         {lanes} lanes, {derivatives} derivatives within 1e-12 of Enzyme's scalar derivatives ({exact} of {} \
         values bit for bit)",
        lanes + derivatives
    );
}

/// The default mode's clone of the smooth Mandelbrot measure is what
/// Enzyme's reverse mode rejects (a loop phi fed by a vector `select`, the
/// held live-outs): `--for-autodiff` is needed. If this starts to pass, the
/// default mode became differentiable and docs/autodiff.md should say so.
#[test]
fn the_default_mode_is_rejected_by_enzyme_reverse_mode() {
    let test = "enzyme_autodiff::the_default_mode_is_rejected_by_enzyme_reverse_mode";
    let Some(plugin) = enzyme::plugin_or_skip(test, &["clang-22", "opt-22"]) else { return };
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("enzyme-autodiff-default");
    std::fs::create_dir_all(&dir).unwrap();
    let src = root().join("tests/autodiff/01_smooth_mandel.c");
    let bc = dir.join("smooth.bc");
    let batched = dir.join("smooth.batched.bc");
    compile_to_bitcode(&src, &bc);
    run_checked(
        Command::new(env!("CARGO_BIN_EXE_batchify"))
            .arg(&bc)
            .args(["--no-fallback", "--variant", "_ZGVdN4vv_smooth_mandel", "-o"])
            .arg(&batched),
    );
    let out = Command::new("opt-22")
        .arg(format!("-load-pass-plugin={}", plugin.display()))
        .arg("-passes=enzyme")
        .arg(&batched)
        .arg("-o")
        .arg(dir.join("smooth.enzyme.bc"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && stderr.contains("getOrInsertConditionalIndex"),
        "Enzyme accepted the default clone ({}):\n{stderr}",
        out.status
    );
}
