//! The Rust side of the autodiff guide (`docs/autodiff.md`, "Guide"), run
//! command for command on `tests/autodiff/rust`:
//!
//! * batchify, then Enzyme: `batch_then_diff.rs` → `rustc --emit=llvm-bc` →
//!   `batchify --for-autodiff` (its array-form request becomes a call of
//!   the clone `_ZGVdN4vv_smooth`) → Enzyme (reverse mode on the clone);
//! * Enzyme, then batchify: `diff_then_batch.rs` → `rustc --emit=llvm-bc` →
//!   Enzyme (the scalar gradient) → `batchify` (the array-form request
//!   `_ZGVdN4vvl16_smooth_gradient` calls the batched derivative);
//!
//! both compiled by `clang-22 -c`, archived, and linked into the Rust
//! program `main.rs`, which checks every lane's gradient against
//! Enzyme's scalar gradient (within 1e-12 relative) and prints how many
//! are bit for bit. Skipped loudly without rustc, clang-22, opt-22,
//! llvm-ar-22, AVX2 or the Enzyme plugin (a failure under
//! `BATCHIFY_REQUIRE_TOOLS=1`).

use batchify_testkit::corpus::run_checked;
use batchify_testkit::{enzyme, skip};
use std::path::{Path, PathBuf};
use std::process::Command;

fn sources() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/autodiff/rust")
}

/// The rustc that cargo runs the tests with, else the one on `PATH`.
fn rustc() -> Command {
    Command::new(std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into()))
}

/// `rustc --emit=llvm-bc` of a kernel file, as the guide says.
fn emit_bitcode(src: &str, bc: &Path) {
    run_checked(
        rustc()
            .args(["--edition", "2021", "-O", "--crate-type=lib", "--emit=llvm-bc", "-C", "codegen-units=1"])
            .arg(sources().join(src))
            .arg("-o")
            .arg(bc),
    );
}

fn batchify() -> Command {
    Command::new(env!("CARGO_BIN_EXE_batchify"))
}

#[test]
fn rust_kernels_batch_and_differentiate_in_both_orders() {
    let test = "enzyme_rust::rust_kernels_batch_and_differentiate_in_both_orders";
    if !skip::require_cpu(test, "avx2") || !skip::require_tool(test, "rustc") {
        return;
    }
    let Some(plugin) = enzyme::plugin_or_skip(test, &["clang-22", "opt-22", "llvm-ar-22"]) else { return };
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("enzyme-rust");
    std::fs::create_dir_all(&dir).unwrap();
    let at = |name: &str| dir.join(name);

    // batchify, then Enzyme.
    emit_bitcode("batch_then_diff.rs", &at("a.bc"));
    let report = run_checked(
        batchify().arg(at("a.bc")).args(["--for-autodiff", "--no-fallback", "--report", "-o"]).arg(at("a.batched.bc")),
    );
    assert!(report.contains("smooth -> _ZGVdN4vv_smooth: 4 lanes"), "no clone of `smooth`:\n{report}");
    enzyme::differentiate(&plugin, &at("a.batched.bc"), &at("a.enzyme.bc"));

    // Enzyme, then batchify.
    emit_bitcode("diff_then_batch.rs", &at("b.bc"));
    enzyme::differentiate(&plugin, &at("b.bc"), &at("b.enzyme.bc"));
    // `--no-fallback`: the vector form of the derivative is what is tested
    // here (the cost model estimates it slower than per-lane calls of the
    // derivative, as docs/benchmarks.md measured for this order).
    let report = run_checked(
        batchify().arg(at("b.enzyme.bc")).args(["--no-fallback", "--report", "-o"]).arg(at("b.batched.bc")),
    );
    assert!(
        report.contains("batched: call to `diffesmooth_b` -> `__batchify._ZGVdN4vvu_diffesmooth_b`"),
        "Enzyme's derivative is not called through its clone:\n{report}"
    );

    for (bc, obj) in [("a.enzyme.bc", "a.o"), ("b.batched.bc", "b.o")] {
        run_checked(
            Command::new("clang-22")
                .args(["-O2", "-mavx2", "-Wno-override-module", "-c"])
                .arg(at(bc))
                .arg("-o")
                .arg(at(obj)),
        );
    }
    let _ = std::fs::remove_file(at("libkernels.a"));
    run_checked(Command::new("llvm-ar-22").arg("rcs").arg(at("libkernels.a")).arg(at("a.o")).arg(at("b.o")));
    run_checked(
        rustc()
            .args(["--edition", "2021", "-O"])
            .arg(sources().join("main.rs"))
            .arg("-L")
            .arg(&dir)
            .args(["-l", "static=kernels", "-o"])
            .arg(at("main")),
    );
    let out = run_checked(&mut Command::new(at("main")));
    let line = out.lines().find(|l| l.starts_with("ok: ")).unwrap_or_else(|| panic!("no verdict:\n{out}"));
    eprintln!("{test}: {line}");
}
