//! Judging a changed cost model against an earlier run's timings
//! (`batchify-judge-cost --replay FILE`): the vector form and the per-lane
//! loop do not depend on the cost model (they are built with it off and
//! with the per-lane loop forced), so their medians from a run's `--out`
//! file still hold while only the cost model changes. Each program is
//! generated and prepared again, only its choice is rebuilt, and the
//! choice is scored against the stored medians. A change to emission
//! makes the stored timings stale: judge anew then.
//!
//! A replay is for tuning; the judge's verdict is a run that times every
//! program, on seeds the tuning did not look at.

use super::{
    build, build_options, clone_kind, cost_notes, fuzz_options, prepared_ir, skip, Choice, Features, JudgeOptions,
    JudgeSummary, Judged, Timed, Timing, COST_MODEL_PREFIX,
};
use crate::fuzz;
use inkwell::context::Context;
use std::time::Instant;

/// One timed program of a stored run.
struct Stored {
    index: usize,
    seed: u64,
    vector: f64,
    per_lane: f64,
    mixed: Option<f64>,
    overhead: f64,
    iters: u64,
    divergent_loops: usize,
}

/// The timed programs of a `--out` file.
fn parse(tsv: &str) -> Result<Vec<Stored>, String> {
    let mut lines = tsv.lines();
    let header: Vec<&str> = lines.next().ok_or("empty file")?.split('\t').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).ok_or(format!("no column `{name}`"));
    let (ci, cs, cv, cp, cm, co, cit) = (
        col("index")?,
        col("seed")?,
        col("vector_ns")?,
        col("per_lane_ns")?,
        col("mixed_ns")?,
        col("overhead_ns")?,
        col("iters")?,
    );
    let cd = col("divergent_loops")?;
    let mut out = Vec::new();
    for (n, line) in lines.enumerate() {
        let f: Vec<&str> = line.split('\t').collect();
        let get = |c: usize| f.get(c).copied().unwrap_or("");
        if get(cv).is_empty() {
            continue; // skipped in the run
        }
        let num = |c: usize| get(c).parse::<f64>().map_err(|e| format!("line {}: column {c}: {e}", n + 2));
        out.push(Stored {
            index: get(ci).parse().map_err(|e| format!("line {}: index: {e}", n + 2))?,
            seed: get(cs).parse().map_err(|e| format!("line {}: seed: {e}", n + 2))?,
            vector: num(cv)?,
            per_lane: num(cp)?,
            mixed: get(cm).parse().ok(),
            overhead: num(co)?,
            iters: get(cit).parse().unwrap_or(0),
            divergent_loops: get(cd).parse().unwrap_or(0),
        });
    }
    Ok(out)
}

/// The stored run `tsv` judged with the current cost model (the choice
/// rebuilt, the timings read). A choice of [`Choice::Mixed`] without a
/// stored time of its own is scored at the vector form's.
pub fn replay(tsv: &str, opts: &JudgeOptions) -> Result<JudgeSummary, String> {
    let start = Instant::now();
    let stored = parse(tsv)?;
    let [choice_opts, vector_opts, _] = build_options();
    let mut summary = JudgeSummary::default();
    for s in stored {
        let (width, masked) = clone_kind(s.seed, opts);
        let fo = fuzz_options(s.seed, opts);
        let program = fuzz::generate_for(s.seed, &fo);
        let spec = fuzz::spec_for(&program, &fo);
        let result = prepared_ir(&program, opts).map_err(|e| skip("default<O2> failed", e)).and_then(|ir| {
            let ctx = Context::create();
            let b = build(&ctx, &ir, &spec, &choice_opts).map_err(|e| skip("choice build failed", e.to_string()))?;
            let choice = match &b.report.fallback {
                Some(w) if w.starts_with(COST_MODEL_PREFIX) => Choice::PerLane,
                Some(w) => return Err(skip("choice build: fallback for another reason than cost", w.clone())),
                None if b
                    .report
                    .callee_clones
                    .iter()
                    .any(|c| c.fallback.as_deref().is_some_and(|w| w.starts_with(COST_MODEL_PREFIX))) =>
                {
                    Choice::Mixed
                }
                None => Choice::Vector,
            };
            let at = |ns: f64| Timing { median: ns, min: ns, max: ns };
            Ok(Timed {
                choice,
                vector: at(s.vector),
                per_lane: at(s.per_lane),
                mixed: (choice == Choice::Mixed).then(|| at(s.mixed.unwrap_or(s.vector))),
                iters: s.iters,
                overhead: s.overhead,
                outputs_differ: false,
                // A per-lane choice's report has no estimate: the vector
                // build's has it (the same estimate).
                cost_notes: match choice {
                    Choice::PerLane => {
                        build(&ctx, &ir, &spec, &vector_opts).map(|v| cost_notes(&v.report)).unwrap_or_default()
                    }
                    _ => cost_notes(&b.report),
                },
                choice_reason: b.report.fallback.clone(),
                features: Features::of(&b.report, &ir),
                builds_agree: true,
            })
        });
        summary.programs.push(Judged {
            index: s.index,
            seed: s.seed,
            width,
            masked,
            divergent_loops: s.divergent_loops,
            result,
        });
    }
    summary.elapsed = start.elapsed();
    Ok(summary)
}
