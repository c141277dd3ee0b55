//! The cost stage's decision (`crates/batchify-core/src/cost.rs`) on small
//! functions: a divergent loop whose trips are cheaper one lane at a time
//! (a short search loop at 4 lanes, a loop of per-lane calls) becomes the
//! per-lane loop on x86 targets, with the estimate as the reason; the same
//! search loop at 8 AVX2 lanes stays vector code; loops with long
//! dependence chains stay vector code; targets without a cost table,
//! `--no-fallback` and `cost_model: false` always vectorize. The per-lane
//! clone the cost model picks is checked by the oracle like any clone.

use batchify_core::vfabi::VariantName;
use batchify_core::{CloneReport, CloneSpec, Options};
use batchify_testkit::corpus::parse_module;
use batchify_testkit::{CheckConfig, Oracle};
use inkwell::context::Context;

/// A linear search over a 512-entry constant table: one load, two
/// compares and an add per trip, the shape of `lsearch` in
/// `cargo xtask bench-gcc` (1.7x of scalar calls as 8-lane AVX2 code).
const SEARCH: &str = r#"
@tab = internal constant [512 x i32] zeroinitializer

define i32 @search(i32 %key) {
entry:
  br label %head
head:
  %j = phi i64 [ 0, %entry ], [ %j.next, %latch ]
  %p = getelementptr inbounds i32, ptr @tab, i64 %j
  %t = load i32, ptr %p, align 4
  %lt = icmp slt i32 %t, %key
  br i1 %lt, label %latch, label %found
latch:
  %j.next = add nuw nsw i64 %j, 1
  %end = icmp eq i64 %j.next, 512
  br i1 %end, label %out, label %head
found:
  %r = trunc i64 %j to i32
  br label %out
out:
  %res = phi i32 [ %r, %found ], [ 512, %latch ]
  ret i32 %res
}
"#;

/// An escape-time loop: a chain of dependent floating-point operations per
/// trip, which the scalar loop waits for and the clone runs for 8 lanes.
const ESCAPE: &str = r#"
define i32 @escape(float %cx, float %cy) {
entry:
  br label %head
head:
  %x = phi float [ 0.0, %entry ], [ %x.next, %body ]
  %y = phi float [ 0.0, %entry ], [ %y.next, %body ]
  %it = phi i32 [ 0, %entry ], [ %it.next, %body ]
  %xx = fmul float %x, %x
  %yy = fmul float %y, %y
  %r2 = fadd float %xx, %yy
  %in = fcmp ole float %r2, 4.0
  %more = icmp ult i32 %it, 256
  %go = and i1 %in, %more
  br i1 %go, label %body, label %exit
body:
  %d = fsub float %xx, %yy
  %x.next = fadd float %d, %cx
  %xy = fmul float %x, %y
  %xy2 = fmul float %xy, 2.0
  %y.next = fadd float %xy2, %cy
  %it.next = add i32 %it, 1
  br label %head
exit:
  ret i32 %it
}
"#;

/// A function `name(params)` whose loop's only work is `call`, which
/// computes `%v.next` from `%v`, after the `callees` it calls; at most 65
/// trips.
fn call_loop(callees: &str, name: &str, params: &str, call: &str) -> String {
    format!(
        r#"
{callees}
define i32 @{name}({params}) {{
entry:
  br label %head
head:
  %v = phi i32 [ %x, %entry ], [ %v.next, %head ]
  %k = phi i32 [ 0, %entry ], [ %k.next, %head ]
  %v.next = {call}
  %k.next = add i32 %k, 1
  %big = icmp sgt i32 %v.next, 1000
  %long = icmp sgt i32 %k.next, 64
  %stop = or i1 %big, %long
  br i1 %stop, label %exit, label %head
exit:
  ret i32 %k.next
}}
"#
    )
}

/// A loop whose trip is a call of an external function with a varying
/// argument: the clone would call it once per lane per trip.
fn calls() -> String {
    call_loop("declare i32 @step(i32)", "calls", "i32 %x", "call i32 @step(i32 %v)")
}

