//! Cross-lane operations (`include/batchify.h`, docs/cross-lane.md) against
//! reference models: the kernels of `tests/cross-lane/kernels.h` are
//! batched at 4, 8 and 16 lanes for every x86 ISA the CPU runs, and their
//! maps run random inputs (divergent branches and loops give random masks,
//! the map's tail group a partial entry mask) against the same kernels
//! expanded as explicit N-lane models (`lanes.h`), bit for bit. The
//! kernels compiled without batchify must give the one-lane results. A map
//! built at 4 lanes checked as if it had 8 must fail (the check can fail).
//! Calls that cannot have their group meaning are compile-time errors.
//! RV's ten intrinsic tests, rewritten in `tests/rv-intrinsics`, pass.

use batchify_core::driver::{self, OnError, Selection};
use batchify_core::map_entry::MapForm;
use batchify_core::vfabi::Isa;
use batchify_core::{CloneSpec, Options};
use batchify_testkit::corpus::{compile_c, parse_module, run_checked, CLevel};
use inkwell::context::Context;
use std::path::{Path, PathBuf};
use std::process::Command;

const KERNELS: &[&str] = &[
    "k_any_all",
    "k_ballot",
    "k_reduce_int",
    "k_reduce_i64",
    "k_reduce_float",
    "k_scan_loop",
    "k_extract",
    "k_shuffle",
    "k_first",
    "k_pack",
    "k_pack_loop",
    "k_group_exit",
    "k_nested",
    "k_callee",
];

/// Flags for every C file of the suite: defined signed overflow (the
/// kernels wrap), no contraction (the models must round as the kernels).
const C_FLAGS: &[&str] = &["-fwrapv", "-ffp-contract=off"];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn suite() -> PathBuf {
    root().join("tests/cross-lane")
}

fn include_flag() -> String {
    format!("-I{}", root().join("include").display())
}

/// `kernels.c` as bitcode, compiled for `cpu` (`-march`) if given.
fn kernels_bitcode(cpu: Option<&str>) -> Vec<u8> {
    let inc = include_flag();
    let march = cpu.map(|c| format!("-march={c}"));
    let mut flags: Vec<&str> = C_FLAGS.to_vec();
    flags.push(&inc);
    flags.extend(march.as_deref());
    compile_c(&suite().join("kernels.c"), CLevel::O2, &flags).expect("kernels.c compiles")
}

/// The kernels (compiled for `cpu`) batched at `width` lanes for `isa`,
/// with their maps, as bitcode in `dir`.
fn batched(dir: &Path, isa: Isa, width: u32, cpu: Option<&str>) -> PathBuf {
    let ctx = Context::create();
    let module = parse_module(&ctx, &kernels_bitcode(cpu), "kernels").unwrap();
    let specs: Vec<CloneSpec> = KERNELS.iter().map(|k| CloneSpec::all_varying(k, 4, width, isa, false)).collect();
    let plan = driver::Run {
        selection: Selection::Named { specs, only_here: false },
        on_error: OnError::Stop,
        callers: false,
        maps: true,
        map_form: MapForm::Adaptive,
        bucket: None,
    };
    let core = batchify_core::llvm::Module::from_inkwell(&module);
    let out = driver::run(core, &plan, &Options::default(), &mut |_| {}).unwrap_or_else(|e| panic!("{e}"));
    for r in &out.reports {
        assert!(r.fallback.is_none(), "{}: {:?}", r.spec.vector_name, r.fallback);
    }
    for k in KERNELS {
        let grouped = format!("map: {k}_map over {width} lanes of");
        assert!(out.notes.iter().any(|n| n.starts_with(&grouped) && n.ends_with(", grouped")), "{:?}", out.notes);
    }
    module.verify().unwrap_or_else(|e| panic!("{e}"));
    let path = dir.join(format!("kernels-{}-{width}-{}.bc", isa.mangling(), cpu.unwrap_or("default")));
    module.write_bitcode_to_path(&path);
    path
}

