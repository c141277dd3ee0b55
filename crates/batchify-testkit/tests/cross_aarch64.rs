//! The AArch64 execution oracle (`batchify_testkit::cross_aarch64`):
//! generated programs batched as Advanced SIMD variants, cross-compiled
//! with clang-22 and run under qemu-aarch64. Skipped loudly without
//! clang-22, aarch64-linux-gnu-gcc or qemu-aarch64.

use batchify_testkit::cross_aarch64::{self, CrossEngine, CrossOptions, Prepared};
use batchify_testkit::skip::require_tool;

fn tools(test: &str) -> bool {
    cross_aarch64::TOOLS.iter().all(|t| require_tool(test, t))
}

/// 200 programs, masked and unmasked, at the widths of their
/// characteristic types: no mismatch, crash or hang, and most clones are
/// vectorized (not per-lane fallbacks).
#[test]
fn random_programs_match_their_scalar_functions_under_qemu() {
    if !tools("random_programs_match_their_scalar_functions_under_qemu") {
        return;
    }
    let opts = CrossOptions::default();
    let s = cross_aarch64::run(200, 0xa64_0000, &opts, &|_| {});
    eprintln!("{}", s.report());
    assert_eq!(s.programs, 200);
    assert!(!s.failed(), "{}", s.report());
    assert_eq!(s.setup_errors, 0, "{}", s.report());
    assert!(s.vectorized() >= 150, "too few vectorized clones: {s}");
    assert!(s.masked >= 50 && s.masked + 50 <= s.clones_built, "masked and unmasked clones: {s}");
    assert!(s.divergent >= 50, "too few clones with divergent control flow: {s}");
    assert!(s.widths.keys().any(|k| k.starts_with("2 x")) && s.widths.keys().any(|k| k.starts_with("4 x")), "{s}");
    assert!(s.lanes_compared > 200 * 16, "{s}");
}

/// The control run: reference clones in the same ABI that call the scalar
/// function per lane agree, and with lane 0's result off by one bit every
/// program is reported, naming lane 0.
#[test]
fn the_harness_agrees_with_itself_and_sees_a_wrong_lane() {
    if !tools("the_harness_agrees_with_itself_and_sees_a_wrong_lane") {
        return;
    }
    let control = CrossOptions { engine: CrossEngine::ScalarLoop, ..CrossOptions::default() };
    let s = cross_aarch64::run(40, 0xc0_47a1, &control, &|_| {});
    assert!(!s.failed() && s.clones_built == 40, "{}", s.report());
    let corrupted = CrossOptions { engine: CrossEngine::Corrupted, keep_failures: 100, ..CrossOptions::default() };
    let s = cross_aarch64::run(40, 0xc0_47a1, &corrupted, &|_| {});
    eprintln!("{s}");
    assert!(s.mismatches >= 36, "a lane off by one bit went unseen: {}", s.report());
    assert_eq!(s.crashes + s.hangs + s.compile_errors, 0, "{}", s.report());
    assert!(s.failures.iter().all(|f| f.message.contains(", lane 0:")), "{}", s.report());
}

/// Inserts `code` (a block ending in a terminator, then `cont:`) at the top
/// of the reference clone of `p`.
fn sabotage(p: &mut Prepared, code: &str) {
    let ir = p.ir.take().expect("a module");
    let mut out = String::new();
    let mut armed = false;
    for line in ir.lines() {
        out.push_str(line);
        out.push('\n');
        if line.starts_with("define") && line.contains(&p.spec.vector_name) {
            armed = true;
        } else if armed && line.starts_with("entry:") {
            out.push_str(code);
            armed = false;
        }
    }
    out.push_str("\ndeclare void @llvm.trap()\n");
    p.ir = Some(out);
}

/// A clone that traps and one that never returns are each named, and the
/// other programs of their batch are still checked.
#[test]
fn crashes_and_hangs_are_named() {
    if !tools("crashes_and_hangs_are_named") {
        return;
    }
    let opts = CrossOptions {
        engine: CrossEngine::ScalarLoop,
        timeout: std::time::Duration::from_secs(5),
        // The reference clones as written: `entry` branches to `lane0`.
        optimize_fraction: 0.0,
        ..CrossOptions::default()
    };
    let mut progs: Vec<Prepared> = (0..6).map(|i| cross_aarch64::prepare(0x5ab_0000 + i, &opts)).collect();
    sabotage(&mut progs[1], "  call void @llvm.trap()\n  br label %cont\ncont:\n");
    sabotage(&mut progs[3], "  br label %spin\nspin:\n  br label %spin\ncont:\n");
    let s = cross_aarch64::check_prepared(&progs, &opts);
    eprintln!("{}", s.report());
    assert_eq!((s.crashes, s.hangs, s.mismatches), (1, 1, 0), "{}", s.report());
    assert_eq!(s.clones_built, 4, "{}", s.report());
    let seeds: Vec<u64> = s.failures.iter().map(|f| f.seed).collect();
    assert_eq!(seeds, vec![0x5ab_0001, 0x5ab_0003], "{}", s.report());
}
