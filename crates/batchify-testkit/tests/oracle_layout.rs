//! The oracle on address-dependent code, undefined result bytes and
//! memory promises (issue 6's last oracle limits, found by the sweep):
//!
//! * the scalar calls and the clone run on two copies of the buffers with
//!   one layout, and a pointer stored or returned by one compares equal to
//!   the pointer at the same place in the other copy (lz4's
//!   `LZ4_setStreamDecode`, comparisons between pointers into different
//!   arguments, Rust's `get_unchecked` far outside a buffer);
//! * `malloc` in the code under test takes blocks from an arena per copy
//!   (`LZ4F_createCompressionContext`);
//! * result bytes the scalar code leaves undefined (a Rust `None`'s payload
//!   read from an uninitialised stack slot) are found by running the
//!   scalar calls again with its stack slots painted differently, and not compared;
//! * loads with `!range` or `trunc nuw` from a parameter read in-range
//!   values (regex-syntax's `Class::is_utf8`).
//!
//! Each has a test that batchify's clone passes and a self-test that a
//! hand-written wrong clone still fails.

use batchify_core::vfabi::VariantName;
use batchify_core::CloneSpec;
use batchify_testkit::corpus::parse_module;
use batchify_testkit::{CheckConfig, CloneOutcome, MismatchKind, Oracle, OracleError, OracleOptions};
use inkwell::context::Context;

fn spec(variant: &str) -> CloneSpec {
    CloneSpec::from_variant(&VariantName::parse(variant).expect("valid variant name")).expect("valid spec")
}

fn cfg() -> CheckConfig {
    CheckConfig { trials: 60, ..Default::default() }
}

fn opts() -> OracleOptions {
    OracleOptions { optimized_caller: true, ..Default::default() }
}

/// Batches `batched` with batchify (the module may also hold hand-written
/// clones, named in `hand_written`), then checks all of them, in order.
fn check(ir: &str, batched: &[&str], hand_written: &[&str]) -> Vec<CloneOutcome> {
    let ctx = Context::create();
    let m = parse_module(&ctx, ir.as_bytes(), "hand-written").unwrap();
    let specs: Vec<CloneSpec> = batched.iter().map(|v| spec(v)).collect();
    batchify_core::batchify_inkwell(&m, &specs, &batchify_core::Options::default())
        .unwrap_or_else(|e| panic!("batchify failed: {e}"));
    let all: Vec<CloneSpec> = batched.iter().chain(hand_written).map(|v| spec(v)).collect();
    Oracle::with_options(&m, &all, &opts()).unwrap_or_else(|e| panic!("{e}")).check_each(&cfg())
}

fn assert_passes(o: &CloneOutcome) {
    match &o.result {
        Ok(s) if s.lanes_compared > 0 => {}
        other => panic!("{}: expected a pass that compared lanes, got {other:?}", o.clone),
    }
}

fn mismatch(o: &CloneOutcome) -> &batchify_testkit::Mismatch {
    match &o.result {
        Err(OracleError::Mismatch(m)) => m,
        other => panic!("{}: expected a failure, got {other:?}", o.clone),
    }
}