/// Links `driver.c` (at `lanes`, 0 for the scalar kernels) with the
/// kernels in `kernels` and the reference models; returns the run's
/// status and output.
fn run_driver(dir: &Path, lanes: u32, kernels: &Path, seed: u64, cpu: Option<&str>) -> (bool, String) {
    let exe = dir.join(format!("driver-{lanes}-{}", kernels.file_stem().unwrap().to_string_lossy()));
    run_checked(
        Command::new("clang-22")
            .args(["-O2", "-w"])
            .args(cpu.map(|c| format!("-march={c}")))
            .args(C_FLAGS)
            .arg(include_flag())
            .arg(format!("-DCL_N={lanes}"))
            .arg("-o")
            .arg(&exe)
            .arg(suite().join("driver.c"))
            .arg(kernels)
            .arg(suite().join("reference.c"))
            .arg("-lm"),
    );
    let out = Command::new(&exe).args([seed.to_string(), "70".into()]).output().expect("runs the driver");
    (out.status.success(), String::from_utf8_lossy(&out.stdout).into_owned())
}

fn assert_all_ok(what: &str, (ok, text): (bool, String)) {
    assert!(ok, "{what}:\n{text}");
    for k in KERNELS {
        assert!(text.contains(&format!("ok {k}: ")), "{what}: no result for {k}:\n{text}");
    }
    assert!(!text.contains(" 0 elements"), "{what}: a kernel checked nothing:\n{text}");
}

#[test]
fn every_operation_matches_its_reference_model() {
    let test = "every_operation_matches_its_reference_model";
    if !batchify_testkit::skip::require_tool(test, "clang-22") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    for (isa, feature) in [(Isa::Sse2, "sse2"), (Isa::Avx, "avx"), (Isa::Avx2, "avx2"), (Isa::Avx512, "avx512f")] {
        if !batchify_testkit::skip::require_cpu(test, feature) {
            continue;
        }
        for width in [4, 8, 16] {
            let bc = batched(dir.path(), isa, width, None);
            let run = run_driver(dir.path(), width, &bc, u64::from(width) * 7 + 1, None);
            assert_all_ok(&format!("{isa:?} x{width}"), run);
        }
    }
}

/// Code generation depends on the CPU's tuning: the kernels compiled for
/// Haswell, Skylake-AVX512 and Zen 4 (each where the host runs it), their
/// AVX2 and AVX-512 clones, against the models. (AVX2 clones on an AVX-512
/// CPU meet LLVM's EVEX-compression defect of docs/limits.md where a mask
/// is read both as bits and as a register.)
#[test]
fn every_operation_under_cpu_tunings() {
    let test = "every_operation_under_cpu_tunings";
    if !batchify_testkit::skip::require_tool(test, "clang-22") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    for (cpu, feature) in [("haswell", "avx2"), ("skylake-avx512", "avx512f"), ("znver4", "avx512f")] {
        if !batchify_testkit::skip::require_cpu(test, feature) {
            continue;
        }
        let mut configs = vec![(Isa::Avx2, 8), (Isa::Avx2, 16)];
        if feature == "avx512f" {
            configs.push((Isa::Avx512, 16));
        }
        for (isa, width) in configs {
            let bc = batched(dir.path(), isa, width, Some(cpu));
            let run = run_driver(dir.path(), width, &bc, u64::from(width) + 11, Some(cpu));
            assert_all_ok(&format!("{isa:?} x{width} for {cpu}"), run);
        }
    }
}

#[test]
fn scalar_kernels_give_the_one_lane_results() {
    if !batchify_testkit::skip::require_tool("scalar_kernels_give_the_one_lane_results", "clang-22") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let bc = dir.path().join("kernels.bc");
    std::fs::write(&bc, kernels_bitcode(None)).unwrap();
    assert_all_ok("scalar", run_driver(dir.path(), 0, &bc, 3, None));
}

#[test]
fn the_check_catches_the_wrong_group_size() {
    let test = "the_check_catches_the_wrong_group_size";
    if !batchify_testkit::skip::require_tool(test, "clang-22") || !batchify_testkit::skip::require_cpu(test, "avx2") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let bc = batched(dir.path(), Isa::Avx2, 4, None);
    let (ok, text) = run_driver(dir.path(), 8, &bc, 5, None);
    assert!(!ok, "groups of 4 passed as groups of 8:\n{text}");
    // Operations that see the group disagree; lane-independent reads of it agree.
    for k in ["k_any_all", "k_reduce_int", "k_scan_loop", "k_shuffle", "k_pack"] {
        assert!(text.contains(&format!("FAIL {k}:")), "{k} not caught:\n{text}");
    }
}