/// A loop whose trip is a call of a function defined here that writes
/// through a pointer the same in every lane: the emitter keeps those calls
/// in lane order (one call per lane per trip), and the cost stage must
/// estimate them so (issue 23: it costed them as one call of the clone).
fn shared_writer() -> String {
    let bump = "define internal i32 @bump(ptr %p, i32 %v) noinline {
  %old = load i32, ptr %p, align 4
  %new = add i32 %old, %v
  store i32 %new, ptr %p, align 4
  %r = mul i32 %v, 3
  ret i32 %r
}";
    call_loop(bump, "shared", "ptr %p, i32 %x", "call i32 @bump(ptr %p, i32 %v)")
}

/// The same loop with a callee that writes nothing: batched, one call of its
/// clone per trip.
fn pure_callee() -> String {
    let triple = "define internal i32 @triple(i32 %v) noinline {
  %r = mul i32 %v, 3
  ret i32 %r
}";
    call_loop(triple, "pure", "ptr %p, i32 %x", "call i32 @triple(i32 %v)")
}

/// A loop reading `b[100 + 8k - j]` with `j` linear (step 1): lane `l`
/// reads the element before lane `l - 1`'s, a reversed vector load in the
/// emitter's plan (emit/memory.rs), not a gather.
const REVERSED: &str = r#"
define i32 @back(ptr %b, i64 %j, i32 %key) {
entry:
  br label %head
head:
  %k = phi i32 [ 0, %entry ], [ %k.next, %head ]
  %kk = zext i32 %k to i64
  %base = shl i64 %kk, 3
  %up = add i64 %base, 100
  %idx = sub i64 %up, %j
  %p = getelementptr inbounds i32, ptr %b, i64 %idx
  %t = load i32, ptr %p, align 4
  %k.next = add i32 %k, 1
  %big = icmp sgt i32 %t, %key
  %long = icmp sgt i32 %k.next, 20
  %stop = or i1 %big, %long
  br i1 %stop, label %out, label %head
out:
  ret i32 %k.next
}
"#;

fn spec(variant: &str) -> CloneSpec {
    CloneSpec::from_variant(&VariantName::parse(variant).expect("valid variant name")).expect("valid spec")
}

fn build(ir: &str, variant: &str, opts: &Options) -> CloneReport {
    let ctx = Context::create();
    let module = parse_module(&ctx, ir.as_bytes(), "cost").unwrap();
    let mut reports = batchify_core::batchify_inkwell(&module, &[spec(variant)], opts).unwrap();
    reports.remove(0)
}

/// The whole function's estimated speed-up, from the report's `cost:` line.
fn estimate(r: &CloneReport) -> f64 {
    let line = r.lines().into_iter().find(|l| l.contains("cost: function: est.")).expect("a cost line");
    let est = line.split("est. ").nth(1).unwrap();
    est.split('x').next().unwrap().parse().unwrap()
}

/// The cycles of one call of the vector form in the report's estimate.
fn vector_cycles(r: &CloneReport) -> f64 {
    let line = r.lines().into_iter().find(|l| l.contains("cost: function: est.")).expect("a cost line");
    line.split("vector form ").nth(1).unwrap().split(" cycles").next().unwrap().parse().unwrap()
}

/// Count of the vector form's term `name` in the report's `terms:` line.
fn vector_term(r: &CloneReport, name: &str) -> f64 {
    let line = r.lines().into_iter().find(|l| l.contains("cost: terms:")).expect("a terms line");
    let vector = line.split("vector form [").nth(1).unwrap().trim_end_matches(']');
    vector
        .split(", ")
        .find_map(|t| t.strip_prefix(name).and_then(|c| c.strip_prefix(' ')).map(|c| c.parse().unwrap()))
        .unwrap_or(0.0)
}

