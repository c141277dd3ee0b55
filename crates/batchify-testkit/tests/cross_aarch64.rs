//! The AArch64 execution oracle (`batchify_testkit::cross_aarch64`):
//! generated programs batched as Advanced SIMD variants, and as SVE
//! variants of scalable length run at several vector lengths,
//! cross-compiled with clang-22 and run under qemu-aarch64. Skipped loudly
//! without clang-22, aarch64-linux-gnu-gcc or qemu-aarch64 (a failure under
//! `BATCHIFY_REQUIRE_TOOLS=1`).

use batchify_testkit::cross_aarch64::{self, CrossEngine, CrossIsa, CrossOptions, Prepared};
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

fn sve(vqs: &[u32]) -> CrossOptions {
    CrossOptions { isa: CrossIsa::Sve { vqs: vqs.to_vec() }, ..CrossOptions::default() }
}

/// 60 programs as SVE variants of scalable length (`_ZGVsNx`/`_ZGVsMx`),
/// each binary run at vscale 2 (256 bits, one of batchify's vectorized
/// lengths) and 8 (1024 bits, the per-lane loop): no mismatch, crash, hang
/// or compile error, every clone scalable, every program compared at both
/// lengths.
#[test]
fn sve_random_programs_match_their_scalar_functions_under_qemu() {
    if !tools("sve_random_programs_match_their_scalar_functions_under_qemu") {
        return;
    }
    let s = cross_aarch64::run(60, 0x5fe_0000, &sve(&[2, 8]), &|_| {});
    eprintln!("{}", s.report());
    assert_eq!(s.programs, 60);
    assert!(!s.failed(), "{}", s.report());
    assert_eq!((s.mismatches, s.setup_errors, s.vscale_errors), (0, 0, 0), "{}", s.report());
    assert!(s.clones_built + s.unsupported == 60 && s.clones_built >= 55, "too few SVE clones ran: {s}");
    assert_eq!(s.scalable, s.clones_built, "clones without scalable vectors: {s}");
    assert!(s.widths.keys().all(|k| k.starts_with("vscale x ")), "{s}");
    assert!(s.masked >= 10 && s.masked + 10 <= s.clones_built, "masked and unmasked clones: {s}");
    assert_eq!(s.per_vq.keys().copied().collect::<Vec<_>>(), vec![2, 8], "{s}");
    for v in s.per_vq.values() {
        assert_eq!(v.programs, s.clones_built, "{s}");
        assert!(v.lanes_compared > 60 * 16, "{s}");
    }
    // Eight granules run about four times the lanes of two.
    assert!(s.per_vq[&8].lanes_compared > s.per_vq[&2].lanes_compared * 3, "{s}");
}

/// The SVE harness's control run: reference clones of scalable type that
/// call the scalar function per lane agree at vscale 4, and with lane 0's
/// result off by one bit nearly every program is reported, naming lane 0.
#[test]
fn the_sve_harness_agrees_with_itself_and_sees_a_wrong_lane() {
    if !tools("the_sve_harness_agrees_with_itself_and_sees_a_wrong_lane") {
        return;
    }
    let control = CrossOptions { engine: CrossEngine::ScalarLoop, ..sve(&[4]) };
    let s = cross_aarch64::run(30, 0xc0_47a2, &control, &|_| {});
    assert!(!s.failed() && s.clones_built == 30 && s.scalable == 30, "{}", s.report());
    let corrupted = CrossOptions { engine: CrossEngine::Corrupted, keep_failures: 100, ..sve(&[4]) };
    let s = cross_aarch64::run(30, 0xc0_47a2, &corrupted, &|_| {});
    eprintln!("{s}");
    assert!(s.mismatches >= 26, "a lane off by one bit went unseen: {}", s.report());
    assert_eq!(s.crashes + s.hangs + s.compile_errors, 0, "{}", s.report());
    assert!(s.failures.iter().all(|f| f.message.contains(", lane 0:")), "{}", s.report());
}
