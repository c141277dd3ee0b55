//! Bucketed maps (`--bucket KEY`, `batchify_core::map_entry::bucket`): built
//! through the driver as the CLI and the plugin ask for them, and checked
//! by `batchify_testkit::map_check` over whole arrays (n = 0, 1, N-1, N,
//! N+1, ..., two windows and a part, against guard pages, in place), at 4,
//! 8 and 16 lanes, masked and unmasked requests; keys of 1 to 64 bits,
//! keys past the last bucket and negative ones; and the refusals: a key of
//! the wrong type, a key or a function that may write memory, a linear
//! parameter.

use batchify_core::driver::{self, OnError, Selection};
use batchify_core::map_entry::{MapForm, MapRequest};
use batchify_core::vfabi::VariantName;
use batchify_core::{CloneSpec, Options};
use batchify_testkit::corpus::parse_module;
use batchify_testkit::map_check::{check_map, MapCheckConfig};
use inkwell::context::Context;

/// The keys of the map tests' kernels (`map_kernels.ll`, which carry no
/// attributes: LLVM's `function-attrs` finds which write no memory), a
/// kernel with an `i1` result, and keys that do not fit.
const KEYS: &str = r#"
; Keys past the last bucket (up to 511) share it.
define i32 @steps_key(i32 %x, i32 %cap) {
  %k = and i32 %x, 511
  ret i32 %k
}

; An 8-bit key: the magnitude of the point, in 16 classes.
define i8 @escape_key(float %cr, float %ci) {
  %rr = fmul float %cr, %cr
  %ii = fmul float %ci, %ci
  %m = fadd float %rr, %ii
  %s = fmul float %m, 4.0
  %c = fptoui float %s to i8
  %k = and i8 %c, 15
  ret i8 %k
}

; A 64-bit key, negative for half the elements (the last bucket).
define i64 @odd_key(i17 %a, i17 %b) {
  %k = sext i17 %a to i64
  ret i64 %k
}

define i1 @flag(double %x, i1 %neg) {
entry:
  br i1 %neg, label %flip, label %done
flip:
  %y = fneg double %x
  br label %done
done:
  %r = phi double [ %x, %entry ], [ %y, %flip ]
  %c = fcmp olt double %r, 1.0
  ret i1 %c
}

; A one-bit key.
define i1 @flag_key(double %x, i1 %neg) {
  ret i1 %neg
}

define i32 @writing_key(i32 %x, i32 %cap) {
  %e = sext i32 %x to i64
  call void @batchify_record(i64 2, i64 %e)
  ret i32 %x
}

define i32 @short_key(i32 %x) {
  ret i32 %x
}

define float @float_key(i32 %x, i32 %cap) {
  %f = sitofp i32 %x to float
  ret float %f
}
"#;

/// The kernels and the keys, with the `memory` attributes LLVM's
/// `function-attrs` infers (what clang's `-O2` gives C functions).
fn parse_kernels(ctx: &Context) -> inkwell::module::Module<'_> {
    let text = format!("{}\n{KEYS}", include_str!("map_kernels.ll"));
    let module = parse_module(ctx, text.as_bytes(), "kernels").expect("parses");
    batchify_core::llvm::run_module_passes(batchify_core::llvm::Module::from_inkwell(&module), "function-attrs")
        .expect("function-attrs runs");
    module
}

/// Builds the bucketed maps of `(variant, key)` through the driver and
/// checks each; the driver's note names the key.
fn build_and_check(maps: &[(&str, &str)]) {
    for &(variant, key) in maps {
        let ctx = Context::create();
        let module = parse_kernels(&ctx);
        let spec = CloneSpec::from_variant(&VariantName::parse(variant).unwrap()).unwrap();
        let request = MapRequest::named(&spec);
        let out = build(&module, spec, key).unwrap_or_else(|e| panic!("{variant}: {e}"));
        module.verify().unwrap_or_else(|e| panic!("{variant}: {e}"));
        let note = format!(
            "map: {} over {} lanes of {}, bucketed by `{key}` in windows of {}",
            request.name,
            request.spec.width,
            request.spec.vector_name,
            batchify_core::map_entry::bucket::WINDOW
        );
        assert!(out.contains(&note), "{note} not in {out:?}");
        let stats = check_map(&module, &request, &MapCheckConfig::default()).unwrap_or_else(|e| panic!("{e}"));
        assert!(
            stats.elements > 2 * batchify_core::map_entry::bucket::WINDOW as usize,
            "{variant}: no trial crossed a window: {stats:?}"
        );
    }
}