/// Measured on AMD Zen 4 (`batchify-judge-cost --ir search.ll --variant
/// _ZGVbN4v_search`, this file's `SEARCH`): vector form 516 ns, per-lane
/// loop 544 ns (1.05x). The cost model before issue 23 chose the per-lane
/// loop here from an estimate of 0.9x.
#[test]
fn short_search_loop_at_4_lanes_stays_vector_code() {
    let r = build(SEARCH, "_ZGVbN4v_search", &Options::default());
    assert!(r.fallback.is_none(), "{:?}", r.lines());
    assert!(estimate(&r) >= 1.0, "{:?}", r.lines());
    assert!(r.lines().iter().any(|l| l.contains("cost: divergent loop %head: est.")), "{:?}", r.lines());
}

#[test]
fn short_search_loop_at_8_avx2_lanes_stays_vector_code() {
    let r = build(SEARCH, "_ZGVdN8v_search", &Options::default());
    assert!(r.fallback.is_none(), "{:?}", r.lines());
    assert!(estimate(&r) >= 1.0, "{:?}", r.lines());
}

#[test]
fn the_per_lane_clone_the_cost_model_picks_is_exact() {
    let ctx = Context::create();
    let module = parse_module(&ctx, division_chain().as_bytes(), "cost").unwrap();
    let specs = [spec("_ZGVdN8vv_chain"), spec("_ZGVdM8vv_chain")];
    let reports = batchify_core::batchify_inkwell(&module, &specs, &Options::default()).unwrap();
    assert!(
        reports.iter().all(|r| r.fallback.is_some()),
        "{:?}",
        reports.iter().map(|r| r.lines()).collect::<Vec<_>>()
    );
    if !batchify_testkit::skip::require_cpu("cost_model", "avx2") {
        return;
    }
    let oracle = Oracle::new(&module, &specs).unwrap();
    oracle.check_all(&CheckConfig { trials: 50, ..Default::default() }).unwrap();
}

#[test]
fn dependent_float_loop_stays_vector_code() {
    let r = build(ESCAPE, "_ZGVdN8vv_escape", &Options::default());
    assert!(r.fallback.is_none(), "{:?}", r.lines());
    assert!(estimate(&r) >= 1.0, "{:?}", r.lines());
}

/// A loop of calls the clone makes once per lane (`bump` writes through a
/// pointer every lane shares). Measured on AMD Zen 4 (`batchify-judge-cost
/// --ir`): vector form 823 ns, per-lane loop 153 ns (0.19x) unmasked;
/// 336 ns against 82 ns masked.
#[test]
fn loop_of_per_lane_calls_becomes_the_per_lane_loop() {
    for variant in ["_ZGVdN8uv_shared", "_ZGVdM8uv_shared"] {
        let r = build(&shared_writer(), variant, &Options::default());
        let why = r.fallback.as_deref().expect("the per-lane loop");
        assert!(why.starts_with("cost model:"), "{why}");
        assert_eq!(r.fallback_kind, Some(batchify_core::FallbackKind::CostModel));
    }
}

#[test]
fn targets_without_a_cost_table_are_vectorized() {
    let r = build(SEARCH, "_ZGV_LLVM_N8v_search", &Options::default());
    assert!(r.fallback.is_none(), "{:?}", r.lines());
    assert!(!r.lines().iter().any(|l| l.contains("cost:")), "{:?}", r.lines());
}

#[test]
fn no_fallback_reports_the_estimate_and_vectorizes() {
    let r = build(&division_chain(), "_ZGVdN8vv_chain", &Options { allow_fallback: false, ..Default::default() });
    assert!(r.fallback.is_none(), "{:?}", r.lines());
    assert!(estimate(&r) < 1.0, "{:?}", r.lines());
}

#[test]
fn cost_model_off_vectorizes() {
    let r = build(SEARCH, "_ZGVbN4v_search", &Options { cost_model: false, ..Default::default() });
    assert!(r.fallback.is_none(), "{:?}", r.lines());
}

