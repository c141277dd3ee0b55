//! The mechanics of the cost model's judge (`batchify_testkit::cost_judge`,
//! `batchify-judge-cost`) on a handful of random programs: every program
//! gets both timings or a skip reason, the table sums to the programs
//! timed, and the three builds (default options, `cost_model: false`,
//! `force_per_lane: true`) are what their reports say. Nothing here
//! asserts on what the timings are: they depend on the machine and its load.

use batchify_core::vfabi::VariantName;
use batchify_core::CloneSpec;
use batchify_testkit::cost_judge::timing::{TimingConfig, MAX_SAMPLES};
use batchify_testkit::cost_judge::{self, Choice, FormKind, JudgeOptions, COST_MODEL_PREFIX};
use batchify_testkit::fuzz;
use inkwell::context::Context;

/// Programs 30..38 from seed 1000: among them, on the generator of this
/// writing, choices of both forms and divergent loops.
fn options() -> JudgeOptions {
    JudgeOptions {
        count: 8,
        seed: 1030,
        timing: TimingConfig { sample_ns: 20_000, samples: 5, timeout_secs: 60 },
        ..JudgeOptions::default()
    }
}

#[test]
fn every_program_gets_both_timings_or_a_skip_reason() {
    let opts = options();
    let summary = cost_judge::run(&opts, 0, &mut |_| {});
    assert_eq!(summary.programs.len(), opts.count);
    for (i, j) in summary.programs.iter().enumerate() {
        assert_eq!((j.index, j.seed), (i, fuzz::program_seed(opts.seed, i)));
        assert_eq!((j.width, j.masked), cost_judge::clone_kind(j.seed, &opts));
        match &j.result {
            Ok(t) => {
                for form in [&t.vector, &t.per_lane] {
                    assert!(form.min > 0.0 && form.min <= form.median && form.median <= form.max, "{t:?}");
                }
                assert!(t.iters >= 1 && t.overhead >= 0.0, "{t:?}");
                assert_eq!(t.mixed.is_some(), t.choice == Choice::Mixed, "{t:?}");
                assert!(t.ratio() >= 1.0 || t.choice == Choice::Mixed, "{t:?}");
                assert!(t.builds_agree, "seed {}: the choice's build is not the form it names", j.seed);
                assert_eq!(t.choice_reason.is_some(), t.choice != Choice::Vector, "{t:?}");
                if t.choice == Choice::PerLane {
                    assert!(t.choice_reason.as_deref().is_some_and(|r| r.starts_with(COST_MODEL_PREFIX)), "{t:?}");
                }
                // The cost model estimates every divergent loop of an x86 clone.
                assert!(t.cost_notes.len() >= usize::from(j.divergent_loops > 0), "{t:?}");
            }
            Err(s) => assert!(!s.key.is_empty() && !s.detail.is_empty(), "{s:?}"),
        }
    }
    let timed = summary.timed().count();
    assert!(timed > 0, "no program was timed:\n{}", summary.report(&opts));
    let table = summary.table();
    assert_eq!(table.values().sum::<usize>(), timed);
    assert_eq!(summary.skips().values().sum::<usize>(), opts.count - timed);
    let (within, n) = summary.within(cost_judge::WITHIN);
    assert!(within <= n && n == timed);
    let report = summary.report(&opts);
    assert!(report.contains("| chosen \\ faster | vector | per-lane | total |"), "{report}");
    assert_eq!(summary.tsv().lines().count(), opts.count + 1);
    // The table's cells are the programs' own verdicts.
    for (_, t) in summary.timed() {
        assert!(table[&(t.choice, t.faster())] > 0);
    }
    eprintln!("{report}");
}

#[test]
fn the_three_builds_are_what_their_reports_say() {
    let opts = options();
    let mut kinds = Vec::new();
    for i in 0..opts.count {
        let seed = fuzz::program_seed(opts.seed, i);
        let fo = cost_judge::fuzz_options(seed, &opts);
        let program = fuzz::generate_for(seed, &fo);
        let spec = fuzz::spec_for(&program, &fo);
        let ir = cost_judge::prepared_ir(&program, &opts).expect("default<O2> runs");
        let ctx = Context::create();
        let Ok(b) = cost_judge::build_three(&ctx, &ir, &spec) else { continue };
        assert_eq!(b.vector.report.fallback, None, "seed {seed}");
        let per_lane = b.per_lane.report.fallback.as_deref().unwrap_or_default();
        assert!(per_lane.contains("the per-lane loop was requested"), "seed {seed}: {per_lane}");
        let choice_defs = cost_judge::definitions(&b.choice.module);
        match b.choice_kind {
            Choice::Vector => {
                assert_eq!(b.choice.report.fallback, None);
                assert_eq!(choice_defs, cost_judge::definitions(&b.vector.module), "seed {seed}");
            }
            Choice::PerLane => {
                let why = b.choice.report.fallback.as_deref().unwrap_or_default();
                assert!(why.starts_with(COST_MODEL_PREFIX), "seed {seed}: {why}");
                assert_eq!(choice_defs, cost_judge::definitions(&b.per_lane.module), "seed {seed}");
            }
            Choice::Mixed => assert!(b
                .choice
                .report
                .callee_clones
                .iter()
                .any(|c| c.fallback.as_deref().is_some_and(|w| w.starts_with(COST_MODEL_PREFIX)))),
        }
        // The vector build's cost notes are the estimates the choice acted on.
        if b.choice_kind == Choice::PerLane {
            let why = b.choice.report.fallback.clone().unwrap_or_default();
            assert!(b.vector.report.stats.cost_notes.iter().any(|n| why.contains(n.as_str())), "seed {seed}: {why}");
        }
        kinds.push(b.choice_kind);
    }
    assert!(!kinds.is_empty());
}

/// A function the vectorizer does not handle (a volatile load) has no
/// choice to judge: skipped as unsupported, with the reason.
#[test]
fn an_unsupported_function_is_skipped_with_its_reason() {
    let ir = r#"
define i32 @vol(ptr %p, i32 %x) {
entry:
  %v = load volatile i32, ptr %p, align 4
  %r = add i32 %v, %x
  ret i32 %r
}
"#;
    let opts = JudgeOptions::default();
    let params = vec![batchify_core::vfabi::ParamKind::Vector; 2];
    let ps: Vec<_> = params.iter().map(|&kind| batchify_core::vfabi::Param { kind, align: None }).collect();
    let spec = CloneSpec {
        scalar_name: "vol".into(),
        vector_name: VariantName::mangle(opts.isa, true, 8, &ps, "vol"),
        width: 8,
        aligns: vec![None; 2],
        params,
        mask: Some(batchify_core::spec::mask_abi_for(opts.isa)),
        isa: opts.isa,
    };
    let ctx = Context::create();
    let skip = cost_judge::build_three(&ctx, ir, &spec).err().expect("skipped");
    assert!(skip.key.starts_with("unsupported:") && skip.detail.contains("volatile"), "{skip:?}");
}

#[test]
fn timing_summaries() {
    let t = cost_judge::Timing::of(&[5.0, 1.0, 3.0, 2.0, 4.0]);
    assert_eq!((t.min, t.median, t.max), (1.0, 3.0, 5.0));
    assert_eq!(cost_judge::Timing::of(&[4.0, 1.0, 3.0, 2.0]).median, 2.5);
    assert!((t.spread() - 4.0 / 3.0).abs() < 1e-12);
    assert!(options().timing.samples <= MAX_SAMPLES);
    assert_eq!(format!("{} {}", FormKind::Vector, FormKind::PerLane), "vector per-lane");
}
