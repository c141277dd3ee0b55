//! Map entry points (`f_map(n, arrays..., out)`, docs/cli.md "Maps"):
//! built through the driver as the CLI and the plugin ask for them, and
//! checked by `batchify_testkit::map_check` over whole arrays (n = 0, 1,
//! N-1, N, N+1, ..., against guard pages, in place); hand-written wrong
//! maps show that the check can fail; the random programs run through maps.

use batchify_core::driver::{self, OnError, Selection};
use batchify_core::map_entry::{MapForm, MapRequest};
use batchify_core::vfabi::{Isa, VariantName};
use batchify_core::{CloneSpec, Options};
use batchify_testkit::corpus::parse_module;
use batchify_testkit::fuzz::{self, Engine, FuzzOptions};
use batchify_testkit::map_check::{check_map, MapCheckConfig, MapCheckError};
use inkwell::context::Context;

/// A divergent loop (Collatz steps, capped), a uniform and a linear
/// parameter, a recorder call under divergent control flow, an `i1` and
/// an `i17` parameter (one and four bytes per array element), and a loop
/// over an `i17` with an `i1` parameter (refilled: the worker reads and
/// writes odd-width elements too), and an escape-time loop whose trips wait
/// on a chain of float operations (latency-bound: its refill worker runs
/// two lane groups per trip on AVX2 and AVX-512 where a group of floats is
/// one register).
const KERNELS: &str = include_str!("map_kernels.ll");

/// Builds the maps of `variants` through the driver (as `--map` does) in
/// every form and checks each. Only `steps` (a loop, no memory written)
/// has a refill form; the others say why not and stay grouped.
fn build_and_check(variants: &[&str]) {
    for form in [MapForm::Grouped, MapForm::Refill, MapForm::Adaptive] {
        build_and_check_form(variants, form);
    }
}

fn build_and_check_form(variants: &[&str], form: MapForm) {
    let ctx = Context::create();
    let module = parse_module(&ctx, KERNELS.as_bytes(), "kernels").expect("parses");
    let specs: Vec<CloneSpec> =
        variants.iter().map(|v| CloneSpec::from_variant(&VariantName::parse(v).unwrap()).unwrap()).collect();
    let maps: Vec<MapRequest> = specs.iter().map(MapRequest::named).collect();
    let plan = driver::Run {
        selection: Selection::Named { specs, only_here: false },
        on_error: OnError::Stop,
        callers: false,
        maps: true,
        map_form: form,
        bucket: None,
    };
    let core = batchify_core::llvm::Module::from_inkwell(&module);
    let out = driver::run(core, &plan, &Options::default(), &mut |_| {}).expect("batches");
    module.verify().expect("verifies");
    for m in &maps {
        let refills = ["steps", "odd_loop", "escape"].contains(&m.spec.scalar_name.as_str());
        let built_form = if refills { form } else { MapForm::Grouped };
        // Two lane groups where the loop is latency-bound and a group's
        // floats fill one AVX2 or AVX-512 register.
        let two_groups = m.spec.scalar_name == "escape"
            && built_form != MapForm::Grouped
            && matches!((m.spec.isa, m.spec.width), (Isa::Avx2, 8) | (Isa::Avx512, 16));
        let groups = if two_groups { " (refilling 2 lane groups per trip)" } else { "" };
        let note = format!(
            "map: {} over {} lanes of {}, {}{groups}",
            m.name,
            m.spec.width,
            m.spec.vector_name,
            built_form.name()
        );
        assert!(out.notes.contains(&note), "{note} not in {:?}", out.notes);
        let why_not = format!("map: {} has no refill form", m.name);
        assert_eq!(
            out.notes.iter().any(|n| n.starts_with(&why_not)),
            form != MapForm::Grouped && !refills,
            "{:?}",
            out.notes
        );
        // The scalar worker is gone; its clone is there exactly when used.
        let worker = format!("__batchify_refill.{}", m.name);
        let worker_clone = module.get_functions().find(|f| f.get_name().to_str().unwrap().ends_with(&worker));
        assert_eq!(worker_clone.is_some(), refills && form != MapForm::Grouped, "{}", m.name);
        if let Some(clone) = worker_clone {
            let lanes = m.spec.width * if two_groups { 2 } else { 1 };
            let name = clone.get_name().to_str().unwrap().to_string();
            assert!(name.contains(&format!("N{lanes}u")), "{}: worker {name}, {lanes} lanes expected", m.name);
        }
        assert!(module.get_function(&worker).is_none());
        let stats = check_map(&module, m, &MapCheckConfig::default()).unwrap_or_else(|e| panic!("{e}"));
        assert!(stats.elements > 100, "{}: {stats:?}", m.name);
        let has_in_place = module.get_function(&m.spec.scalar_name).unwrap().get_type().get_return_type().is_some()
            && m.name != "odd_map"
            && m.name != "odd_loop_map";
        // `blend` and `escape` return a type none of their inputs has.
        if has_in_place && m.name != "blend_map" && m.name != "escape_map" {
            assert!(stats.in_place_trials > 0, "{}: {stats:?}", m.name);
        }
    }
}