#[test]
fn branch_free_functions_are_estimated_and_stay_vector_code() {
    let ir =
        "define i32 @f(i32 %x) {\n  %c = icmp sgt i32 %x, 3\n  %r = select i1 %c, i32 %x, i32 7\n  ret i32 %r\n}\n";
    let r = build(ir, "_ZGVdN8v_f", &Options::default());
    assert!(r.fallback.is_none(), "{:?}", r.lines());
    assert!(estimate(&r) > 1.0, "{:?}", r.lines());
    // No loop: no loop line.
    assert!(!r.lines().iter().any(|l| l.contains("cost: divergent loop")), "{:?}", r.lines());
}

/// Sixteen 64-bit remainders behind a chain of divergent exits, the shape
/// `default<O2>` makes of a short early-exit loop: one lane runs those up
/// to its exit, the clone runs all of them for every lane (one scalar
/// division per lane each: x86 has no vector integer division).
fn division_chain() -> String {
    let mut body = String::from("define i64 @chain(i64 %x, i64 %d) {\nb0:\n  %a0 = or i64 %d, 1\n");
    for k in 0..16 {
        body += &format!(
            "  %r{k} = srem i64 %x, %a{k}\n  %a{n} = add i64 %a{k}, %r{k}\n  %e{k} = icmp sgt i64 %r{k}, 5\n  \
             br i1 %e{k}, label %out, label %b{n}\nb{n}:\n",
            n = k + 1
        );
    }
    body += "  br label %out\nout:\n  %v = phi i64 ";
    let incoming: Vec<String> = (0..16).map(|k| format!("[ %r{k}, %b{k} ]")).collect();
    body += &incoming.join(", ");
    body += ", [ 0, %b16 ]\n  ret i64 %v\n}\n";
    body
}

#[test]
fn linearized_divisions_make_the_per_lane_loop_win() {
    let r = build(&division_chain(), "_ZGVeN8vv_chain", &Options::default());
    let why = r.fallback.as_deref().expect("the per-lane loop");
    assert!(why.starts_with("cost model: the per-lane loop is faster: function: est. 0."), "{why}");
    // Each of the 16 remainders runs once per lane in the clone.
    let lanes = build(&division_chain(), "_ZGVeN8vv_chain", &Options { allow_fallback: false, ..Default::default() });
    assert_eq!(vector_term(&lanes, "lane-div"), 16.0 * 8.0, "{:?}", lanes.lines());
}

/// The shared writer against the same loop calling a callee that writes
/// nothing (`triple`, batched: one call of its clone per trip). Measured on
/// AMD Zen 4 (`batchify-judge-cost --ir`): the writer's vector form 823 ns
/// against its per-lane loop's 153 ns; `pure`'s 146 ns against 152 ns.
#[test]
fn calls_the_emitter_keeps_per_lane_are_costed_per_lane() {
    let opts = Options { allow_fallback: false, ..Default::default() };
    let shared = build(&shared_writer(), "_ZGVdN8uv_shared", &opts);
    let pure = build(&pure_callee(), "_ZGVdN8uv_pure", &opts);
    // The emitter's decision, as the report says it.
    assert!(shared.lines().iter().any(|l| l.contains("per-lane: call to `bump`")), "{:?}", shared.lines());
    assert!(pure.lines().iter().any(|l| l.contains("call to `triple` ->")), "{:?}", pure.lines());
    // The cost stage's estimate follows it: per-lane calls cost a call per lane.
    assert!(vector_term(&shared, "lane-call") > 0.0, "{:?}", shared.lines());
    assert_eq!(vector_term(&pure, "lane-call"), 0.0, "{:?}", pure.lines());
    let (e_shared, e_pure) = (estimate(&shared), estimate(&pure));
    assert!(e_shared < 1.0, "{:?}", shared.lines());
    assert!(e_pure > e_shared * 2.0, "pure {e_pure}, shared {e_shared}");
    // With the fallback allowed, the writer's clone is the per-lane loop.
    let r = build(&shared_writer(), "_ZGVdN8uv_shared", &Options::default());
    assert!(r.fallback.as_deref().is_some_and(|w| w.starts_with("cost model:")), "{:?}", r.lines());
}

