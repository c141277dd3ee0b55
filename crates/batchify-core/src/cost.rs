//! Stage 6, cost: decides, for a function legality accepted, whether its
//! vector form is worth building or the per-lane loop would be as fast.
//! Reads the prepared function and its analyses; changes nothing.
//!
//! Today every legal function is vectorized: on the code measured so far
//! (`docs/benchmarks.md`) the vector form is never slower than the per-lane
//! loop, so there is no rule yet that would say otherwise. This is where
//! such rules go (per function now; per region when the emitter can mix
//! vector and per-lane regions), each with the measurement behind it.

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
