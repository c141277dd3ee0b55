//! Analyses of the (prepared) scalar function. Each module computes one
//! immutable result from the IR; after the IR changes, recompute.

pub mod cfg;
pub mod divergence;
pub mod dominance;
pub mod loops;
pub mod print;
pub mod uniformity;