/// Batches `ir`'s `f` at 8 AVX2 lanes (optionally for autodiff, or asking
/// for the per-lane loop); the error's text.
fn batch_error(ir: &str, for_autodiff: bool, force_per_lane: bool) -> String {
    let ctx = Context::create();
    let module = parse_module(&ctx, ir.as_bytes(), "m").unwrap();
    let spec = CloneSpec::all_varying("f", 2, 8, Isa::Avx2, false);
    let opts = Options { for_autodiff, force_per_lane, ..Default::default() };
    match batchify_core::batchify_inkwell(&module, &[spec], &opts) {
        Ok(r) => panic!("built: {:?}", r[0].fallback),
        Err(e) => e.to_string(),
    }
}

const DECLS: &str = r#"
declare i32 @batchify_packed_store_active_i32(ptr, i32)
declare float @batchify_reduce_add_f32(float)
declare i1 @batchify_any(i1)
declare i64 @batchify_ballot(i1)
declare i4 @batchify_ballot.1(i1)
define i32 @helper(i32 %x) {
  %y = call i32 asm sideeffect "", "=r,0"(i32 %x)
  %c = icmp sgt i32 %y, 0
  %a = call i1 @batchify_any(i1 %c)
  %r = zext i1 %a to i32
  ret i32 %r
}
"#;

#[test]
fn calls_without_a_group_meaning_are_errors() {
    let cases = [
        (
            "define i32 @f(ptr %p, i32 %x) {\n %n = call i32 @batchify_packed_store_active_i32(ptr %p, i32 %x)\n ret i32 %n\n}",
            false,
            false,
            "stores through a pointer that differs between lanes",
        ),
        (
            "define float @f(float %x, i32 %y) {\n %r = call float @batchify_reduce_add_f32(float %x)\n ret float %r\n}",
            true,
            false,
            "not accepted in clones for differentiation",
        ),
        (
            "define i32 @f(i32 %x, i32 %y) {\n %r = call i32 @helper(i32 %x)\n ret i32 %r\n}",
            false,
            false,
            "it calls `helper`, which uses the cross-lane operation `batchify_any`, but the call cannot be a call of its clone",
        ),
        (
            "define i32 @f(i32 %x, i32 %y) {\n %c = icmp sgt i32 %x, %y\n %b = call i4 @batchify_ballot.1(i1 %c)\n %r = zext i4 %b to i32\n ret i32 %r\n}",
            false,
            false,
            "too narrow for the 8 lanes' bits",
        ),
        (
            "define i1 @f(i32 %x, i32 %y) {\n %c = icmp sgt i32 %x, %y\n %a = call i1 @batchify_any(i1 %c)\n ret i1 %a\n}",
            false,
            true,
            "has no per-lane loop",
        ),
    ];
    for (body, for_autodiff, per_lane, want) in cases {
        let ir = format!("{DECLS}\n{body}");
        let e = batch_error(&ir, for_autodiff, per_lane);
        assert!(e.starts_with("cannot batchify `f`: "), "{e}");
        assert!(e.contains(want), "{e}\nwanted: {want}");
        assert!(!e.contains('\n'), "one line: {e}");
    }
}

/// RV's ten whole-function tests that call its intrinsics
/// (`tests/rv-intrinsics/run.sh`: 8 AVX2 lanes, and 16 AVX-512 lanes where
/// the CPU has them).
#[test]
fn rv_intrinsic_tests_pass() {
    let test = "rv_intrinsic_tests_pass";
    if !batchify_testkit::skip::require_tool(test, "clang-22") || !batchify_testkit::skip::require_cpu(test, "avx2") {
        return;
    }
    let batchify = batchify_testkit::plugin::library().with_file_name("batchify");
    if !batchify.exists() {
        batchify_testkit::skip::skip(
            test,
            &format!("{} is not built (cargo build -p batchify-cli)", batchify.display()),
        );
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let out =
        run_checked(Command::new("sh").arg(root().join("tests/rv-intrinsics/run.sh")).arg(&batchify).arg(dir.path()));
    assert!(out.contains("ok: 10 tests, rv_shuffle and rv_index x 200 rounds at 8 lanes, 0 mismatches"), "{out}");
    if std::arch::is_x86_feature_detected!("avx512f") {
        assert!(out.contains("ok: 10 tests, rv_shuffle and rv_index x 200 rounds at 16 lanes, 0 mismatches"), "{out}");
    } else {
        batchify_testkit::skip::require_cpu(test, "avx512f");
    }
}
