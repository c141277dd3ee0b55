//! Enzyme's batch API from C: the self-checking programs of
//! `tests/enzyme-batch` (vector, default, scalar and buffer arguments,
//! struct returns in registers and in memory, a lane-divergent branch,
//! divergent loops, nested calls with varying arguments, widths 2, 4, 8
//! and 16), compiled by clang-22 `-march=x86-64-v3` at `-O0` and `-O2` and
//! run, two ways:
//!
//! * CLI: `clang -emit-llvm`, this crate's `batchify --report`, clang;
//! * plugin: one `clang -fpass-plugin=libbatchify_plugin.so` compile.
//!
//! Each program compares every lane of every `__enzyme_batch` result with
//! a scalar call, bit for bit, and exits non-zero on a mismatch. Besides
//! the run, each way must show that every call was replaced by a call of a
//! built clone (the CLI's report, the plugin's `-Rpass=batchify` remarks),
//! none by per-lane calls. Skipped loudly without clang-22, an AVX2 CPU or
//! (for the plugin way) the built plugin.

use batchify_testkit::corpus::{files_with_extensions, run_checked};
use batchify_testkit::skip;
use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn programs() -> Vec<PathBuf> {
    let dir = root().join("tests/enzyme-batch");
    let progs = files_with_extensions(&dir, &["c"]).unwrap();
    assert!(progs.len() >= 7, "only {} programs in {}", progs.len(), dir.display());
    progs
}

/// The number of `__enzyme_batch` calls in a program's source.
fn call_count(src: &Path) -> usize {
    let text = std::fs::read_to_string(src).unwrap();
    text.lines().filter(|l| !l.trim_start().starts_with("extern")).map(|l| l.matches("__enzyme_batch").count()).sum()
}

/// Both optimisation levels: `-O0` input keeps its allocas and `optnone`.
const LEVELS: [&str; 2] = ["-O0", "-O2"];

fn clang(level: &str) -> Command {
    let mut c = Command::new("clang-22");
    c.args([level, "-std=c23", "-march=x86-64-v3", "-Wno-everything"]);
    c.arg("-I").arg(root().join("tests/enzyme-batch"));
    c
}

/// Runs a built program and checks its verdict line.
fn check_run(exe: &Path, name: &str) {
    let out = run_checked(&mut Command::new(exe));
    assert!(out.contains(&format!("{name}: ok")), "{}: {out}", exe.display());
}

fn work_dir(way: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join("enzyme-batch").join(way);
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn c_programs_through_the_cli() {
    let test = "enzyme_batch::c_programs_through_the_cli";
    if !skip::require_tool(test, "clang-22") || !skip::require_cpu(test, "avx2") {
        return;
    }
    let dir = work_dir("cli");
    let mut replaced = 0;
    for (src, level) in programs().iter().flat_map(|p| LEVELS.map(|l| (p.clone(), l))) {
        let name = src.file_stem().unwrap().to_string_lossy().into_owned();
        let stem = format!("{name}{level}");
        let bc = dir.join(format!("{stem}.bc"));
        let out_bc = dir.join(format!("{stem}.batched.bc"));
        let exe = dir.join(&stem);
        run_checked(clang(level).args(["-c", "-emit-llvm", "-o"]).arg(&bc).arg(&src));
        let report =
            run_checked(Command::new(env!("CARGO_BIN_EXE_batchify")).arg(&bc).arg("-o").arg(&out_bc).arg("--report"));
        let calls: Vec<&str> = report.lines().filter(|l| l.contains(": __enzyme_batch(")).collect();
        assert_eq!(calls.len(), call_count(&src), "{stem}: every call is replaced:\n{report}");
        assert!(
            calls.iter().all(|l| l.contains("(calls `_ZGV_LLVM_")),
            "{name}: every call uses a vector clone:\n{report}"
        );
        assert!(!report.contains("per-lane fallback"), "{name}: no clone is a per-lane loop:\n{report}");
        replaced += calls.len();
        run_checked(clang(level).arg("-o").arg(&exe).arg(&out_bc));
        check_run(&exe, &name);
    }
    eprintln!("{test}: {replaced} __enzyme_batch calls replaced and checked lane by lane");
}

#[test]
fn c_programs_through_the_plugin() {
    let test = "enzyme_batch::c_programs_through_the_plugin";
    if !skip::require_tool(test, "clang-22") || !skip::require_cpu(test, "avx2") {
        return;
    }
    let plugin = batchify_testkit::plugin::library();
    if !plugin.exists() {
        skip::skip(test, &format!("the plugin {} is not built (cargo build -p batchify-plugin)", plugin.display()));
        return;
    }
    let dir = work_dir("plugin");
    for (src, level) in programs().iter().flat_map(|p| LEVELS.map(|l| (p.clone(), l))) {
        let name = src.file_stem().unwrap().to_string_lossy().into_owned();
        let exe = dir.join(format!("{name}{level}"));
        let remarks = run_checked(
            clang(level)
                .arg(format!("-fpass-plugin={}", plugin.display()))
                .args(["-Rpass=batchify", "-Rpass-missed=batchify", "-o"])
                .arg(&exe)
                .arg(&src),
        );
        assert!(remarks.contains("built _ZGV_LLVM_"), "{name}: the plugin built the clones:\n{remarks}");
        assert!(!remarks.contains("per-lane"), "{name}: no per-lane clone or call:\n{remarks}");
        check_run(&exe, &name);
    }
}