const STORED_POINTERS: &str = r#"
; Stores its second argument into its first (lz4's LZ4_setStreamDecode).
define void @remember(ptr %state, ptr %dict) {
  %at = getelementptr inbounds i8, ptr %state, i64 8
  store ptr %dict, ptr %at, align 8
  ret void
}

; Stores lane (k+1)%4's pointer into lane k's state.
define void @_ZGV_LLVM_N4vv_remember(<4 x ptr> %state, <4 x ptr> %dict) {
  %at = getelementptr inbounds i8, <4 x ptr> %state, i64 8
  %r = shufflevector <4 x ptr> %dict, <4 x ptr> poison, <4 x i32> <i32 1, i32 2, i32 3, i32 0>
  call void @llvm.masked.scatter.v4p0.v4p0(<4 x ptr> %r, <4 x ptr> %at, i32 8, <4 x i1> splat (i1 true))
  ret void
}

; Compares pointers into two different arguments.
define i32 @before(ptr %a, ptr %b) {
  %lt = icmp ult ptr %a, %b
  %r = zext i1 %lt to i32
  ret i32 %r
}

; A pointer far outside the buffer, as Rust's get_unchecked with a wild index.
define ptr @far(ptr %p, i64 %i) {
  %q = getelementptr i8, ptr %p, i64 %i
  ret ptr %q
}

; Off by one element in lane 2.
define <4 x ptr> @_ZGV_LLVM_N4vv_far(<4 x ptr> %p, <4 x i64> %i) {
  %q = getelementptr i8, <4 x ptr> %p, <4 x i64> %i
  %r = getelementptr i8, <4 x ptr> %q, <4 x i64> <i64 0, i64 0, i64 1, i64 0>
  ret <4 x ptr> %r
}

declare void @llvm.masked.scatter.v4p0.v4p0(<4 x ptr>, <4 x ptr>, i32, <4 x i1>)
"#;

/// Stored pointers, pointer comparisons across arguments and pointers far
/// outside the buffers compare by their place in the copy.
#[test]
fn pointers_compare_by_place_in_the_copy() {
    let out = check(
        STORED_POINTERS,
        &["_ZGV_LLVM_N8vv_remember", "_ZGV_LLVM_M8vv_remember", "_ZGV_LLVM_N8vv_before", "_ZGV_LLVM_N8vv_far"],
        &[],
    );
    out.iter().for_each(assert_passes);
}

/// Self-test: a pointer stored into the wrong lane's state, and a returned
/// pointer one byte off, are still caught.
#[test]
fn wrong_pointers_are_caught() {
    let out = check(STORED_POINTERS, &[], &["_ZGV_LLVM_N4vv_remember", "_ZGV_LLVM_N4vv_far"]);
    // The pointers' low bytes agree: the first difference is inside the word.
    let m = mismatch(&out[0]);
    assert!(matches!(m.kind, MismatchKind::Memory { param: 0, offset: 8..16, .. }), "{m}");
    assert!(matches!(mismatch(&out[1]).kind, MismatchKind::Result), "{}", mismatch(&out[1]));
}

const ALLOCATIONS: &str = r#"
declare noalias ptr @malloc(i64)
declare noalias ptr @calloc(i64, i64)
declare void @free(ptr)

; Allocates a context and hands it out (lz4's LZ4F_createCompressionContext).
define i32 @create(ptr %out, i32 %tag) {
  %ctx = call ptr @calloc(i64 1, i64 64)
  %tp = getelementptr inbounds i8, ptr %ctx, i64 4
  store i32 %tag, ptr %tp, align 4
  store ptr %ctx, ptr %out, align 8
  %tmp = call ptr @malloc(i64 32)
  call void @free(ptr %tmp)
  ret i32 0
}

; Hands every lane lane 0's context.
define <4 x i32> @_ZGV_LLVM_N4vv_create(<4 x ptr> %out, <4 x i32> %tag) {
  %ctx = call ptr @calloc(i64 1, i64 64)
  %one = insertelement <4 x ptr> poison, ptr %ctx, i64 0
  %all = shufflevector <4 x ptr> %one, <4 x ptr> poison, <4 x i32> zeroinitializer
  call void @llvm.masked.scatter.v4p0.v4p0(<4 x ptr> %all, <4 x ptr> %out, i32 8, <4 x i1> splat (i1 true))
  ret <4 x i32> zeroinitializer
}

declare void @llvm.masked.scatter.v4p0.v4p0(<4 x ptr>, <4 x ptr>, i32, <4 x i1>)
"#;

/// `malloc`ed pointers stored into the buffers compare by their place in
/// the copy's arena.
#[test]
fn allocations_compare_by_place_in_the_arena() {
    let out = check(ALLOCATIONS, &["_ZGV_LLVM_N8vv_create", "_ZGV_LLVM_M8vv_create"], &[]);
    out.iter().for_each(assert_passes);
}

/// Self-test: one allocation shared by all lanes is caught.
#[test]
fn shared_allocation_is_caught() {
    let out = check(ALLOCATIONS, &[], &["_ZGV_LLVM_N4vv_create"]);
    assert!(
        matches!(mismatch(&out[0]).kind, MismatchKind::Memory { param: 0, offset: 0, .. }),
        "{}",
        mismatch(&out[0])
    );
}

const UNDEFINED_PAYLOAD: &str = r#"
; Rust's Option<u32> at opt-level=0: the payload of None is never stored.
define { i32, i32 } @next(i32 %x) {
start:
  %slot = alloca [8 x i8], align 4
  %c = icmp ult i32 %x, 1000000000
  br i1 %c, label %some, label %none
none:
  store i32 0, ptr %slot, align 4
  br label %done
some:
  %p = getelementptr inbounds i8, ptr %slot, i64 4
  store i32 %x, ptr %p, align 4
  store i32 1, ptr %slot, align 4
  br label %done
done:
  %tag = load i32, ptr %slot, align 4
  %pp = getelementptr inbounds i8, ptr %slot, i64 4
  %payload = load i32, ptr %pp, align 4
  %r0 = insertvalue { i32, i32 } poison, i32 %tag, 0
  %r1 = insertvalue { i32, i32 } %r0, i32 %payload, 1
  ret { i32, i32 } %r1
}

; Right tags, but the payload of Some is off by one (aggregate results
; are structs of vectors).
define { <4 x i32>, <4 x i32> } @_ZGV_LLVM_N4v_next(<4 x i32> %x) {
  %x0 = extractelement <4 x i32> %x, i64 0
  %r0 = call { i32, i32 } @next(i32 %x0)
  %g0 = extractvalue { i32, i32 } %r0, 0
  %p0 = extractvalue { i32, i32 } %r0, 1
  %q0 = add i32 %p0, 1
  %t0 = insertelement <4 x i32> poison, i32 %g0, i64 0
  %u0 = insertelement <4 x i32> poison, i32 %q0, i64 0
  %x1 = extractelement <4 x i32> %x, i64 1
  %r1 = call { i32, i32 } @next(i32 %x1)
  %g1 = extractvalue { i32, i32 } %r1, 0
  %p1 = extractvalue { i32, i32 } %r1, 1
  %q1 = add i32 %p1, 1
  %t1 = insertelement <4 x i32> %t0, i32 %g1, i64 1
  %u1 = insertelement <4 x i32> %u0, i32 %q1, i64 1
  %x2 = extractelement <4 x i32> %x, i64 2
  %r2 = call { i32, i32 } @next(i32 %x2)
  %g2 = extractvalue { i32, i32 } %r2, 0
  %p2 = extractvalue { i32, i32 } %r2, 1
  %q2 = add i32 %p2, 1
  %t2 = insertelement <4 x i32> %t1, i32 %g2, i64 2
  %u2 = insertelement <4 x i32> %u1, i32 %q2, i64 2
  %x3 = extractelement <4 x i32> %x, i64 3
  %r3 = call { i32, i32 } @next(i32 %x3)
  %g3 = extractvalue { i32, i32 } %r3, 0
  %p3 = extractvalue { i32, i32 } %r3, 1
  %q3 = add i32 %p3, 1
  %t3 = insertelement <4 x i32> %t2, i32 %g3, i64 3
  %u3 = insertelement <4 x i32> %u2, i32 %q3, i64 3
  %s0 = insertvalue { <4 x i32>, <4 x i32> } poison, <4 x i32> %t3, 0
  %s1 = insertvalue { <4 x i32>, <4 x i32> } %s0, <4 x i32> %u3, 1
  ret { <4 x i32>, <4 x i32> } %s1
}

; Right payloads, but the tag of None is 1.
define { <2 x i32>, <2 x i32> } @_ZGV_LLVM_N2v_next(<2 x i32> %x) {
  %x0 = extractelement <2 x i32> %x, i64 0
  %r0 = call { i32, i32 } @next(i32 %x0)
  %p0 = extractvalue { i32, i32 } %r0, 1
  %t0 = insertelement <2 x i32> poison, i32 1, i64 0
  %u0 = insertelement <2 x i32> poison, i32 %p0, i64 0
  %x1 = extractelement <2 x i32> %x, i64 1
  %r1 = call { i32, i32 } @next(i32 %x1)
  %p1 = extractvalue { i32, i32 } %r1, 1
  %t1 = insertelement <2 x i32> %t0, i32 1, i64 1
  %u1 = insertelement <2 x i32> %u0, i32 %p1, i64 1
  %s0 = insertvalue { <2 x i32>, <2 x i32> } poison, <2 x i32> %t1, 0
  %s1 = insertvalue { <2 x i32>, <2 x i32> } %s0, <2 x i32> %u1, 1
  ret { <2 x i32>, <2 x i32> } %s1
}
"#;

/// Undefined result bytes are not compared; batchify's clone (a per-lane
/// fallback: the slot is not promotable) passes.
#[test]
fn undefined_result_bytes_are_not_compared() {
    let out = check(UNDEFINED_PAYLOAD, &["_ZGV_LLVM_N8v_next", "_ZGV_LLVM_M8v_next"], &[]);
    out.iter().for_each(assert_passes);
}

/// Self-test: a wrong defined byte (payload of Some, tag of None) is still
/// caught.
#[test]
fn wrong_defined_result_bytes_are_caught() {
    let out = check(UNDEFINED_PAYLOAD, &[], &["_ZGV_LLVM_N4v_next", "_ZGV_LLVM_N2v_next"]);
    for o in &out {
        assert!(matches!(mismatch(o).kind, MismatchKind::Result), "{}", mismatch(o));
    }
}

const PROMISES: &str = r#"
; An enum discriminant (0 or 1) and a bool behind a reference.
define i8 @kind(ptr align 8 dereferenceable(16) %self) {
  %d = load i64, ptr %self, align 8, !range !0, !noundef !1
  %flag.p = getelementptr inbounds i8, ptr %self, i64 9
  %flag.b = load i8, ptr %flag.p, align 1
  %flag = trunc nuw i8 %flag.b to i1
  %d8 = trunc i64 %d to i8
  %f8 = zext i1 %flag to i8
  %s = shl i8 %f8, 1
  %r = or i8 %d8, %s
  ret i8 %r
}

; Right only on values that keep the promises: reads the raw bytes.
define <4 x i8> @_ZGV_LLVM_N4v_kind(<4 x ptr> %self) {
  %d = call <4 x i8> @llvm.masked.gather.v4i8.v4p0(<4 x ptr> %self, i32 8, <4 x i1> splat (i1 true), <4 x i8> poison)
  %fp = getelementptr inbounds i8, <4 x ptr> %self, i64 9
  %f = call <4 x i8> @llvm.masked.gather.v4i8.v4p0(<4 x ptr> %fp, i32 1, <4 x i1> splat (i1 true), <4 x i8> poison)
  %s = shl <4 x i8> %f, splat (i8 1)
  %r = or <4 x i8> %d, %s
  ret <4 x i8> %r
}

declare <4 x i8> @llvm.masked.gather.v4i8.v4p0(<4 x ptr>, i32, <4 x i1>, <4 x i8>)

!0 = !{i64 0, i64 2}
!1 = !{}
"#;

/// Buffers keep the scalar code's `!range` and `trunc nuw` promises: a
/// clone that is right exactly on such inputs passes (on random bytes the
/// scalar code is undefined and this clone would differ).
#[test]
fn buffers_keep_range_promises() {
    let out = check(PROMISES, &["_ZGV_LLVM_N8v_kind"], &["_ZGV_LLVM_N4v_kind"]);
    out.iter().for_each(assert_passes);
}

const OVERFLOW: &str = r#"
; `x + 1 > x`, which the nsw promise makes always true.
define i32 @grows(i32 %x) {
  %y = add nsw i32 %x, 1
  %c = icmp sgt i32 %y, %x
  %r = zext i1 %c to i32
  ret i32 %r
}

; What an optimiser may make of it.
define <4 x i32> @_ZGV_LLVM_N4v_grows(<4 x i32> %x) {
  ret <4 x i32> splat (i32 1)
}
"#;

/// With `skip_poison_inputs`, trials on which the scalar code overflows an
/// `nsw` add (here `x = INT_MAX`, among the special inputs) are dropped,
/// so a clone that relies on the promise passes; without it, those inputs
/// are compared and the clone differs.
#[test]
fn poison_inputs_are_skipped_on_request() {
    let ctx = Context::create();
    let m = parse_module(&ctx, OVERFLOW.as_bytes(), "hand-written").unwrap();
    let specs = [spec("_ZGV_LLVM_N4v_grows")];
    let strict = Oracle::with_options(&m, &specs, &OracleOptions::default()).unwrap().check_each(&cfg());
    assert!(matches!(mismatch(&strict[0]).kind, MismatchKind::Result), "{}", mismatch(&strict[0]));
    let skipping = OracleOptions { skip_poison_inputs: true, ..OracleOptions::default() };
    let out = Oracle::with_options(&m, &specs, &skipping).unwrap().check_each(&cfg());
    assert_passes(&out[0]);
    assert!(out[0].result.as_ref().is_ok_and(|s| s.trials_dropped > 0), "{:?}", out[0].result);
}
