//! The trips the cost model assumes for one entry into a loop: a constant
//! bound read off the loop's induction variable when it has one (a header
//! phi that starts at a constant and steps by a constant, compared with a
//! constant where the loop exits), [`UNKNOWN_TRIPS`] otherwise. A lane runs
//! the whole bound when that compare is the loop's only exit, and half of
//! it when other exits may leave earlier. A divergent loop runs as many
//! trips as its slowest lane: [`spread`] times a lane's, at most the bound,
//! or [`unbounded_spread`] times a lane's for a loop without one.

use crate::analysis::cfg::Cfg;
use crate::analysis::loops::{LoopId, Loops};
use crate::llvm::LLVMOpcode::*;
use crate::llvm::Value;

/// Trips per entry of a loop whose bound is not a constant.
pub const UNKNOWN_TRIPS: f64 = 8.0;

/// The trips assumed for one entry into a loop.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Trips {
    /// Trips of one lane (the scalar loop).
    pub scalar: f64,
    /// Trips of the clone's loop.
    pub vector: f64,
    /// The constant bound, if the induction variable gives one.
    pub bound: Option<f64>,
}

/// How many more trips the slowest of `lanes` lanes runs than one lane
/// does on average, for trip counts spread evenly up to some bound: the
/// expected maximum of `lanes` draws over the mean, `2 lanes / (lanes + 1)`.
pub fn spread(lanes: f64) -> f64 {
    2.0 * lanes / (lanes + 1.0)
}

/// The same for trip counts without a bound, spread like waiting times
/// (geometrically): the expected maximum of `lanes` draws over the mean is
/// the harmonic number `1 + 1/2 + ... + 1/lanes` (2.08 for 4 lanes, 2.72
/// for 8, 3.38 for 16).
pub fn unbounded_spread(lanes: f64) -> f64 {
    (1..=lanes.max(1.0) as u32).map(|k| 1.0 / k as f64).sum()
}

/// The trips assumed for loop `l` (`divergent`: its lanes may leave at
/// different trips) in a clone of `lanes` lanes.
pub fn trips(cfg: &Cfg, loops: &Loops, l: LoopId, divergent: bool, lanes: f64) -> Trips {
    // The blocks that leave the loop: its exits' predecessors inside it
    // (not a walk over the function's blocks, which would make many loops
    // quadratic).
    let mut exiting = Vec::new();
    for e in &loops.loops[l.0].exits {
        for p in &cfg.preds[e] {
            if loops.contains(l, *p) && !exiting.contains(p) {
                exiting.push(*p);
            }
        }
    }
    let counted = exiting.iter().find_map(|b| {
        let term = b.terminator()?;
        if term.opcode() != LLVMBr || !term.is_conditional() {
            return None;
        }
        bound_of(loops, l, term.operand(0))
    });
    let scalar = match counted {
        Some(n) if exiting.len() == 1 => n,
        Some(n) => (n / 2.0).max(1.0),
        None => UNKNOWN_TRIPS,
    };
    let vector = match counted {
        _ if !divergent => scalar,
        Some(n) => (scalar * spread(lanes)).min(n.max(scalar)),
        None => scalar * unbounded_spread(lanes),
    };
    Trips { scalar, vector, bound: counted }
}

/// The trips until `cond`, an integer compare of an induction variable of
/// loop `l` (or its next value) with a constant, changes.
fn bound_of(loops: &Loops, l: LoopId, cond: Value) -> Option<f64> {
    if cond.opcode() != LLVMICmp {
        return None;
    }
    let (a, b) = (cond.operand(0), cond.operand(1));
    let (var, limit) = if b.is_constant() { (a, b) } else { (b, a) };
    let limit = signed(limit)?;
    let (start, step) = induction(loops, l, var)?;
    if step == 0 {
        return None;
    }
    let trips = ((limit as f64 - start as f64) / step as f64).abs().round();
    (trips.is_finite() && trips >= 1.0).then_some(trips.min(1e6))
}

