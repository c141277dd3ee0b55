//! Issue "Must show": `--variant _ZGVdN8uuv_smoothstep` on clang-22
//! `-O2 -fopenmp-simd` IR of `examples/smoothstep/smoothstep.c` gives a clone
//! that C calls as `__m256 _ZGVdN8uuv_smoothstep(float, float, __m256)`, with
//! results bit-identical to 8 scalar calls (checked by the demo's driver on
//! 2^20 inputs with NaN, ±0, ±inf, edge values and subnormals). The same
//! path as `cargo xtask demo`, without the timing. Skipped without AVX2.

use batchify_core::vfabi::VariantName;
use batchify_core::CloneSpec;
use batchify_testkit::corpus::{compile_c, parse_module, run_checked as run, CLevel};
use inkwell::context::Context;
use std::path::Path;
use std::process::Command;

#[test]
fn avx2_clone_called_from_c_is_bit_identical() {
    if !batchify_testkit::skip::require_cpu("avx2_clone_called_from_c_is_bit_identical", "avx2") {
        return;
    }
    let ex = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/smoothstep");
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // Exactly the input: clang-22 -O2 -fopenmp-simd (no -ffast-math).
    let bc = compile_c(&ex.join("smoothstep.c"), CLevel::O2, &["-fopenmp-simd"]).unwrap();
    let ctx = Context::create();
    let module = parse_module(&ctx, &bc, "smoothstep").unwrap();
    let spec = CloneSpec::from_variant(&VariantName::parse("_ZGVdN8uuv_smoothstep").unwrap()).unwrap();
    let reports = batchify_core::batchify_inkwell(&module, &[spec], &Default::default()).unwrap();
    assert!(reports[0].fallback.is_none());
    let clone = module.get_function("_ZGVdN8uuv_smoothstep").expect("the clone exists");
    let ty = clone.get_type().print_to_string().to_string();
    assert_eq!(ty, "<8 x float> (float, float, <8 x float>)");
    module.write_bitcode_to_path(d.join("batched.bc"));
    let avx2 = d.join("driver_avx2.o");
    run(Command::new("clang-22").args(["-O2", "-mavx2", "-c", "-o"]).arg(&avx2).arg(ex.join("driver_avx2.c")));
    let exe = d.join("demo");
    run(Command::new("clang-22")
        .args(["-O2", "-o"])
        .arg(&exe)
        .arg(ex.join("driver.c"))
        .arg(&avx2)
        .arg(d.join("batched.bc"))
        .arg("-lm"));
    let out = run(&mut Command::new(&exe));
    assert!(out.contains("bit-identical: yes (1048576 elements)"), "{out}");
}
