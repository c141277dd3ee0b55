//! Reverse derivatives of random programs (`batchify_testkit::fuzz_enzyme`,
//! `batchify-fuzz --enzyme-reverse` for long runs): the fuzzer's programs
//! are differentiated by Enzyme (`__enzyme_autodiff`), and batchify's
//! unmasked and masked 8-lane clones of each derivative `diffe<f>`
//! (per-lane fallback allowed) must match it on every lane, bit for bit,
//! buffers and recorder logs included. Programs Enzyme rejects are
//! reported, not failures; but most must be accepted and vectorized.

use batchify_testkit::fuzz::FuzzOptions;
use batchify_testkit::{enzyme, fuzz_enzyme};
use std::time::Duration;

/// Programs of the test run (a 1,000-program run is in `docs/autodiff.md`).
const PROGRAMS: usize = 120;

#[test]
fn reverse_derivatives_of_random_programs_match_per_lane() {
    let test = "enzyme_fuzz::reverse_derivatives_of_random_programs_match_per_lane";
    let Some(plugin) = enzyme::plugin_or_skip(test, &["opt-22"]) else { return };
    let opts = FuzzOptions {
        count: PROGRAMS,
        seed: 0x00e2_0000,
        gen: fuzz_enzyme::gen_config(),
        threads: std::thread::available_parallelism().map_or(1, |n| n.get()).min(4),
        timeout: Some(Duration::from_secs(120)),
        ..FuzzOptions::default()
    };
    let s = fuzz_enzyme::run(&opts, &plugin, 0, &mut |_| {});
    eprintln!("{test}:\n{}", s.report());
    assert!(!s.failed(), "mismatch, invalid IR or panic:\n{}", s.report());
    assert_eq!(s.programs, PROGRAMS);
    // Enzyme rejects a few programs (type analysis, crashes); most must get
    // through, and batchify must build and check both clones of each.
    assert!(s.accepted * 10 >= PROGRAMS * 9, "only {} of {PROGRAMS} programs accepted by Enzyme", s.accepted);
    assert_eq!(s.ok, s.accepted, "accepted programs not checked:\n{}", s.report());
    assert_eq!(s.clones, 2 * s.accepted);
    assert!(s.vectorized * 10 >= s.clones * 9, "only {} of {} clones vectorized", s.vectorized, s.clones);
    assert!(s.lanes_compared >= s.clones * 100, "only {} lanes compared", s.lanes_compared);
}
