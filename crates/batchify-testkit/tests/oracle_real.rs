//! The oracle on what users write (issue 6): functions of any linkage and
//! calling convention, pointer parameters (varying, uniform, linear; loads
//! and stores) in guard-page-bounded buffers, `byval` and `sret`, modules
//! with inline asm, and callers of the clone optimised at `-O2`.
//!
//! Inputs live in `tests/corpus/real/`. Each feature has a "batchify's clone
//! passes" test and a self-test: a hand-written wrong clone that the oracle
//! must catch. The clones batchify built before the issue 6 fixes (fastcc
//! fallbacks, copied `memory(argmem)`, byval written through) fail these
//! tests.

use batchify_core::vfabi::{Isa, VariantName};
use batchify_core::CloneSpec;
use batchify_testkit::corpus::{compile_c, parse_module, CLevel};
use batchify_testkit::{CheckConfig, CloneOutcome, MismatchKind, Oracle, OracleError, OracleOptions};
use inkwell::context::Context;
use inkwell::module::Module;
use std::path::{Path, PathBuf};

fn real(file: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus/real").join(file)
}

fn spec(variant: &str) -> CloneSpec {
    CloneSpec::from_variant(&VariantName::parse(variant).expect("valid variant name")).expect("valid spec")
}

fn load<'c>(ctx: &'c Context, file: &str) -> Module<'c> {
    let path = real(file);
    let bytes = if file.ends_with(".c") {
        compile_c(&path, CLevel::O2, &[]).unwrap_or_else(|e| panic!("{e}"))
    } else {
        std::fs::read(&path).unwrap()
    };
    parse_module(ctx, &bytes, file).unwrap()
}

fn opts() -> OracleOptions {
    OracleOptions { optimized_caller: true, ..Default::default() }
}

fn cfg() -> CheckConfig {
    CheckConfig { trials: 100, ..Default::default() }
}

/// Batches `variants` of the functions in `module` with batchify and checks
/// each clone; returns the outcomes and whether each clone fell back.
fn batch_and_check(module: &Module<'_>, variants: &[&str], o: &OracleOptions) -> Vec<(CloneOutcome, bool)> {
    let specs: Vec<CloneSpec> = variants.iter().map(|v| spec(v)).collect();
    let reports = batchify_core::batchify_inkwell(module, &specs, &batchify_core::Options::default())
        .unwrap_or_else(|e| panic!("batchify failed: {e}"));
    let oracle = Oracle::with_options(module, &specs, o).unwrap_or_else(|e| panic!("{e}"));
    oracle.check_each(&cfg()).into_iter().zip(reports.iter().map(|r| r.fallback.is_some())).collect()
}

