//! Stage 4, analyses of the prepared scalar function. Each module computes
//! one immutable result from the IR; after the IR changes, recompute. The
//! analyses read the IR and never change it, and import no later stage.

pub mod callees;
pub mod calls;
pub mod cfg;
pub mod cross_lane;
pub mod divergence;
pub mod dominance;
pub mod loops;
pub mod print;
pub mod private;
pub mod shape;
pub mod tape;
pub mod uniformity;