/// The driver's notes, or its error.
fn build(module: &inkwell::module::Module, spec: CloneSpec, key: &str) -> Result<Vec<String>, String> {
    let run = driver::Run {
        selection: Selection::Named { specs: vec![spec], only_here: false },
        on_error: OnError::Stop,
        callers: false,
        maps: true,
        map_form: MapForm::Adaptive,
        bucket: Some(key.to_string()),
    };
    let core = batchify_core::llvm::Module::from_inkwell(module);
    driver::run(core, &run, &Options::default(), &mut |_| {}).map(|o| o.notes).map_err(|e| e.to_string())
}

#[test]
fn bucketed_maps_of_avx2_variants_match_the_scalar_calls() {
    build_and_check(&[
        ("_ZGVdN8vu_steps", "steps_key"),
        ("_ZGVdN8vv_escape", "escape_key"),
        ("_ZGVdN8vv_odd", "odd_key"),
        ("_ZGVdN8vv_flag", "flag_key"),
    ]);
}

#[test]
fn bucketed_maps_of_other_widths_and_masked_requests_match() {
    build_and_check(&[
        ("_ZGVdM16vv_escape", "escape_key"),
        ("_ZGVbN4vu_steps", "steps_key"),
        ("_ZGV_LLVM_M4vv_odd", "odd_key"),
        ("_ZGVdN16vv_flag", "flag_key"),
    ]);
}

#[test]
fn bucketed_maps_of_avx512_variants_match() {
    if !batchify_testkit::skip::require_cpu("bucketed_maps_of_avx512_variants_match", "avx512f") {
        return;
    }
    build_and_check(&[("_ZGVeN16vv_escape", "escape_key"), ("_ZGVeM16vu_steps", "steps_key")]);
}

/// Each refusal is one error naming what is wrong, and no map is built.
#[test]
fn keys_and_functions_that_do_not_fit_are_refused() {
    let cases = [
        ("_ZGVdN8vu_steps", "no_such_key", "has no function `no_such_key`"),
        ("_ZGVdN8vu_steps", "short_key", "a key of `steps` takes its parameters"),
        ("_ZGVdN8vu_steps", "float_key", "returns `float`, not an integer"),
        ("_ZGVdN8vu_steps", "writing_key", "the key `writing_key` may write memory"),
        ("_ZGVdN8v_effect", "short_key", "the function `effect` may write memory"),
        ("_ZGVdN8vl4_steps", "steps_key", "parameter 1 of `_ZGVdN8vl4_steps` is linear"),
    ];
    for (variant, key, want) in cases {
        let ctx = Context::create();
        let module = parse_kernels(&ctx);
        let spec = CloneSpec::from_variant(&VariantName::parse(variant).unwrap()).unwrap();
        let name = MapRequest::named(&spec).name;
        let err = build(&module, spec, key).expect_err(&format!("{variant} bucketed by {key} was built"));
        assert!(err.contains(want), "{variant} by {key}: `{err}` does not say `{want}`");
        assert!(module.get_function(&name).is_none(), "{variant} by {key}: `{name}` exists after the error");
    }
}

/// The random programs through bucketed maps (`batchify-fuzz --map
/// --bucket`): no buffers, recorder calls or linear parameters, so LLVM's
/// `function-attrs` finds every program free of memory writes and every
/// map is built; every map matches its scalar calls over two windows and
/// more, in place and against guard pages.
#[test]
fn random_programs_through_bucketed_maps() {
    use batchify_core::vfabi::Isa;
    use batchify_testkit::fuzz::{self, Engine, FuzzOptions};
    let gen = batchify_testkit::gen::GenConfig {
        p_buffers: 0.0,
        p_buf_helper: 0.0,
        p_record: 0.0,
        p_linear_param: 0.0,
        ..Default::default()
    };
    for (width, isa, seed) in [(8, Isa::Avx2, 0xb0c_0000), (16, Isa::Avx2, 0xb0c_1000), (4, Isa::Llvm, 0xb0c_2000)] {
        let opts = FuzzOptions {
            count: 200,
            seed,
            width,
            isa,
            engine: Engine::Map,
            bucket: true,
            gen: gen.clone(),
            threads: 2,
            ..FuzzOptions::default()
        };
        let s = fuzz::run(&opts);
        eprintln!("{}", s.report());
        assert!(!s.failed(), "{}", s.report());
        assert_eq!(s.ok, s.programs, "{}", s.report());
    }
}