#[test]
fn maps_of_avx2_variants_match_the_scalar_calls() {
    build_and_check(&[
        "_ZGVdN8vu_steps",
        "_ZGVdN8vl1v_blend",
        "_ZGVdN8vv_odd",
        "_ZGVdN8v_effect",
        "_ZGVdN8vv_odd_loop",
        "_ZGVdN8vv_escape",
    ]);
}

#[test]
fn maps_of_sixteen_lanes_and_masked_requests_match() {
    build_and_check(&[
        "_ZGVdM16vu_steps",
        "_ZGVbN4vl1v_blend",
        "_ZGV_LLVM_M4vv_odd",
        "_ZGVbM4vv_odd_loop",
        "_ZGVdN16vv_escape",
    ]);
}

/// 24 AVX2 lanes: the refill worker's packed loads join three registers.
#[test]
fn maps_of_three_avx2_registers_match() {
    build_and_check(&["_ZGVdN24vv_escape"]);
}

#[test]
fn maps_of_avx512_variants_match() {
    if !batchify_testkit::skip::require_cpu("maps_of_avx512_variants_match", "avx512f") {
        return;
    }
    build_and_check(&["_ZGVeN16vu_steps", "_ZGVeM16vl1v_blend", "_ZGVeN16v_effect", "_ZGVeM16vv_escape"]);
}

/// A module-defined request `__batchify_map_<variant>` gets its body
/// replaced; a request whose type does not fit is an error naming both.
#[test]
fn a_defined_request_is_completed_and_a_wrong_type_is_refused() {
    let ctx = Context::create();
    let text = format!(
        "{KERNELS}
define void @__batchify_map__ZGVdN8vu_steps(i64 %n, ptr %x, i32 %cap, ptr %out) {{
  ret void
}}"
    );
    let module = parse_module(&ctx, text.as_bytes(), "req").expect("parses");
    let plan = driver::Run {
        selection: Selection::Requested { isa: None, only_here: false },
        on_error: OnError::Stop,
        callers: false,
        maps: false,
        map_form: MapForm::Adaptive,
        bucket: None,
    };
    let core = batchify_core::llvm::Module::from_inkwell(&module);
    driver::run(core, &plan, &Options::default(), &mut |_| {}).expect("batches");
    let request = batchify_core::map_entry::requests(core).unwrap().pop().expect("one request");
    assert!(request.defined);
    check_map(&module, &request, &MapCheckConfig::default()).unwrap_or_else(|e| panic!("{e}"));

    let ctx = Context::create();
    let text = format!(
        "{KERNELS}
define void @__batchify_map__ZGVdN8vu_steps(i64 %n, ptr %x, ptr %out) {{
  ret void
}}"
    );
    let module = parse_module(&ctx, text.as_bytes(), "bad").expect("parses");
    let core = batchify_core::llvm::Module::from_inkwell(&module);
    let e = driver::run(core, &plan, &Options::default(), &mut |_| {}).unwrap_err().to_string();
    assert!(e.contains("__batchify_map__ZGVdN8vu_steps") && e.contains("void (i64, ptr, i32, ptr)"), "{e}");
}

