//! SVE variants under emulation: `tests/sve/kernels.c` compiled by clang-22
//! for `aarch64-linux-gnu` with `-march=armv8-a+sve` (clang then asks for
//! `_ZGVsMx...` variants only), its variants built by batchify (the CLI on
//! clang's bitcode, and the plugin in one compile), called by
//! `tests/sve/caller.c` through ACLE types and run under `qemu-aarch64` at
//! 128, 256, 512, 1024 and 2048-bit vectors (the vectorized bodies at 128,
//! 256 and 512 bits, checked in the object code, and the per-lane loop at
//! the others). The CLI's clones are built and run under three tunings:
//! generic, Neoverse V1 and A64FX. The caller checks every active lane
//! against the scalar function bit for bit, inactive lanes untouched and
//! side effects in lane order. Skipped loudly without the cross GCC or qemu
//! (a failure under `BATCHIFY_REQUIRE_TOOLS=1`).

use batchify_testkit::corpus::run_checked as run;
use batchify_testkit::skip;
use std::path::{Path, PathBuf};
use std::process::Command;

const CLANG_FLAGS: &[&str] =
    &["--target=aarch64-linux-gnu", "-march=armv8-a+sve", "-O2", "-fopenmp-simd", "-ffp-contract=off"];
const QEMU: &str = "qemu-aarch64";

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The SVE variants of tests/sve/kernels.c.
const KERNELS: [&str; 9] = [
    "_ZGVsMxvv_fblend",
    "_ZGVsMxl8u_dscale",
    "_ZGVsMxv_collatz",
    "_ZGVsMxvv_widen",
    "_ZGVsMxuv_lookup",
    "_ZGVsMxul_record",
    "_ZGVsMxvv_sat8",
    "_ZGVsMxv_digits",
    "_ZGVsMxua16ls2u_strided",
];

/// Checks that every kernel has its vectorized bodies in `callee`: one per
/// vector length of 128, 256 and 512 bits, each with vector instructions
/// (Advanced SIMD `v` or SVE `z` registers).
fn check_sve_bodies(callee: &Path, tag: &str) {
    let dump = run(Command::new("aarch64-linux-gnu-objdump").arg("-d").arg(callee));
    for v in KERNELS {
        for vscale in [1, 2, 4] {
            let label = format!("<__batchify.body.{v}.vscale{vscale}>:");
            let Some(at) = dump.find(&label) else {
                panic!("{tag}: no vectorized body `{label}` for {v}:\n{dump}");
            };
            let body = dump[at..].split("\n\n").next().unwrap_or_default();
            let vector = ["\tz", " z", "\tv", " v", "{v", "{z"].iter().any(|r| body.contains(r));
            assert!(vector, "{tag}: {label} uses no vector register:\n{body}");
        }
    }
}

/// Links `callee` (an object defining the SVE variants) with the caller and
/// runs it at each vector length; panics on a failure.
fn link_and_run(dir: &Path, callee: &Path, tag: &str) {
    let defined = run(Command::new("aarch64-linux-gnu-nm").arg("--defined-only").arg(callee));
    for v in KERNELS {
        assert!(defined.contains(v), "{tag}: {} does not define {v}:\n{defined}", callee.display());
    }
    check_sve_bodies(callee, tag);
    let caller = dir.join("caller.o");
    run(Command::new("clang-22")
        .args(CLANG_FLAGS)
        .arg("-c")
        .arg(root().join("tests/sve/caller.c"))
        .arg("-o")
        .arg(&caller));
    let bin = dir.join(format!("sve-{tag}"));
    run(Command::new("aarch64-linux-gnu-gcc").arg(callee).arg(&caller).arg("-lm").arg("-o").arg(&bin));
    for vq in [1, 2, 4, 8, 16] {
        let cpu = format!("max,sve-max-vq={vq},sve-default-vector-length={}", vq * 16);
        let out = run(Command::new(QEMU).args(["-cpu", &cpu, "-L", "/usr/aarch64-linux-gnu"]).arg(&bin));
        assert_eq!(out.trim(), format!("ok {}-bit vectors", vq * 128), "{tag} at vq {vq}");
    }
}

#[test]
fn sve_variants_run_at_every_vector_length() {
    let test = "aarch64_sve::sve_variants_run_at_every_vector_length";
    let Some(plugin) = batchify_testkit::plugin::require(test) else { return };
    let tools = ["clang-22", "aarch64-linux-gnu-gcc", "aarch64-linux-gnu-nm", "aarch64-linux-gnu-objdump", QEMU];
    if !tools.iter().all(|t| skip::require_tool(test, t)) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let kernels = root().join("tests/sve/kernels.c");
    // The CLI on clang's bitcode, with the generic tuning and with the
    // tunings of an SVE CPU of 256 bits (Neoverse V1) and of 512 (A64FX):
    // the clones keep the scalar function's CPU.
    for (tuning, flag) in
        [("cli", None), ("cli-neoverse-v1", Some("-mcpu=neoverse-v1")), ("cli-a64fx", Some("-mcpu=a64fx"))]
    {
        let bc = dir.path().join(format!("kernels.{tuning}.bc"));
        run(Command::new("clang-22")
            .args(CLANG_FLAGS)
            .args(flag)
            .args(["-emit-llvm", "-c"])
            .arg(&kernels)
            .arg("-o")
            .arg(&bc));
        let out_bc = dir.path().join(format!("kernels.{tuning}.batchify.bc"));
        let report = run(Command::new(env!("CARGO_BIN_EXE_batchify")).arg(&bc).arg("-o").arg(&out_bc));
        assert!(!report.contains("per-lane loop"), "{tuning}: every kernel has a vector form:\n{report}");
        let cli_o = dir.path().join(format!("kernels.{tuning}.o"));
        run(Command::new("clang-22")
            .args(["--target=aarch64-linux-gnu", "-O2", "-c"])
            .arg(&out_bc)
            .arg("-o")
            .arg(&cli_o));
        link_and_run(dir.path(), &cli_o, tuning);
    }
    // The plugin, in one compile.
    let plugin_o = dir.path().join("kernels.plugin.o");
    let pass = format!("-fpass-plugin={}", plugin.display());
    run(Command::new("clang-22").args(CLANG_FLAGS).arg(&pass).arg("-c").arg(&kernels).arg("-o").arg(&plugin_o));
    link_and_run(dir.path(), &plugin_o, "plugin");
}