/// Every outcome must be a pass that compared lanes.
fn assert_all_pass(outcomes: &[(CloneOutcome, bool)]) {
    let bad: Vec<String> = outcomes
        .iter()
        .filter_map(|(o, _)| match &o.result {
            Ok(s) if s.lanes_compared > 0 => None,
            Ok(_) => Some(format!("{}: no lanes compared", o.clone)),
            Err(e) => Some(e.to_string()),
        })
        .collect();
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// Checks a hand-written module (scalar functions and clones) and returns
/// each clone's outcome.
fn check_ir(ir: &str, variants: &[&str], o: &OracleOptions) -> Vec<CloneOutcome> {
    let ctx = Context::create();
    let m = parse_module(&ctx, ir.as_bytes(), "hand-written").unwrap();
    let specs: Vec<CloneSpec> = variants.iter().map(|v| spec(v)).collect();
    let oracle = Oracle::with_options(&m, &specs, o).unwrap_or_else(|e| panic!("{e}"));
    oracle.check_each(&cfg())
}

fn mismatch(o: &CloneOutcome) -> &batchify_testkit::Mismatch {
    match &o.result {
        Err(OracleError::Mismatch(m)) => m,
        other => panic!("{}: expected a failure, got {other:?}", o.clone),
    }
}

// ---------------------------------------------------------------------------
// Linkage and calling conventions

#[test]
fn any_linkage_and_calling_convention() {
    let ctx = Context::create();
    let m = load(&ctx, "conventions.ll");
    let out = batch_and_check(
        &m,
        &[
            "_ZGV_LLVM_N8vv_internal_fast",
            "_ZGV_LLVM_M4v_private_tail",
            "_ZGV_LLVM_N8vv_linkonce_cold",
            "_ZGV_LLVM_N4v_avail_swift",
            "_ZGV_LLVM_N8v_internal_preserve_most",
            "_ZGV_LLVM_N8vv_internal_preserve_none",
            "_ZGV_LLVM_N16v_signext_arg",
            "_ZGV_LLVM_M8v_user",
        ],
        &opts(),
    );
    for (o, fallback) in &out {
        assert!(!fallback, "{}: unexpected fallback", o.clone);
    }
    assert_all_pass(&out);
}

/// batchify's per-lane fallback for an internal fastcc function must call
/// it with `fastcc`.
#[test]
fn fastcc_fallback_clone_is_right() {
    let ctx = Context::create();
    let m = load(&ctx, "fastcc_fallback.ll");
    let out = batch_and_check(&m, &["_ZGV_LLVM_N8vv_irreducible_fast", "_ZGV_LLVM_M8vv_irreducible_fast"], &opts());
    assert!(out.iter().all(|(_, fallback)| *fallback), "expected the per-lane fallback");
    assert_all_pass(&out);
}

const BROKEN_FASTCC: &str = r#"
define internal fastcc i32 @f(i32 %x) {
  %r = mul i32 %x, 5
  ret i32 %r
}

; What LLVM makes of a per-lane loop whose calls lack `fastcc`.
define <4 x i32> @_ZGV_LLVM_N4v_f(<4 x i32> %x) {
  unreachable
}

define internal fastcc i32 @g(i32 %x) {
  %r = mul i32 %x, 5
  ret i32 %r
}

; The per-lane loop before optimisation: calls without `fastcc`.
define <2 x i32> @_ZGV_LLVM_N2v_g(<2 x i32> %x) {
  %x0 = extractelement <2 x i32> %x, i32 0
  %r0 = call i32 @g(i32 %x0)
  %x1 = extractelement <2 x i32> %x, i32 1
  %r1 = call i32 @g(i32 %x1)
  %v0 = insertelement <2 x i32> poison, i32 %r0, i32 0
  %v1 = insertelement <2 x i32> %v0, i32 %r1, i32 1
  ret <2 x i32> %v1
}
"#;

/// Self-test: an emptied clone faults (the oracle traps `unreachable`), and
/// the fault is reported as a failure naming the clone while the test
/// process survives; a call without the callee's convention is reported.
#[test]
fn broken_fastcc_clones_are_caught() {
    let out = check_ir(BROKEN_FASTCC, &["_ZGV_LLVM_N4v_f", "_ZGV_LLVM_N2v_g"], &opts());
    let m = mismatch(&out[0]);
    assert!(matches!(m.kind, MismatchKind::Fault { signal, .. } if signal == libc::SIGILL), "{m}");
    assert!(m.to_string().contains("_ZGV_LLVM_N4v_f"), "{m}");
    let m = mismatch(&out[1]);
    assert!(matches!(&m.kind, MismatchKind::CallingConvention { callee, .. } if callee == "g"), "{m}");
}

// ---------------------------------------------------------------------------
// Pointer parameters

fn check_pointers(variants: &[&str]) -> Vec<(CloneOutcome, bool)> {
    let ctx = Context::create();
    let m = load(&ctx, "pointers.ll");
    batch_and_check(&m, variants, &opts())
}

#[test]
fn pointer_loads_and_stores() {
    let out = check_pointers(&[
        "_ZGV_LLVM_N8vv_load_v",
        "_ZGV_LLVM_M8vv_load_v",
        "_ZGV_LLVM_N8vv_store_v",
        "_ZGV_LLVM_M4vv_store_v",
        "_ZGV_LLVM_N8uv_sum_u",
        "_ZGV_LLVM_M8uv_sum_u",
        "_ZGV_LLVM_N8l4v_scale_l",
        "_ZGV_LLVM_M8l4v_scale_l",
        "_ZGV_LLVM_N8v_neg_offset",
        "_ZGV_LLVM_N8vv_ptr_ret",
        "_ZGV_LLVM_N16v_deref16",
    ]);
    assert_all_pass(&out);
}

/// A pointer with a variable linear step is refused: its step counts
/// elements of the pointee type (GCC's clones scale it), which LLVM IR does
/// not say (batchify used to read it as bytes, which GCC's callers do not
/// pass).
#[test]
fn pointer_with_variable_linear_step_is_refused() {
    let ctx = Context::create();
    let m = load(&ctx, "pointers.ll");
    for v in ["_ZGV_LLVM_N4ls1uv_store_ls", "_ZGV_LLVM_M8ls1uv_store_ls"] {
        let e = batchify_core::batchify_inkwell(&m, &[spec(v)], &batchify_core::Options::default()).unwrap_err();
        let text = e.to_string();
        assert!(text.contains("variable linear step") && text.contains("parameter 0"), "{v}: {text}");
    }
}

#[test]
fn uniform_pointer_conflicting_writes() {
    let out = check_pointers(&["_ZGV_LLVM_N4uvv_write_u", "_ZGV_LLVM_M8uvv_write_u"]);
    assert_all_pass(&out);
}

#[test]
fn sret_is_compared() {
    let out = check_pointers(&["_ZGV_LLVM_N8vv_sret_make", "_ZGV_LLVM_N4vv_sret_make"]);
    assert_all_pass(&out);
}

#[test]
fn byval_clone_is_right() {
    let out = check_pointers(&["_ZGV_LLVM_N8vv_byval_sum", "_ZGV_LLVM_M8vv_byval_sum"]);
    assert_all_pass(&out);
}

const BROKEN_POINTERS: &str = r#"
%struct.S = type { i32, i32, i32, i32 }

define void @store(ptr %p, i32 %x) {
  store i32 %x, ptr %p, align 4
  ret void
}

; Stores lane k's value into lane (k+1)%4's buffer.
define void @_ZGV_LLVM_N4vv_store(<4 x ptr> %p, <4 x i32> %x) {
  %r = shufflevector <4 x ptr> %p, <4 x ptr> poison, <4 x i32> <i32 1, i32 2, i32 3, i32 0>
  call void @llvm.masked.scatter.v4i32.v4p0(<4 x i32> %x, <4 x ptr> %r, i32 4, <4 x i1> splat (i1 true))
  ret void
}

define i32 @deref(ptr dereferenceable(16) %p) {
  %q = getelementptr inbounds i8, ptr %p, i64 12
  %v = load i32, ptr %q, align 4
  ret i32 %v
}

; Reads 4 bytes past the 16-byte object: runs into the guard page.
define <4 x i32> @_ZGV_LLVM_N4v_deref(<4 x ptr> %p) {
  %q = getelementptr inbounds i8, <4 x ptr> %p, i64 16
  %v = call <4 x i32> @llvm.masked.gather.v4i32.v4p0(<4 x ptr> %q, i32 4, <4 x i1> splat (i1 true), <4 x i32> poison)
  ret <4 x i32> %v
}

define i32 @byval_sum(ptr byval(%struct.S) align 4 %s, i32 %x) {
  %a = load i32, ptr %s, align 4
  %a1 = add i32 %a, %x
  store i32 %a1, ptr %s, align 4
  %bp = getelementptr inbounds i8, ptr %s, i64 4
  %b = load i32, ptr %bp, align 4
  %r = add i32 %a1, %b
  ret i32 %r
}

; Writes through the caller's objects, as no byval callee may.
define <4 x i32> @_ZGV_LLVM_N4vv_byval_sum(<4 x ptr> %s, <4 x i32> %x) {
  %a = call <4 x i32> @llvm.masked.gather.v4i32.v4p0(<4 x ptr> %s, i32 4, <4 x i1> splat (i1 true), <4 x i32> poison)
  %a1 = add <4 x i32> %a, %x
  call void @llvm.masked.scatter.v4i32.v4p0(<4 x i32> %a1, <4 x ptr> %s, i32 4, <4 x i1> splat (i1 true))
  %bp = getelementptr inbounds i8, <4 x ptr> %s, i64 4
  %b = call <4 x i32> @llvm.masked.gather.v4i32.v4p0(<4 x ptr> %bp, i32 4, <4 x i1> splat (i1 true), <4 x i32> poison)
  %r = add <4 x i32> %a1, %b
  ret <4 x i32> %r
}

; Right: works on private copies.
define <2 x i32> @_ZGV_LLVM_N2vv_byval_sum(<2 x ptr> %s, <2 x i32> %x) {
  %a = call <2 x i32> @llvm.masked.gather.v2i32.v2p0(<2 x ptr> %s, i32 4, <2 x i1> splat (i1 true), <2 x i32> poison)
  %a1 = add <2 x i32> %a, %x
  %bp = getelementptr inbounds i8, <2 x ptr> %s, i64 4
  %b = call <2 x i32> @llvm.masked.gather.v2i32.v2p0(<2 x ptr> %bp, i32 4, <2 x i1> splat (i1 true), <2 x i32> poison)
  %r = add <2 x i32> %a1, %b
  ret <2 x i32> %r
}

define void @sret_make(ptr sret(%struct.S) align 4 %out, i32 %x) {
  store i32 %x, ptr %out, align 4
  %c = getelementptr inbounds i8, ptr %out, i64 8
  store i32 -1, ptr %c, align 4
  ret void
}

; Forgets the third field.
define void @_ZGV_LLVM_N4vv_sret_make(<4 x ptr> %out, <4 x i32> %x) {
  call void @llvm.masked.scatter.v4i32.v4p0(<4 x i32> %x, <4 x ptr> %out, i32 4, <4 x i1> splat (i1 true))
  ret void
}

define ptr @ptr_ret(ptr %p, i32 %i) {
  %m = and i32 %i, 7
  %q = getelementptr inbounds i32, ptr %p, i32 %m
  ret ptr %q
}

; Right.
define <4 x ptr> @_ZGV_LLVM_N4vv_ptr_ret(<4 x ptr> %p, <4 x i32> %i) {
  %m = and <4 x i32> %i, splat (i32 7)
  %q = getelementptr inbounds i32, <4 x ptr> %p, <4 x i32> %m
  ret <4 x ptr> %q
}

; Off by one element.
define <2 x ptr> @_ZGV_LLVM_N2vv_ptr_ret(<2 x ptr> %p, <2 x i32> %i) {
  %m = and <2 x i32> %i, splat (i32 7)
  %q = getelementptr inbounds i32, <2 x ptr> %p, <2 x i32> %m
  %q1 = getelementptr inbounds i8, <2 x ptr> %q, i64 4
  ret <2 x ptr> %q1
}

define void @write_u(ptr %p, i32 %i, i32 %x) {
  %m = and i32 %i, 1
  %q = getelementptr inbounds i32, ptr %p, i32 %m
  store i32 %x, ptr %q, align 4
  ret void
}

; Conflicting writes in reverse lane order: the lowest lane wins.
define void @_ZGV_LLVM_N4uvv_write_u(ptr %p, <4 x i32> %i, <4 x i32> %x) {
  %m = and <4 x i32> %i, splat (i32 1)
  %q = getelementptr inbounds i32, ptr %p, <4 x i32> %m
  %rq = shufflevector <4 x ptr> %q, <4 x ptr> poison, <4 x i32> <i32 3, i32 2, i32 1, i32 0>
  %rx = shufflevector <4 x i32> %x, <4 x i32> poison, <4 x i32> <i32 3, i32 2, i32 1, i32 0>
  call void @llvm.masked.scatter.v4i32.v4p0(<4 x i32> %rx, <4 x ptr> %rq, i32 4, <4 x i1> splat (i1 true))
  ret void
}

define i32 @nullable(ptr %p) {
  %z = icmp eq ptr %p, null
  br i1 %z, label %null, label %load
null:
  ret i32 -1
load:
  %v = load i32, ptr %p, align 4
  ret i32 %v
}

; Forgets the null check.
define <4 x i32> @_ZGV_LLVM_N4v_nullable(<4 x ptr> %p) {
  %v = call <4 x i32> @llvm.masked.gather.v4i32.v4p0(<4 x ptr> %p, i32 4, <4 x i1> splat (i1 true), <4 x i32> poison)
  ret <4 x i32> %v
}

define i32 @far(ptr %p) {
  %q = getelementptr inbounds i8, ptr %p, i64 4096
  %v = load i32, ptr %q, align 4
  ret i32 %v
}

define <4 x i32> @_ZGV_LLVM_N4v_far(<4 x ptr> %p) {
  ret <4 x i32> zeroinitializer
}

declare void @llvm.masked.scatter.v4i32.v4p0(<4 x i32>, <4 x ptr>, i32, <4 x i1>)
declare <4 x i32> @llvm.masked.gather.v4i32.v4p0(<4 x ptr>, i32, <4 x i1>, <4 x i32>)
declare <2 x i32> @llvm.masked.gather.v2i32.v2p0(<2 x ptr>, i32, <2 x i1>, <2 x i32>)
"#;

/// Self-test: a store into another lane's buffer is a memory difference
/// in the right buffer.
#[test]
fn store_to_the_wrong_lane_is_caught() {
    let out = check_ir(BROKEN_POINTERS, &["_ZGV_LLVM_N4vv_store"], &opts());
    let m = mismatch(&out[0]);
    match &m.kind {
        MismatchKind::Memory { param: 0, buffer_lane: Some(_), offset: 0, .. } => {}
        k => panic!("expected a memory difference at offset 0 of a lane's buffer, got {k:?}: {m}"),
    }
}

/// Self-test: reading past a dereferenceable object hits the guard page;
/// the fault is a failure naming the clone, and the test process lives on.
#[test]
fn access_past_the_object_faults_and_is_reported() {
    let out = check_ir(BROKEN_POINTERS, &["_ZGV_LLVM_N4v_deref"], &opts());
    let m = mismatch(&out[0]);
    assert!(matches!(&m.kind, MismatchKind::Fault { signal, .. } if *signal == libc::SIGSEGV), "{m}");
    assert!(m.to_string().contains("_ZGV_LLVM_N4v_deref") && m.to_string().contains("SIGSEGV"), "{m}");
}

/// Self-test: a clone that writes through a byval pointer into the
/// caller's object is caught; one that does not passes.
#[test]
fn byval_write_through_is_caught() {
    let out = check_ir(BROKEN_POINTERS, &["_ZGV_LLVM_N4vv_byval_sum", "_ZGV_LLVM_N2vv_byval_sum"], &opts());
    let m = mismatch(&out[0]);
    assert!(matches!(m.kind, MismatchKind::Memory { param: 0, offset: 0, .. }), "{m}");
    assert!(out[1].result.as_ref().is_ok_and(|s| s.lanes_compared > 0), "{:?}", out[1].result);
}

/// Self-test: an sret result object missing a field is caught.
#[test]
fn wrong_sret_object_is_caught() {
    let out = check_ir(BROKEN_POINTERS, &["_ZGV_LLVM_N4vv_sret_make"], &opts());
    let m = mismatch(&out[0]);
    assert!(matches!(m.kind, MismatchKind::Memory { param: 0, offset: 8, .. }), "{m}");
}

/// Returned pointers compare by buffer and offset.
#[test]
fn returned_pointers_compare_by_position() {
    let out = check_ir(BROKEN_POINTERS, &["_ZGV_LLVM_N4vv_ptr_ret", "_ZGV_LLVM_N2vv_ptr_ret"], &opts());
    assert!(out[0].result.as_ref().is_ok_and(|s| s.lanes_compared > 0), "{:?}", out[0].result);
    assert!(matches!(mismatch(&out[1]).kind, MismatchKind::Result));
}

/// Conflicting writes (two lanes storing to one element of a uniform
/// buffer) are compared: the scalar calls run in lane order, so the
/// highest lane wins. `tolerate_conflicts` accepts any order.
#[test]
fn conflicting_writes_follow_lane_order() {
    let out = check_ir(BROKEN_POINTERS, &["_ZGV_LLVM_N4uvv_write_u"], &opts());
    let m = mismatch(&out[0]);
    match &m.kind {
        MismatchKind::Memory { buffer_lane: None, written_by, .. } => assert!(written_by.len() > 1, "{m}"),
        k => panic!("expected a conflicting memory difference, got {k:?}"),
    }
    assert!(m.to_string().contains("conflicting write"), "{m}");
    let tolerant = OracleOptions { tolerate_conflicts: true, ..opts() };
    let out = check_ir(BROKEN_POINTERS, &["_ZGV_LLVM_N4uvv_write_u"], &tolerant);
    assert!(out[0].result.as_ref().is_ok_and(|s| s.lanes_compared > 0), "{:?}", out[0].result);
}

/// Null is passed only when a test opts in, and then to parameters that
/// allow it; batchify's clone checks for null like the scalar code.
#[test]
fn null_pointers_only_on_request() {
    // Without the option, the clone that forgets the null check passes:
    // it never sees null.
    let out = check_ir(BROKEN_POINTERS, &["_ZGV_LLVM_N4v_nullable"], &opts());
    assert!(out[0].result.is_ok(), "{:?}", out[0].result);
    let with_null = OracleOptions { allow_null: true, ..opts() };
    let out = check_ir(BROKEN_POINTERS, &["_ZGV_LLVM_N4v_nullable"], &with_null);
    assert!(matches!(mismatch(&out[0]).kind, MismatchKind::Fault { .. }));
    let ctx = Context::create();
    let m = load(&ctx, "pointers.ll");
    assert_all_pass(&batch_and_check(&m, &["_ZGV_LLVM_N8v_nullable", "_ZGV_LLVM_M8v_nullable"], &with_null));
}

/// A scalar function that faults on every input cannot be checked: that is
/// a setup error naming it, not a failure of the clone.
#[test]
fn scalar_faults_are_not_blamed_on_the_clone() {
    let out = check_ir(BROKEN_POINTERS, &["_ZGV_LLVM_N4v_far"], &opts());
    match &out[0].result {
        Err(OracleError::Setup(s)) => assert!(s.contains("`far`") && s.contains("SIGSEGV"), "{s}"),
        r => panic!("expected a setup error, got {r:?}"),
    }
}

// ---------------------------------------------------------------------------
// Callers optimised at -O2

#[test]
fn optimized_callers_see_batchify_clones_memory_effects() {
    let ctx = Context::create();
    let m = load(&ctx, "memory_attrs.ll");
    let out = batch_and_check(
        &m,
        &["_ZGV_LLVM_N8vv_fill", "_ZGV_LLVM_M8vv_fill", "_ZGV_LLVM_N8v_sum4", "_ZGV_LLVM_M4v_sum4"],
        &opts(),
    );
    assert_all_pass(&out);
}

/// Without the -O2 callers, batchify's clones of the same functions are
/// right: only their attributes are wrong.
#[test]
fn memory_attr_clones_run_right_without_optimized_callers() {
    let ctx = Context::create();
    let m = load(&ctx, "memory_attrs.ll");
    let plain = OracleOptions { optimized_caller: false, ..opts() };
    let out = batch_and_check(&m, &["_ZGV_LLVM_N8vv_fill", "_ZGV_LLVM_N8v_sum4"], &plain);
    assert_all_pass(&out);
}

const LYING_CLONES: &str = r#"
define void @fill(ptr %p, i32 %x) memory(argmem: write) {
  store i32 %x, ptr %p, align 4
  ret void
}

; The scalar attribute, copied: claims to write no memory it can be given.
define void @_ZGV_LLVM_N4vv_fill(<4 x ptr> %p, <4 x i32> %x) memory(argmem: write) {
  call void @llvm.masked.scatter.v4i32.v4p0(<4 x i32> %x, <4 x ptr> %p, i32 4, <4 x i1> splat (i1 true))
  ret void
}

; Honest.
define void @_ZGV_LLVM_N2vv_fill(<2 x ptr> %p, <2 x i32> %x) {
  call void @llvm.masked.scatter.v2i32.v2p0(<2 x i32> %x, <2 x ptr> %p, i32 4, <2 x i1> splat (i1 true))
  ret void
}

define i32 @sum2(ptr %p) memory(argmem: read) {
  %a = load i32, ptr %p, align 4
  %q = getelementptr inbounds i8, ptr %p, i64 4
  %b = load i32, ptr %q, align 4
  %s = add i32 %a, %b
  ret i32 %s
}

; The scalar attribute, copied: claims to read no memory it can be given.
define <4 x i32> @_ZGV_LLVM_N4v_sum2(<4 x ptr> %p) memory(argmem: read) {
  %a = call <4 x i32> @llvm.masked.gather.v4i32.v4p0(<4 x ptr> %p, i32 4, <4 x i1> splat (i1 true), <4 x i32> poison)
  %q = getelementptr inbounds i8, <4 x ptr> %p, i64 4
  %b = call <4 x i32> @llvm.masked.gather.v4i32.v4p0(<4 x ptr> %q, i32 4, <4 x i1> splat (i1 true), <4 x i32> poison)
  %s = add <4 x i32> %a, %b
  ret <4 x i32> %s
}

; Honest: reads any memory.
define <2 x i32> @_ZGV_LLVM_N2v_sum2(<2 x ptr> %p) memory(read) {
  %a = call <2 x i32> @llvm.masked.gather.v2i32.v2p0(<2 x ptr> %p, i32 4, <2 x i1> splat (i1 true), <2 x i32> poison)
  %q = getelementptr inbounds i8, <2 x ptr> %p, i64 4
  %b = call <2 x i32> @llvm.masked.gather.v2i32.v2p0(<2 x ptr> %q, i32 4, <2 x i1> splat (i1 true), <2 x i32> poison)
  %s = add <2 x i32> %a, %b
  ret <2 x i32> %s
}

declare void @llvm.masked.scatter.v4i32.v4p0(<4 x i32>, <4 x ptr>, i32, <4 x i1>)
declare void @llvm.masked.scatter.v2i32.v2p0(<2 x i32>, <2 x ptr>, i32, <2 x i1>)
declare <4 x i32> @llvm.masked.gather.v4i32.v4p0(<4 x ptr>, i32, <4 x i1>, <4 x i32>)
declare <2 x i32> @llvm.masked.gather.v2i32.v2p0(<2 x ptr>, i32, <2 x i1>, <2 x i32>)
"#;

/// Self-test: clones whose `memory(argmem: ...)` hides their `<N x ptr>`
/// accesses pass when called directly, and fail through -O2 callers
/// (the writer caller misses the stores; the reader caller's copy-in is
/// deleted); honest clones pass both.
#[test]
fn lying_memory_attributes_are_caught_by_optimized_callers() {
    let variants = ["_ZGV_LLVM_N4vv_fill", "_ZGV_LLVM_N2vv_fill", "_ZGV_LLVM_N4v_sum2", "_ZGV_LLVM_N2v_sum2"];
    let plain = OracleOptions { optimized_caller: false, ..opts() };
    for o in check_ir(LYING_CLONES, &variants, &plain) {
        assert!(o.result.is_ok(), "{}: {:?}", o.clone, o.result);
    }
    let out = check_ir(LYING_CLONES, &variants, &opts());
    let m = mismatch(&out[0]);
    assert!(
        matches!(&m.kind, MismatchKind::OptimizedCaller { caller, memory: Some((0, Some(_), 0)) } if caller == "writer"),
        "{m}"
    );
    assert!(out[1].result.is_ok(), "{:?}", out[1].result);
    let m = mismatch(&out[2]);
    assert!(matches!(&m.kind, MismatchKind::OptimizedCaller { caller, memory: None } if caller == "reader"), "{m}");
    assert!(out[3].result.is_ok(), "{:?}", out[3].result);
}

// ---------------------------------------------------------------------------
// Modules the JIT cannot take whole

/// Functions with inline asm, or reaching module-level asm or symbols the
/// process lacks, are skipped with a reason; the other functions of the
/// module still run, and the JIT does not abort.
#[test]
fn inline_asm_is_skipped_and_the_rest_runs() {
    let ctx = Context::create();
    let m = load(&ctx, "inline_asm.ll");
    let variants = [
        "_ZGV_LLVM_N4v_uses_asm",
        "_ZGV_LLVM_N4v_calls_uses_asm",
        "_ZGV_LLVM_N4v_calls_module_asm",
        "_ZGV_LLVM_N4v_calls_missing",
        "_ZGV_LLVM_N8v_normal",
        "_ZGV_LLVM_M8v_normal",
    ];
    let specs: Vec<CloneSpec> = variants.iter().map(|v| spec(v)).collect();
    batchify_core::batchify_inkwell(&m, &specs, &batchify_core::Options::default()).unwrap();
    let oracle = Oracle::with_options(&m, &specs, &opts()).unwrap();
    let skipped = oracle.skipped();
    assert_eq!(skipped.len(), 4, "{skipped:?}");
    let reason = |i: usize| match &oracle.check_each(&cfg())[i].result {
        Err(OracleError::Setup(s)) => s.clone(),
        r => panic!("{}: expected a skip, got {r:?}", variants[i]),
    };
    assert!(reason(0).contains("inline asm"), "{}", reason(0));
    assert!(reason(1).contains("inline asm") && reason(1).contains("reaches"), "{}", reason(1));
    assert!(reason(2).contains("module-level asm"), "{}", reason(2));
    assert!(reason(3).contains("no such symbol"), "{}", reason(3));
    let each = oracle.check_each(&cfg());
    for o in &each[4..] {
        assert!(o.result.as_ref().is_ok_and(|s| s.lanes_compared > 0), "{}: {:?}", o.clone, o.result);
    }
    // check_all checks the rest, then reports the skips as a setup error.
    assert!(matches!(oracle.check_all(&cfg()), Err(OracleError::Setup(s)) if s.contains("skipped")));
}

/// Parameters of other types are skipped with a clear reason, not an error
/// that looks like a bug.
#[test]
fn unsupported_parameter_types_are_skipped_with_a_reason() {
    let ir = r#"
define i32 @f(<2 x i32> %v, i32 %x) {
  %a = extractelement <2 x i32> %v, i32 0
  %r = add i32 %a, %x
  ret i32 %r
}
define <4 x i32> @_ZGV_LLVM_N4uv_f(<2 x i32> %v, <4 x i32> %x) {
  ret <4 x i32> %x
}
"#;
    let out = check_ir(ir, &["_ZGV_LLVM_N4uv_f"], &opts());
    match &out[0].result {
        Err(OracleError::Setup(s)) => assert!(s.contains("skipped") && s.contains("parameter 0"), "{s}"),
        r => panic!("expected a skip, got {r:?}"),
    }
}

// ---------------------------------------------------------------------------
// C compiled by clang-22

/// Every defined function of `static_helpers.c` (clang makes the static
/// ones internal fastcc), all parameters varying, unmasked and masked.
fn static_helpers(names: &[&str], o: &OracleOptions) -> Option<Vec<(CloneOutcome, bool)>> {
    if !batchify_testkit::skip::require_tool("static_helpers (oracle_real)", "clang-22") {
        return None;
    }
    let ctx = Context::create();
    let m = load(&ctx, "static_helpers.c");
    let helper = m.get_function("helper").expect("helper survives -O2 (noinline)");
    assert_eq!(helper.get_linkage(), inkwell::module::Linkage::Internal);
    assert_eq!(helper.get_call_conventions(), 8, "clang -O2 makes static functions fastcc");
    let mut variants = Vec::new();
    for f in m.get_functions().filter(|f| f.count_basic_blocks() > 0) {
        let name = f.get_name().to_str().unwrap().to_string();
        if !names.contains(&name.as_str()) {
            continue;
        }
        for masked in [false, true] {
            let s = CloneSpec::all_varying(&name, f.count_params() as usize, 8, Isa::Llvm, masked);
            variants.push(s.vector_name);
        }
    }
    assert_eq!(variants.len(), 2 * names.len(), "functions missing from the -O2 module");
    let v: Vec<&str> = variants.iter().map(|s| s.as_str()).collect();
    Some(batch_and_check(&m, &v, o))
}

const C_FUNCTIONS: &[&str] =
    &["helper", "use_helper", "bump", "use_bump", "adler16", "big_sum", "use_big", "find_first_negative"];

/// The clones compute the right results and memory when called directly.
#[test]
fn c_functions_run_right() {
    let plain = OracleOptions { optimized_caller: false, ..opts() };
    if let Some(out) = static_helpers(
        &["helper", "use_helper", "bump", "use_bump", "adler16", "use_big", "find_first_negative"],
        &plain,
    ) {
        assert_all_pass(&out);
    }
}

#[test]
fn c_byval_function_runs_right() {
    let plain = OracleOptions { optimized_caller: false, ..opts() };
    if let Some(out) = static_helpers(&["big_sum"], &plain) {
        assert_all_pass(&out);
    }
}

#[test]
fn c_functions_through_optimized_callers() {
    if let Some(out) = static_helpers(C_FUNCTIONS, &opts()) {
        assert_all_pass(&out);
    }
}

// ---------------------------------------------------------------------------
// Rust compiled by rustc

/// Every defined function of `rust_refs.rs` (private ones are internal
/// fastcc; references are `dereferenceable(N)` pointers, so the buffers are
/// exactly N bytes and end at a guard page), unmasked and masked.
fn rust_refs(o: &OracleOptions) -> Option<Vec<(CloneOutcome, bool)>> {
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    if !batchify_testkit::skip::require_tool("rust_refs (oracle_real)", &rustc) {
        return None;
    }
    let bytes = batchify_testkit::corpus::compile_rust(&real("rust_refs.rs"), CLevel::RustO2).unwrap();
    let ctx = Context::create();
    let m = parse_module(&ctx, &bytes, "rust_refs.rs").unwrap();
    let mut variants = Vec::new();
    let mut internal = 0;
    for f in m.get_functions().filter(|f| f.count_basic_blocks() > 0) {
        internal += (f.get_linkage() == inkwell::module::Linkage::Internal && f.get_call_conventions() == 8) as usize;
        let name = f.get_name().to_str().unwrap().to_string();
        for masked in [false, true] {
            variants.push(CloneSpec::all_varying(&name, f.count_params() as usize, 8, Isa::Llvm, masked).vector_name);
        }
    }
    assert_eq!(variants.len(), 8, "{variants:?}");
    assert_eq!(internal, 2, "rustc makes private functions internal fastcc");
    let v: Vec<&str> = variants.iter().map(|s| s.as_str()).collect();
    Some(batch_and_check(&m, &v, o))
}

#[test]
fn rust_private_fastcc_functions_with_references() {
    let plain = OracleOptions { optimized_caller: false, ..opts() };
    if let Some(out) = rust_refs(&plain) {
        assert_all_pass(&out);
    }
}

#[test]
fn rust_functions_through_optimized_callers() {
    if let Some(out) = rust_refs(&opts()) {
        assert_all_pass(&out);
    }
}

const IGNORES_MASK: &str = r#"
define i32 @get(ptr %p) {
  %v = load i32, ptr %p, align 4
  ret i32 %v
}

; Loads on every lane, masked or not (the results of inactive lanes are
; not compared, but the loads happen).
define <4 x i32> @_ZGV_LLVM_M4v_get(<4 x ptr> %p, <4 x i1> %m) {
  %v = call <4 x i32> @llvm.masked.gather.v4i32.v4p0(<4 x ptr> %p, i32 4, <4 x i1> splat (i1 true), <4 x i32> poison)
  ret <4 x i32> %v
}

; Right.
define <2 x i32> @_ZGV_LLVM_M2v_get(<2 x ptr> %p, <2 x i1> %m) {
  %v = call <2 x i32> @llvm.masked.gather.v2i32.v2p0(<2 x ptr> %p, i32 4, <2 x i1> %m, <2 x i32> poison)
  ret <2 x i32> %v
}

declare <4 x i32> @llvm.masked.gather.v4i32.v4p0(<4 x ptr>, i32, <4 x i1>, <4 x i32>)
declare <2 x i32> @llvm.masked.gather.v2i32.v2p0(<2 x ptr>, i32, <2 x i1>, <2 x i32>)
"#;

/// Self-test: inactive lanes' buffers are inaccessible while the clone
/// runs, so a load on an inactive lane faults.
#[test]
fn loads_on_inactive_lanes_are_caught() {
    let out = check_ir(IGNORES_MASK, &["_ZGV_LLVM_M4v_get", "_ZGV_LLVM_M2v_get"], &opts());
    let m = mismatch(&out[0]);
    assert!(matches!(&m.kind, MismatchKind::Fault { signal, .. } if *signal == libc::SIGSEGV), "{m}");
    assert!(m.mask.contains(&false), "{m}");
    assert!(out[1].result.as_ref().is_ok_and(|s| s.lanes_compared > 0), "{:?}", out[1].result);
    let unprotected = OracleOptions { protect_inactive_lanes: false, ..opts() };
    let out = check_ir(IGNORES_MASK, &["_ZGV_LLVM_M4v_get"], &unprotected);
    assert!(out[0].result.is_ok(), "{:?}", out[0].result);
}

const POINTER_MASK: &str = r#"
define void @put(ptr %p, i32 %x) {
  store i32 %x, ptr %p, align 4
  ret void
}

; x86 masked variant whose characteristic type is a pointer (void result,
; pointer first parameter): the mask is a vector of pointers, all-ones
; for an active lane, null for an inactive one.
define void @_ZGVdM4vv_put(<4 x ptr> %p, <4 x i32> %x, <4 x ptr> %mask) {
  %m = icmp ne <4 x ptr> %mask, zeroinitializer
  call void @llvm.masked.scatter.v4i32.v4p0(<4 x i32> %x, <4 x ptr> %p, i32 4, <4 x i1> %m)
  ret void
}

declare void @llvm.masked.scatter.v4i32.v4p0(<4 x i32>, <4 x ptr>, i32, <4 x i1>)
"#;

/// The wrapper builds a pointer-typed mask (not a bitcast, which is
/// invalid IR for pointers).
#[test]
fn pointer_typed_masks() {
    let ctx = Context::create();
    let m = parse_module(&ctx, POINTER_MASK.as_bytes(), "pointer-mask").unwrap();
    let mut s = spec("_ZGVdM4vv_put");
    // The hand-written clone takes the mask as <4 x ptr> whatever the ISA's
    // mask rule says; the wrapper follows the clone's declared type.
    s.mask = Some(batchify_core::MaskAbi::CharacteristicVector);
    let oracle = Oracle::with_options(&m, &[s], &opts()).unwrap_or_else(|e| panic!("{e}"));
    let out = oracle.check_each(&cfg());
    assert!(out[0].result.as_ref().is_ok_and(|s| s.lanes_compared > 0), "{:?}", out[0].result);
}
