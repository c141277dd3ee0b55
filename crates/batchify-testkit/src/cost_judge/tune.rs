//! Tuning the cost table (`batchify_core::cost::terms::CYCLES`) on a
//! replayed run (`batchify-judge-cost --replay FILE --tune`).
//!
//! Each program's estimate is a sum of term counts times the table's
//! cycles ([`Terms`]), for the per-lane loop and for the vector form, and
//! its `cost: terms:` line says the counts. With the counts and the two
//! forms' measured medians, any table can be scored without building
//! again: the choice is the vector form iff its cycles are at most the
//! per-lane loop's. [`tune`] scales one entry at a time by a few factors
//! and keeps a change that raises [`objective`] (the share within 10%,
//! less a little for programs beyond 1.5x and for the total log ratio),
//! for a few rounds, under [`plausible`]'s constraints: a per-lane call
//! costs at least what the scalar call costs, and no table in which a gather is
//! cheaper than a contiguous access is accepted, nor a vector division per lane
//! cheaper than a scalar one. The counts of the chain terms depend on the
//! table they were computed with (a trip's wait beyond its issue time), so
//! a tuned table is replayed again to check it.
//!
//! [`held_out`] tunes on the even seeds and scores the odd ones: the
//! estimate of how the table does on programs it did not see.

use super::{JudgeSummary, Timed, WITHIN, WORST_ACCEPTED};
use batchify_core::cost::terms::{Term, Terms, ALL, CYCLES};

/// One timed program: its term counts and the two medians.
#[derive(Debug, Clone)]
pub struct Sample {
    /// The program's seed.
    pub seed: u64,
    /// The per-lane loop's terms.
    pub per_lane: Terms,
    /// The vector form's terms.
    pub vector: Terms,
    /// The vector form's median (ns).
    pub vector_ns: f64,
    /// The per-lane loop's median (ns).
    pub per_lane_ns: f64,
}

/// The samples of a replayed (or judged) run: the timed programs with a
/// `cost: terms:` line.
pub fn samples(summary: &JudgeSummary) -> Vec<Sample> {
    summary
        .timed()
        .filter_map(|(j, t)| {
            let (per_lane, vector) = terms_of(t)?;
            Some(Sample { seed: j.seed, per_lane, vector, vector_ns: t.vector.median, per_lane_ns: t.per_lane.median })
        })
        .collect()
}

fn terms_of(t: &Timed) -> Option<(Terms, Terms)> {
    let line = t.cost_notes.iter().find_map(|n| n.strip_prefix("terms: per-lane loop ["))?;
    let (per_lane, rest) = line.split_once("]; vector form [")?;
    let vector = rest.strip_suffix(']')?;
    Some((Terms::parse(per_lane)?, Terms::parse(vector)?))
}

/// Cycles of `terms` under `table`.
fn cycles(terms: &Terms, table: &[f64; 20]) -> f64 {
    terms.0.iter().zip(table).map(|(c, w)| c * w).sum()
}

/// How a table does on samples.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Score {
    /// Share of samples whose choice is within [`WITHIN`] of the faster form.
    pub within: f64,
    /// Samples whose choice is more than [`WORST_ACCEPTED`] slower.
    pub beyond: usize,
    /// The worst ratio.
    pub worst: f64,
    /// Sum of the logarithms of the ratios.
    pub log_sum: f64,
}

/// The score of `table` on `samples`.
pub fn score(samples: &[Sample], table: &[f64; 20]) -> Score {
    let mut s = Score { within: 0.0, beyond: 0, worst: 1.0, log_sum: 0.0 };
    for x in samples {
        let vector = cycles(&x.vector, table) <= cycles(&x.per_lane, table);
        let chosen = if vector { x.vector_ns } else { x.per_lane_ns };
        let ratio = chosen / x.vector_ns.min(x.per_lane_ns).max(1e-9);
        s.within += (ratio <= WITHIN) as u32 as f64;
        s.beyond += (ratio > WORST_ACCEPTED) as usize;
        s.worst = s.worst.max(ratio);
        s.log_sum += ratio.ln();
    }
    s.within /= samples.len().max(1) as f64;
    s
}

/// What [`tune`] maximises.
pub fn objective(samples: &[Sample], table: &[f64; 20]) -> f64 {
    if !plausible(table) {
        return f64::NEG_INFINITY;
    }
    let s = score(samples, table);
    s.within - 0.002 * s.beyond as f64 - 0.0005 * s.log_sum
}

/// Whether a table respects what is known of x86 without measuring: a
/// contiguous access of a register costs at most what gathering its lanes
/// (at least 4) does, a scatter lane at least most of a gather lane, an
/// integer division per lane at least a scalar one, a call of a clone at
/// least a scalar call, and a per-lane call at least a scalar call (in vector
/// code it also spills the live vector registers, which calls clobber).
pub fn plausible(t: &[f64; 20]) -> bool {
    let c = |term: Term| t[term as usize];
    c(Term::VectorAccess) * 2.0 <= c(Term::GatherLane) * 4.0
        && c(Term::VectorAccess) <= 1.0
        && c(Term::ScalarAccess) <= 1.0
        && c(Term::ScatterLane) >= 0.75 * c(Term::GatherLane)
        && c(Term::LaneDivision) >= c(Term::ScalarDivision)
        && c(Term::VectorCall) >= c(Term::ScalarCall)
        && c(Term::LaneCall) >= c(Term::ScalarCall)
}

/// Factors [`tune`] tries on each entry.
const FACTORS: [f64; 8] = [0.25, 0.5, 0.7, 0.85, 1.2, 1.4, 2.0, 4.0];

/// `start` tuned on `samples` for `rounds` rounds. The scalar operation
/// stays the unit, and the per-lane call as it is.
pub fn tune(samples: &[Sample], start: &[f64; 20], rounds: usize) -> [f64; 20] {
    let mut t = *start;
    for _ in 0..rounds {
        for term in ALL {
            // The unit, and the per-lane call the generated programs say
            // little about (set from a kernel's measurement).
            if matches!(term, Term::ScalarOp | Term::LaneCall) {
                continue;
            }
            let k = term as usize;
            let mut best = (objective(samples, &t), t[k]);
            let old = t[k];
            for f in FACTORS {
                t[k] = old * f;
                let o = objective(samples, &t);
                if o > best.0 + 1e-9 {
                    best = (o, t[k]);
                }
            }
            t[k] = best.1;
        }
    }
    t
}

/// Tunes on the even seeds, scores on the odd ones: (tuned table, score on
/// the even seeds, score on the odd ones).
pub fn held_out(samples: &[Sample], rounds: usize) -> ([f64; 20], Score, Score) {
    let (even, odd): (Vec<Sample>, Vec<Sample>) = samples.iter().cloned().partition(|s| s.seed % 2 == 0);
    let t = tune(&even, &CYCLES, rounds);
    (t, score(&even, &t), score(&odd, &t))
}

/// A table as the Rust source of `CYCLES`.
pub fn render(t: &[f64; 20]) -> String {
    let mut s = String::from("pub const CYCLES: [f64; 20] = [\n");
    for term in ALL {
        s += &format!("    {:.3}, // {:?}\n", t[term as usize], term);
    }
    s + "];\n"
}

impl std::fmt::Display for Score {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:.1}% within 10%, {} beyond 1.5x, worst {:.2}x", 100.0 * self.within, self.beyond, self.worst)
    }
}