/// `(start, step)` of `v` if it is a header phi of `l` starting at a
/// constant and stepped by a constant, or that step's result.
fn induction<'ctx>(loops: &Loops<'ctx>, l: LoopId, v: Value<'ctx>) -> Option<(i64, i64)> {
    let header = loops.loops[l.0].header;
    let phi_of = |p: Value<'ctx>| -> Option<(i64, Value<'ctx>)> {
        if p.opcode() != LLVMPHI || p.parent_block() != header {
            return None;
        }
        let incoming = p.incoming();
        let start = incoming.iter().find(|(_, from)| !loops.contains(l, *from))?.0;
        let next = incoming.iter().find(|(_, from)| loops.contains(l, *from))?.0;
        Some((signed(start)?, next))
    };
    let step_of = |next: Value<'ctx>, p: Value<'ctx>| -> Option<i64> {
        if !next.is_instruction() || !matches!(next.opcode(), LLVMAdd | LLVMSub) || next.operand(0) != p {
            return None;
        }
        let c = signed(next.operand(1))?;
        Some(if next.opcode() == LLVMSub { c.wrapping_neg() } else { c })
    };
    if let Some((start, next)) = phi_of(v) {
        return Some((start, step_of(next, v)?));
    }
    if v.is_instruction() && matches!(v.opcode(), LLVMAdd | LLVMSub) {
        let p = v.operand(0);
        let (start, next) = phi_of(p)?;
        if next == v {
            // The next value reaches the limit after as many trips as the
            // phi takes to reach it and leave.
            return Some((start, step_of(v, p)?));
        }
    }
    None
}

/// A constant integer's value, sign-extended.
fn signed(v: Value) -> Option<i64> {
    let z = v.const_int_value()?;
    let w = v.ty().int_width();
    Some(if (1..64).contains(&w) { ((z << (64 - w)) as i64) >> (64 - w) } else { z as i64 })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::dominance::Dominators;
    use crate::llvm::{parse_ir, Module};
    // Links libLLVM into the test binary.
    use batchify_llvm_link as _;

    /// A loop from 0 to 40 by 2, with a second exit when `exit2` is true.
    fn ir(exit2: bool) -> String {
        let early = if exit2 {
            "  %hit = icmp eq i32 %i, %x\n  br i1 %hit, label %out, label %latch\nlatch:\n"
        } else {
            "  br label %latch\nlatch:\n"
        };
        format!(
            "define i32 @f(i32 %x) {{\nentry:\n  br label %head\nhead:\n  %i = phi i32 [ 0, %entry ], [ %n, %latch ]\n\
             {early}  %n = add i32 %i, 2\n  %c = icmp slt i32 %n, 40\n  br i1 %c, label %head, label %out\nout:\n  \
             ret i32 %i\n}}\n"
        )
    }

    fn trips_of(ir: &str, divergent: bool, lanes: f64) -> Trips {
        let ctx = inkwell::context::Context::create();
        let m = parse_ir(&ctx, ir, "t").unwrap();
        let f = Module::from_inkwell(&m).function("f").unwrap();
        let cfg = Cfg::new(f);
        let loops = Loops::new(&cfg, &Dominators::new(&cfg)).unwrap();
        trips(&cfg, &loops, LoopId(0), divergent, lanes)
    }

    #[test]
    fn a_counted_loop_runs_its_bound() {
        let t = trips_of(&ir(false), false, 8.0);
        // `%n` = 2, 4, ..., 40: the compare of the next value leaves after 20 trips.
        assert_eq!(t.bound, Some(20.0));
        assert_eq!((t.scalar, t.vector), (20.0, 20.0));
    }

    #[test]
    fn an_early_exit_halves_a_lane_s_trips_and_the_slowest_lane_runs_more() {
        let t = trips_of(&ir(true), true, 8.0);
        assert_eq!(t.bound, Some(20.0));
        assert_eq!(t.scalar, 10.0);
        assert!((t.vector - (10.0 * spread(8.0)).min(20.0)).abs() < 1e-9);
        assert!(t.vector > t.scalar && t.vector <= 20.0);
    }

    #[test]
    fn spreads_grow_with_the_lanes() {
        assert!(spread(4.0) < spread(16.0) && spread(16.0) < 2.0);
        assert!((unbounded_spread(4.0) - (1.0 + 0.5 + 1.0 / 3.0 + 0.25)).abs() < 1e-12);
        assert!(unbounded_spread(16.0) > spread(16.0));
    }
}
