//! Analyses of the (prepared) scalar function. Each module computes one
//! immutable result from the IR; after the IR changes, recompute.

pub mod cfg;
pub mod uniformity;
