//! Stage 6, cost: decides, for a function legality accepted, whether its
//! vector form is worth building or the per-lane loop would be as fast.
//! Reads the prepared function and its analyses; changes nothing.
//!
//! Today every legal function is vectorized. `cargo xtask bench-gcc`
//! (`docs/benchmarks.md`) finds one kernel clearly slower than the per-lane
//! loop (`lsearch`, a long search over a uniform table, 0.46x), but a
//! static rule that catches it would also catch `bucket`, a search loop of
//! the same shape that gains 9.6x: the difference is the trip counts'
//! spread between lanes, which the IR does not show. This is where such
//! rules go (per function now; per region when the emitter can mix vector
//! and per-lane regions), each with the measurement behind it. The one
//! cost rule so far is per call: tree-recursive callees stay per lane
//! (`analysis::callees`).

use crate::analysis::uniformity::Uniformity;
use crate::llvm::Value;

/// What to build for a legal function.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Plan {
    /// The vector form.
    Vectorize,
    /// The per-lane loop, for the reason given (reported like a fallback).
    PerLane(String),
}

/// The plan for the prepared function `f` with its uniformity.
pub fn decide(_f: Value, _uniformity: &Uniformity) -> Plan {
    Plan::Vectorize
}
