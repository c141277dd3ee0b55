//! The oracle checks the side-effect recorder's log (`batchify_record`,
//! see `batchify_testkit::recorder`): hand-written masked clones that
//! record in lock step or lane after lane pass; clones that record for
//! inactive lanes, record a wrong value, or skip a call fail with a log
//! mismatch.

use batchify_core::vfabi::Isa;
use batchify_core::CloneSpec;
use batchify_testkit::corpus::parse_module;
use batchify_testkit::{CheckConfig, MismatchKind, Oracle, OracleError};
use inkwell::context::Context;

/// `f(x)`: records `(1, x)` when `x > 0`, then `(2, x * 2)`; returns `x`.
/// The clones differ only in how they call the recorder.
const SCALAR: &str = r#"
declare void @batchify_record(i64, i64)

define i32 @f(i32 %x) {
entry:
  %w = sext i32 %x to i64
  %pos = icmp sgt i32 %x, 0
  br i1 %pos, label %rec, label %next
rec:
  call void @batchify_record(i64 1, i64 %w)
  br label %next
next:
  %d = mul i64 %w, 2
  call void @batchify_record(i64 2, i64 %d)
  ret i32 %x
}
"#;

/// A 4-lane masked clone whose lane `k` runs `body(k)` (IR lines using
/// `%x.k`, `%w.k`, `%on.k` = the lane is active).
fn clone_with(body: impl Fn(usize) -> String, after: impl Fn(usize) -> String) -> String {
    let mut s = String::from("define <4 x i32> @_ZGV_LLVM_M4v_f(<4 x i32> %x, <4 x i1> %mask) {\nentry:\n");
    for k in 0..4 {
        s.push_str(&format!(
            "  %x.{k} = extractelement <4 x i32> %x, i32 {k}\n  %w.{k} = sext i32 %x.{k} to i64\n  %on.{k} = \
             extractelement <4 x i1> %mask, i32 {k}\n"
        ));
    }
    s.push_str("  br label %a0\n");
    // First call site for every lane, then the second for every lane.
    for k in 0..4 {
        s.push_str(&format!("a{k}:\n{}  br label %a{}\n", body(k), k + 1));
    }
    s.push_str("a4:\n  br label %b0\n");
    for k in 0..4 {
        s.push_str(&format!("b{k}:\n{}  br label %b{}\n", after(k), k + 1));
    }
    s.push_str("b4:\n  ret <4 x i32> %x\n}\n");
    s
}

/// Lane `k`'s first call site: `(1, x)` when `x > 0` and `guard`.
fn first_site(k: usize, guard: &str) -> String {
    format!(
        "  %pos.{k} = icmp sgt i32 %x.{k}, 0\n  %g.{k} = and i1 %pos.{k}, {guard}\n  br i1 %g.{k}, label %r1.{k}, label \
         %s1.{k}\nr1.{k}:\n  call void @batchify_record(i64 1, i64 %w.{k})\n  br label %s1.{k}\ns1.{k}:\n"
    )
}

/// Lane `k`'s second call site: `(2, value)` when `guard`.
fn second_site(k: usize, guard: &str, value: &str) -> String {
    format!(
        "  %d.{k} = mul i64 %w.{k}, 2\n  %v.{k} = {value}\n  br i1 {guard}, label %r2.{k}, label %s2.{k}\nr2.{k}:\n  \
         call void @batchify_record(i64 2, i64 %v.{k})\n  br label %s2.{k}\ns2.{k}:\n"
    )
}

fn check(clone: &str) -> Result<(), Box<batchify_testkit::Mismatch>> {
    let ctx = Context::create();
    let text = format!("{SCALAR}\n{clone}");
    let m = parse_module(&ctx, text.as_bytes(), "recorder").expect("module parses");
    let spec = CloneSpec::all_varying("f", 1, 4, Isa::Llvm, true);
    let oracle = Oracle::new(&m, &[spec]).expect("oracle builds");
    match oracle.check_all(&CheckConfig { trials: 40, seed: 7 }) {
        Ok(stats) => {
            assert!(stats.lanes_compared > 0);
            Ok(())
        }
        Err(OracleError::Mismatch(m)) => Err(m),
        Err(e) => panic!("setup failed: {e}"),
    }
}

fn log_failure(clone: &str) -> String {
    match check(clone) {
        Err(m) => {
            assert!(matches!(m.kind, MismatchKind::Log { .. }), "not a log mismatch: {m}");
            m.to_string()
        }
        Ok(()) => panic!("the wrong clone passed:\n{clone}"),
    }
}

#[test]
fn lock_step_clone_passes() {
    let clone = clone_with(
        |k| first_site(k, &format!("%on.{k}")),
        |k| second_site(k, &format!("%on.{k}"), &format!("add i64 %d.{k}, 0")),
    );
    check(&clone).unwrap_or_else(|m| panic!("{m}"));
}

#[test]
fn lane_after_lane_clone_passes() {
    // Both call sites for lane 0, then for lane 1, ...
    let mut clone = String::from("define <4 x i32> @_ZGV_LLVM_M4v_f(<4 x i32> %x, <4 x i1> %mask) {\nentry:\n");
    for k in 0..4 {
        clone.push_str(&format!(
            "  br label %l{k}\nl{k}:\n  %on.{k} = extractelement <4 x i1> %mask, i32 {k}\n  br i1 %on.{k}, label \
             %c{k}, label %n{k}\nc{k}:\n  %x.{k} = extractelement <4 x i32> %x, i32 {k}\n  %r.{k} = call i32 @f(i32 \
             %x.{k})\n  br label %n{k}\nn{k}:\n"
        ));
    }
    clone.push_str("  ret <4 x i32> %x\n}\n");
    check(&clone).unwrap_or_else(|m| panic!("{m}"));
}

#[test]
fn recording_for_inactive_lanes_fails() {
    let clone =
        clone_with(|k| first_site(k, "true"), |k| second_site(k, &format!("%on.{k}"), &format!("add i64 %d.{k}, 0")));
    let msg = log_failure(&clone);
    assert!(msg.contains("recorder log differs"), "{msg}");
}

#[test]
fn a_wrong_value_fails() {
    let clone = clone_with(
        |k| first_site(k, &format!("%on.{k}")),
        |k| second_site(k, &format!("%on.{k}"), &format!("add i64 %d.{k}, {}", (k == 3) as u32)),
    );
    log_failure(&clone);
}

#[test]
fn a_missing_call_fails() {
    let clone = clone_with(
        |k| first_site(k, &format!("%on.{k}")),
        |k| {
            let guard = if k == 1 { "false".to_string() } else { format!("%on.{k}") };
            second_site(k, &guard, &format!("add i64 %d.{k}, 0"))
        },
    );
    log_failure(&clone);
}

#[test]
fn a_lane_out_of_its_own_order_fails() {
    // The second call site before the first, for every lane.
    let clone = clone_with(
        |k| second_site(k, &format!("%on.{k}"), &format!("add i64 %d.{k}, 0")),
        |k| first_site(k, &format!("%on.{k}")),
    );
    log_failure(&clone);
}