/// Hand-written maps of `steps` (8 lanes), each wrong in one way: the
/// check must catch every one.
#[test]
fn wrong_maps_are_caught() {
    // Correct for n % 8 == 0 only: the tail is skipped.
    let no_tail = r#"
define void @steps_map(i64 %n, ptr %x, i32 %cap, ptr %out) {
entry:
  %r = urem i64 %n, 8
  %full = sub i64 %n, %r
  %any = icmp ne i64 %full, 0
  br i1 %any, label %loop, label %done
loop:
  %i = phi i64 [ 0, %entry ], [ %i1, %loop ]
  %p = getelementptr i32, ptr %x, i64 %i
  %v = load i32, ptr %p
  %s = call i32 @steps(i32 %v, i32 %cap)
  %q = getelementptr i32, ptr %out, i64 %i
  store i32 %s, ptr %q
  %i1 = add i64 %i, 1
  %more = icmp ult i64 %i1, %full
  br i1 %more, label %loop, label %done
done:
  ret void
}"#;
    // Reads one element past the end (a full vector over the tail).
    let overread = r#"
define void @steps_map(i64 %n, ptr %x, i32 %cap, ptr %out) {
entry:
  %any = icmp ne i64 %n, 0
  br i1 %any, label %loop, label %done
loop:
  %i = phi i64 [ 0, %entry ], [ %i1, %loop ]
  %p = getelementptr i32, ptr %x, i64 %i
  %v = load i32, ptr %p
  %s = call i32 @steps(i32 %v, i32 %cap)
  %q = getelementptr i32, ptr %out, i64 %i
  store i32 %s, ptr %q
  %i1 = add i64 %i, 1
  %more = icmp ule i64 %i1, %n
  br i1 %more, label %loop, label %done
done:
  ret void
}"#;
    // Right results, but element 5's input is overwritten.
    let clobbers = r#"
define void @steps_map(i64 %n, ptr %x, i32 %cap, ptr %out) {
entry:
  %any = icmp ne i64 %n, 0
  br i1 %any, label %loop, label %done
loop:
  %i = phi i64 [ 0, %entry ], [ %i1, %loop ]
  %p = getelementptr i32, ptr %x, i64 %i
  %v = load i32, ptr %p
  %s = call i32 @steps(i32 %v, i32 %cap)
  %q = getelementptr i32, ptr %out, i64 %i
  store i32 %s, ptr %q
  %five = icmp eq i64 %i, 5
  %w = select i1 %five, i32 12345, i32 %v
  store i32 %w, ptr %p
  %i1 = add i64 %i, 1
  %more = icmp ult i64 %i1, %n
  br i1 %more, label %loop, label %done
done:
  ret void
}"#;
    // Wrong in place: writes each result before reading the next input,
    // shifted by one, so an in-place call reads a result as an input.
    let not_in_place = r#"
define void @steps_map(i64 %n, ptr %x, i32 %cap, ptr %out) {
entry:
  %any = icmp ne i64 %n, 0
  br i1 %any, label %loop, label %done
loop:
  %i = phi i64 [ 0, %entry ], [ %i1, %next ]
  %p = getelementptr i32, ptr %x, i64 %i
  %v = load i32, ptr %p
  %s = call i32 @steps(i32 %v, i32 %cap)
  %q = getelementptr i32, ptr %out, i64 %i
  store i32 %s, ptr %q
  %i1 = add i64 %i, 1
  %last = icmp eq i64 %i1, %n
  br i1 %last, label %done, label %next
next:
  %q1 = getelementptr i32, ptr %out, i64 %i1
  store i32 0, ptr %q1
  br label %loop
done:
  ret void
}"#;
    for (what, body) in
        [("no tail", no_tail), ("overread", overread), ("clobbers", clobbers), ("in place", not_in_place)]
    {
        let ctx = Context::create();
        let module = parse_module(&ctx, format!("{KERNELS}{body}").as_bytes(), what).expect("parses");
        let spec = CloneSpec::from_variant(&VariantName::parse("_ZGVdN8vu_steps").unwrap()).unwrap();
        let request = MapRequest::named(&spec);
        match check_map(&module, &request, &MapCheckConfig::default()) {
            Err(MapCheckError::Mismatch(m)) => eprintln!("{what}: caught: {m}"),
            other => panic!("{what}: the wrong map was not caught: {other:?}"),
        }
    }
    // The recorder: groups of elements run out of order.
    let reversed = r#"
define void @effect_map(i64 %n, ptr %x) {
entry:
  %any = icmp ne i64 %n, 0
  br i1 %any, label %loop, label %done
loop:
  %i = phi i64 [ %n, %entry ], [ %i1, %loop ]
  %i1 = sub i64 %i, 1
  %p = getelementptr i32, ptr %x, i64 %i1
  %v = load i32, ptr %p
  call void @effect(i32 %v)
  %more = icmp ne i64 %i1, 0
  br i1 %more, label %loop, label %done
done:
  ret void
}"#;
    let ctx = Context::create();
    let module = parse_module(&ctx, format!("{KERNELS}{reversed}").as_bytes(), "reversed").expect("parses");
    let spec = CloneSpec::from_variant(&VariantName::parse("_ZGVdN8v_effect").unwrap()).unwrap();
    match check_map(&module, &MapRequest::named(&spec), &MapCheckConfig::default()) {
        Err(MapCheckError::Mismatch(m)) => assert!(m.contains("recorder log"), "{m}"),
        other => panic!("a map running its groups backwards was not caught: {other:?}"),
    }
}