#[test]
fn a_reversed_load_is_costed_as_one_vector_load() {
    let opts = Options { allow_fallback: false, ..Default::default() };
    let r = build(REVERSED, "_ZGVdN8ulv_back", &opts);
    let shape = r.lines().into_iter().find(|l| l.contains("memory:")).unwrap_or_default();
    assert!(shape.contains("reversed"), "the emitter's plan: {:?}", r.lines());
    // The same loop with a gathered index (`j * j`): 8 lanes of a gather
    // weigh 16, one reversed load of 8 `i32` weighs 3 (a load and a shuffle).
    let gathered = build(
        &REVERSED.replace("%idx = sub i64 %up, %j", "%jj = mul i64 %j, %j\n  %idx = add i64 %up, %jj"),
        "_ZGVdN8ulv_back",
        &opts,
    );
    let (reversed, gather) = (vector_cycles(&r), vector_cycles(&gathered));
    assert!(gather > reversed, "reversed {reversed}, gathered {gather}: {:?} {:?}", r.lines(), gathered.lines());
    assert_eq!(vector_term(&r, "gather-lane"), 0.0, "{:?}", r.lines());
    assert!(vector_term(&gathered, "gather-lane") >= 8.0, "{:?}", gathered.lines());
}

/// Whether the report's memory lines name `form`.
fn memory_form(r: &CloneReport, form: &str) -> bool {
    r.lines().iter().any(|l| l.contains("memory:") && l.contains(form))
}

/// `REVERSED` reading `b[2j + 8k]` instead: lanes two elements apart, one
/// wide load of 16 `i32` and a shuffle in the plan.
fn strided() -> String {
    REVERSED.replace("%idx = sub i64 %up, %j", "%jj = shl i64 %j, 1\n  %idx = add i64 %up, %jj")
}

#[test]
fn a_strided_load_is_costed_as_one_wide_load() {
    let opts = Options { allow_fallback: false, ..Default::default() };
    let r = build(&strided(), "_ZGVdN8ulv_back", &opts);
    assert!(memory_form(&r, "wide access, stride 2 elements"), "the plan: {:?}", r.lines());
    let gathered = build(&strided().replace("%jj = shl i64 %j, 1", "%jj = mul i64 %j, %j"), "_ZGVdN8ulv_back", &opts);
    assert!(memory_form(&gathered, "gather"), "the plan: {:?}", gathered.lines());
    // A wide load of two `<8 x i32>` registers and a shuffle against a
    // gather of 8 lanes.
    let (wide, gather) = (vector_cycles(&r), vector_cycles(&gathered));
    assert!(gather > wide, "wide {wide}, gathered {gather}: {:?} {:?}", r.lines(), gathered.lines());
    assert_eq!(vector_term(&r, "gather-lane"), 0.0, "{:?}", r.lines());
}

/// A search loop over a small constant table at a varying index (`tab` of
/// 8 `i32`): a register permute on AVX2 x8, a gather where the table may be
/// replaced at link time (`weak`).
fn table_walk(linkage: &str) -> String {
    table_walk_of(linkage, 8)
}

/// [`table_walk`] over a table of `entries` (a power of two) odd numbers.
fn table_walk_of(linkage: &str, entries: u32) -> String {
    let values: Vec<String> = (0..entries).map(|k| format!("i32 {}", 2 * k + 1)).collect();
    let (values, mask) = (values.join(", "), entries - 1);
    format!(
        r#"
@tab = {linkage} constant [{entries} x i32] [{values}]

define i32 @walk(i32 %x) {{
entry:
  br label %head
head:
  %v = phi i32 [ %x, %entry ], [ %v.next, %head ]
  %n = phi i32 [ 0, %entry ], [ %n.next, %head ]
  %m = and i32 %v, {mask}
  %i = zext nneg i32 %m to i64
  %p = getelementptr inbounds [{entries} x i32], ptr @tab, i64 0, i64 %i
  %t = load i32, ptr %p, align 4
  %v.next = add i32 %v, %t
  %n.next = add i32 %n, 1
  %big = icmp sgt i32 %v.next, 1000
  %long = icmp sgt i32 %n.next, 50
  %stop = or i1 %big, %long
  br i1 %stop, label %out, label %head
out:
  ret i32 %n.next
}}
"#
    )
}

