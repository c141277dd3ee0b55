//! The semantics contract: a `noreturn` call reached by several active lanes
//! is made for the lowest such lane. `tests/noreturn/kernel.c` exits from a
//! divergent loop and from divergent branches; its masked 8-lane clone and
//! 8 scalar calls in lane order run in child processes on the same random
//! inputs and masks, and must end the same way (exit status, or the printed
//! results when no lane exits).

use batchify_core::vfabi::Isa;
use batchify_core::CloneSpec;
use batchify_testkit::corpus::{compile_c, parse_module, run_checked, CLevel};
use inkwell::context::Context;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use std::path::Path;
use std::process::Command;

#[test]
fn lowest_lane_noreturn_call_wins() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/noreturn");
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let bc = compile_c(&src.join("kernel.c"), CLevel::O2, &[]).unwrap();
    let ctx = Context::create();
    let module = parse_module(&ctx, &bc, "kernel").unwrap();
    if !batchify_testkit::skip::require_cpu("noreturn_lowest_lane", "avx2") {
        return;
    }
    let spec = CloneSpec::all_varying("g", 2, 8, Isa::Avx2, true);
    let reports = batchify_core::batchify_inkwell(&module, &[spec], &Default::default()).unwrap();
    assert!(reports[0].fallback.is_none(), "{:?}", reports[0].fallback);
    module.write_bitcode_to_path(d.join("batched.bc"));
    let exe = d.join("driver");
    run_checked(
        Command::new("clang-22")
            .args(["-O2", "-mavx2", "-o"])
            .arg(&exe)
            .arg(src.join("driver.c"))
            .arg(d.join("batched.bc")),
    );
    let mut rng = SmallRng::seed_from_u64(7);
    let mut exits = 0;
    for _ in 0..150 {
        let mut args = vec![String::new(), rng.gen_range(0..256u32).to_string()];
        for _ in 0..8 {
            args.push(rng.gen_range(-2..20).to_string());
            args.push(rng.gen_range(-80..40).to_string());
        }
        let outcome = |mode: &str| {
            let mut a = args.clone();
            a[0] = mode.to_string();
            let out = Command::new(&exe).args(&a).output().expect("run the driver");
            (out.status.code(), out.status.to_string(), String::from_utf8_lossy(&out.stdout).into_owned())
        };
        let (scalar, vector) = (outcome("scalar"), outcome("vector"));
        assert_eq!(scalar, vector, "inputs {:?}", &args[1..]);
        if scalar.0 != Some(0) {
            exits += 1;
        }
    }
    assert!(exits > 30, "too few runs exercised a noreturn call: {exits}");
}
