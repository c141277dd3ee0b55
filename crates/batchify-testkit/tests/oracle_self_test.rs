//! The oracle must be able to fail: hand-written wrong clones are caught,
//! with the right lane, and a correct hand-written clone passes.

use batchify_core::vfabi::Isa;
use batchify_core::CloneSpec;
use batchify_testkit::corpus::parse_module;
use batchify_testkit::{CheckConfig, Oracle, OracleError};
use inkwell::context::Context;

const MODULE: &str = r#"
define float @f(float %x, float %y) {
  %m = fmul float %x, %y
  %r = fadd float %m, 1.0
  ret float %r
}

; Correct clone.
define <4 x float> @_ZGV_LLVM_N4vv_f(<4 x float> %x, <4 x float> %y) {
  %m = fmul <4 x float> %x, %y
  %r = fadd <4 x float> %m, splat (float 1.0)
  ret <4 x float> %r
}

define i32 @g(i32 %x) {
  %r = mul i32 %x, 3
  ret i32 %r
}

; Wrong in lane 2 only: adds 1 there.
define <4 x i32> @_ZGV_LLVM_N4v_g(<4 x i32> %x) {
  %m = mul <4 x i32> %x, splat (i32 3)
  %r = add <4 x i32> %m, <i32 0, i32 0, i32 1, i32 0>
  ret <4 x i32> %r
}

define float @h(float %x) {
  %r = call float @llvm.sqrt.f32(float %x)
  ret float %r
}

; Contracted: fma instead of mul+add is not bit-exact on all inputs; here
; the clone computes sqrt with a different rounding (via double), which
; differs in the last bit for some inputs, and NaN payload handling.
define <4 x float> @_ZGV_LLVM_N4v_h(<4 x float> %x) {
  %d = fpext <4 x float> %x to <4 x double>
  %s = call <4 x double> @llvm.sqrt.v4f64(<4 x double> %d)
  %m = fmul <4 x double> %s, splat (double 1.0000001)
  %r = fptrunc <4 x double> %m to <4 x float>
  ret <4 x float> %r
}

declare float @llvm.sqrt.f32(float)
declare <4 x double> @llvm.sqrt.v4f64(<4 x double>)
"#;

fn spec(name: &str, params: usize) -> CloneSpec {
    CloneSpec::all_varying(name, params, 4, Isa::Llvm, false)
}

#[test]
fn correct_clone_passes() {
    let ctx = Context::create();
    let m = parse_module(&ctx, MODULE.as_bytes(), "self-test").unwrap();
    let oracle = Oracle::new(&m, &[spec("f", 2)]).unwrap();
    let stats = oracle.check_all(&CheckConfig::default()).unwrap();
    assert_eq!(stats.lanes_compared, 200 * 4);
}

#[test]
fn wrong_lane_is_caught_and_named() {
    let ctx = Context::create();
    let m = parse_module(&ctx, MODULE.as_bytes(), "self-test").unwrap();
    let oracle = Oracle::new(&m, &[spec("g", 1)]).unwrap();
    match oracle.check_all(&CheckConfig::default()) {
        Err(OracleError::Mismatch(mm)) => {
            assert_eq!(mm.lane, 2);
            assert_eq!(mm.trial, 0);
            assert_eq!(mm.clone, "_ZGV_LLVM_N4v_g");
            let msg = mm.to_string();
            assert!(msg.contains("lane 2"), "{msg}");
        }
        other => panic!("expected a mismatch, got {other:?}"),
    }
}

#[test]
fn last_bit_differences_are_caught() {
    let ctx = Context::create();
    let m = parse_module(&ctx, MODULE.as_bytes(), "self-test").unwrap();
    let oracle = Oracle::new(&m, &[spec("h", 1)]).unwrap();
    assert!(matches!(oracle.check_all(&CheckConfig::default()), Err(OracleError::Mismatch(_))));
}