/// Runs 250 random programs through maps of `form` at each of `runs`
/// (width, ISA, seed), with `gen`'s generator: every map matches its
/// scalar calls. Returns how many maps ran a refill worker.
fn random_maps(form: MapForm, gen: batchify_testkit::gen::GenConfig, runs: &[(u32, Isa, u64)]) -> Vec<usize> {
    let mut refills = Vec::new();
    for &(width, isa, seed) in runs {
        let opts = FuzzOptions {
            count: 250,
            seed,
            width,
            isa,
            engine: Engine::Map,
            map_form: form,
            gen: gen.clone(),
            threads: 2,
            ..FuzzOptions::default()
        };
        let s = fuzz::run(&opts);
        eprintln!("{}", s.report());
        assert!(!s.failed(), "{}", s.report());
        assert_eq!(s.oracle_setup_errors, 0, "{}", s.report());
        assert_eq!(s.ok, s.programs, "{}", s.report());
        refills.push(s.refill_maps);
    }
    refills
}

/// The random programs through the map: masked and unmasked twins, 4, 8
/// and 16 lanes, target-independent and x86 variants, adaptive maps
/// (longer runs: `batchify-fuzz --map`).
#[test]
fn random_programs_through_maps() {
    let gen = batchify_testkit::gen::GenConfig { p_buffers: 0.0, p_buf_helper: 0.0, ..Default::default() };
    random_maps(
        MapForm::Adaptive,
        gen,
        &[(8, Isa::Llvm, 0x3a9_0000), (4, Isa::Avx2, 0x3a9_1000), (16, Isa::Avx2, 0x3a9_2000)],
    );
}

/// Random programs through refilling maps (no recorder calls, which would
/// rule refill out): every map matches, and some run a refill worker.
#[test]
fn random_programs_through_refilling_maps() {
    let gen =
        batchify_testkit::gen::GenConfig { p_buffers: 0.0, p_buf_helper: 0.0, p_record: 0.0, ..Default::default() };
    for refills in random_maps(MapForm::Refill, gen, &[(8, Isa::Llvm, 0x3a9_3000), (16, Isa::Avx2, 0x3a9_4000)]) {
        assert!(refills >= 20, "only {refills} of 250 maps ran a refill worker");
    }
}
