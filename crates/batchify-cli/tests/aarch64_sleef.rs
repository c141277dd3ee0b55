//! `--veclib sleef` on AArch64: `tests/sleef/kernels.c` (`declare simd`
//! functions of `sinf`, `expf`, `powf`, `atan2`, ...) compiled by clang-22
//! for `aarch64-linux-gnu`, its Advanced SIMD variants built by the CLI with
//! `--veclib sleef` (they call libsleefgnuabi's `_ZGVn` functions, checked
//! in the report and the object's undefined symbols), called from GCC 12
//! `omp simd` loops in `tests/sleef/caller.c` and run under `qemu-aarch64`:
//! every result within 2 ulp of glibc's scalar function (SLEEF's 1.0 ulp
//! plus glibc's own error). Two controls show the check can fail and that
//! the distance comes from SLEEF: the same build checked at 0 ulp fails,
//! and the exact build (no `--veclib`) passes at 0 ulp. Skipped loudly
//! without the cross tools, qemu or Debian's `libsleef-dev:arm64` (a
//! failure under `BATCHIFY_REQUIRE_TOOLS=1`).

use batchify_testkit::corpus::run_checked as run;
use batchify_testkit::skip;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const SLEEF: &str = "/usr/lib/aarch64-linux-gnu/libsleefgnuabi.so";
const CLANG_FLAGS: &[&str] =
    &["--target=aarch64-linux-gnu", "-O2", "-fopenmp-simd", "-fno-math-errno", "-ffp-contract=off"];
const GCC_FLAGS: &[&str] = &["-O3", "-fopenmp-simd", "-fno-math-errno", "-ffp-contract=off"];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn output(cmd: &mut Command) -> Output {
    cmd.output().unwrap_or_else(|e| panic!("{cmd:?}: {e}"))
}

/// Builds the kernels with `veclib` and the caller checking at `max_ulps`,
/// runs the binary under qemu and returns its output and whether it passed.
fn build_and_run(dir: &Path, veclib: &str, max_ulps: u32) -> (String, bool) {
    let tag = format!("{veclib}-{max_ulps}");
    let bc = dir.join("kernels.bc");
    if !bc.exists() {
        run(Command::new("clang-22")
            .args(CLANG_FLAGS)
            .args(["-emit-llvm", "-c"])
            .arg(root().join("tests/sleef/kernels.c"))
            .arg("-o")
            .arg(&bc));
    }
    let out_bc = dir.join(format!("kernels.{tag}.bc"));
    let report = run(Command::new(env!("CARGO_BIN_EXE_batchify"))
        .arg(&bc)
        .arg("-o")
        .arg(&out_bc)
        .args(["--veclib", veclib, "--report"]));
    let obj = dir.join(format!("kernels.{tag}.o"));
    run(Command::new("clang-22").args(["--target=aarch64-linux-gnu", "-O2", "-c"]).arg(&out_bc).arg("-o").arg(&obj));
    let undefined = run(Command::new("aarch64-linux-gnu-nm").arg("--undefined-only").arg(&obj));
    let calls_sleef = undefined.contains("_ZGVnN4v_sinf") && undefined.contains("_ZGVnN2vv_atan2");
    if veclib == "sleef" {
        for line in
            ["sinf -> _ZGVnN4v_sinf (sleef, at most 1 ulp)", "powf -> _ZGVnN4vv_powf", "hypot -> _ZGVnN2vv_hypot"]
        {
            assert!(report.contains(line), "the report does not say `{line}`:\n{report}");
        }
        assert!(calls_sleef, "the kernels do not call SLEEF:\n{undefined}");
    } else {
        assert!(!undefined.contains("_ZGVnN4v_sinf"), "the exact build calls SLEEF:\n{undefined}");
    }
    let caller = dir.join(format!("caller.{tag}.o"));
    run(Command::new("aarch64-linux-gnu-gcc")
        .args(GCC_FLAGS)
        .arg(format!("-DMAX_ULPS={max_ulps}"))
        .arg("-c")
        .arg(root().join("tests/sleef/caller.c"))
        .arg("-o")
        .arg(&caller));
    let wanted = run(Command::new("aarch64-linux-gnu-nm").arg("--undefined-only").arg(&caller));
    for v in ["_ZGVnN4v_k_sinf", "_ZGVnN2v_k_sin", "_ZGVnN4vv_k_powf", "_ZGVnN2vv_k_hypot"] {
        assert!(wanted.contains(v), "GCC's loops do not call {v}:\n{wanted}");
    }
    let bin = dir.join(format!("sleef-{tag}"));
    run(Command::new("aarch64-linux-gnu-gcc")
        .arg(&caller)
        .arg(&obj)
        .arg(SLEEF)
        .arg("-Wl,-rpath,/usr/lib/aarch64-linux-gnu")
        .arg("-lm")
        .arg("-o")
        .arg(&bin));
    let out = output(Command::new("qemu-aarch64").args(["-L", "/usr/aarch64-linux-gnu"]).arg(&bin));
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    (text, out.status.success())
}

#[test]
fn sleef_variants_stay_within_their_bound() {
    let test = "aarch64_sleef::sleef_variants_stay_within_their_bound";
    let tools = ["clang-22", "aarch64-linux-gnu-gcc", "aarch64-linux-gnu-nm", "qemu-aarch64"];
    if !tools.iter().all(|t| skip::require_tool(test, t)) {
        return;
    }
    if !Path::new(SLEEF).exists() {
        skip::skip(test, &format!("{SLEEF} is missing (Debian's libsleef-dev:arm64; tools/setup-llvm.sh installs it)"));
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (text, ok) = build_and_run(dir.path(), "sleef", 2);
    assert!(ok && text.trim_end().ends_with("ok"), "SLEEF clones beyond 2 ulp:\n{text}");
    // Control 1: the check fails when it allows no distance at all.
    let (text, ok) = build_and_run(dir.path(), "sleef", 0);
    assert!(!ok && text.contains("failures"), "a 0-ulp check of SLEEF's results passed:\n{text}");
    // Control 2: without the library the clones are exact.
    let (text, ok) = build_and_run(dir.path(), "none", 0);
    assert!(ok && text.trim_end().ends_with("ok"), "the exact clones are not exact:\n{text}");
}