#[test]
fn a_table_permute_is_costed_as_one_permute() {
    let opts = Options { allow_fallback: false, ..Default::default() };
    let permute = build(&table_walk("internal"), "_ZGVdN8v_walk", &opts);
    assert!(memory_form(&permute, "table permute"), "the plan: {:?}", permute.lines());
    let gathered = build(&table_walk("weak"), "_ZGVdN8v_walk", &opts);
    assert!(memory_form(&gathered, "gather"), "the plan: {:?}", gathered.lines());
    // One `<8 x i32>` permute against a gather of 8 lanes.
    let (p, g) = (vector_cycles(&permute), vector_cycles(&gathered));
    assert!(g > p, "permute {p}, gathered {g}: {:?} {:?}", permute.lines(), gathered.lines());
    assert_eq!(vector_term(&permute, "gather-lane"), 0.0, "{:?}", permute.lines());
    assert!(estimate(&permute) > estimate(&gathered), "{:?} {:?}", permute.lines(), gathered.lines());
}

#[test]
fn a_table_of_two_registers_is_costed_as_two_permutes_and_a_select() {
    let opts = Options { allow_fallback: false, ..Default::default() };
    let one = build(&table_walk_of("internal", 8), "_ZGVdN8v_walk", &opts);
    let two = build(&table_walk_of("internal", 16), "_ZGVdN8v_walk", &opts);
    assert!(memory_form(&two, "table permute, 2 registers"), "the plan: {:?}", two.lines());
    let gathered = build(&table_walk_of("weak", 16), "_ZGVdN8v_walk", &opts);
    assert!(memory_form(&gathered, "gather"), "the plan: {:?}", gathered.lines());
    // Dearer than one permute, cheaper than a gather of 8 lanes.
    let (p1, p2, g) = (vector_cycles(&one), vector_cycles(&two), vector_cycles(&gathered));
    assert!(p1 < p2 && p2 < g, "one register {p1}, two {p2}, gathered {g}: {:?}", two.lines());
    assert_eq!(vector_term(&two, "gather-lane"), 0.0, "{:?}", two.lines());
}

/// `calls()` with `step` declaring AVX2 variants (`declare simd`): the
/// plan calls `_ZGVdM8v_step` once per trip instead of `step` once per
/// lane (issue 23: the cost model costed it per lane and chose the
/// per-lane loop).
fn variant_calls() -> String {
    call_loop(
        "declare i32 @step(i32) #0\nattributes #0 = { \"_ZGVdN8v_step\" \"_ZGVdM8v_step\" }",
        "calls",
        "i32 %x",
        "call i32 @step(i32 %v)",
    )
}

#[test]
fn a_declared_variant_call_is_costed_as_one_call() {
    let r = build(&variant_calls(), "_ZGVdN8v_calls", &Options::default());
    assert!(r.fallback.is_none(), "the vector form: {:?}", r.lines());
    assert!(r.lines().iter().any(|l| l.contains("call to `step` -> `_ZGVdM8v_step`")), "{:?}", r.lines());
    assert!(estimate(&r) >= 1.0, "{:?}", r.lines());
    // Without the variants the calls run once per lane, and the per-lane
    // loop is chosen (`loop_of_per_lane_calls_becomes_the_per_lane_loop`).
    let per_lane = build(&calls(), "_ZGVdN8v_calls", &Options { allow_fallback: false, ..Default::default() });
    assert!(estimate(&per_lane) < 1.0, "{:?}", per_lane.lines());
}
