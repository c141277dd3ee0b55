//! Stage 8, emit: builds the clone's body from the prepared scalar function
//! and its analyses, under execution masks. Touches only the clone's body;
//! reads the analyses and the ABI.
//!
//! * [`state`]: what the rules share (the value map, masks, slots, levels);
//! * [`widen`]: per-instruction emission (uniform copies, per-lane
//!   execution), choosing a vector recipe where one applies;
//! * [`recipes`]: one small rule per kind of varying instruction (lane-wise
//!   arithmetic, guarded division, casts, gathers and scatters, intrinsics);
//! * [`memory`]: varying loads and stores by the address's shape
//!   (contiguous, strided, uniform, or gather/scatter);
//! * [`inactive`]: 1.0 in inactive lanes for restricted-domain operations
//!   of `--for-autodiff` clones;
//! * [`lane_loop`]: per-lane calls as a loop over the active lanes
//!   through stack slots;
//! * [`lanewise`]: one scalar access per element, for `--for-autodiff`
//!   clones (no masked intrinsics);
//! * [`private`]: the lanes' copies of private memory (allocas) and the
//!   accesses that depend on their interleaved layout;
//! * [`vector_input`]: values that are vectors already (`<k x T>`), held
//!   element-major as `<N·k x T>`;
//! * [`aggregates`]: structs and arrays held as structs of vectors;
//! * [`control`]: blocks, edge masks, linearized levels and divergent loops;
//! * [`noreturn`]: `noreturn` calls deferred to the lowest doomed lane;
//! * [`callees`]: calls of module functions become calls of their clones;
//!   (the run's registry of those clones is [`crate::callee_clones`]);
//! * [`libm`]: exact math as vector code (libm calls, `frem` through
//!   [`fmod`], narrow integer division through [`division`]);
//! * [`veclib`]: calls of a vector math library (`--veclib libmvec`).
//!
//! Everything that cannot be vectorized was rejected by
//! [`crate::legality`] before this stage starts.

pub mod aggregates;
pub mod callees;
pub mod control;
pub mod cross_lane;
pub mod division;
pub mod fmod;
pub mod inactive;
pub mod instrument;
pub mod interleave;
pub mod lane_loop;
pub mod lane_scalar;
pub mod lanewise;
pub mod libm;
pub mod memory;
pub mod noreturn;
pub mod private;
pub mod recipes;
pub mod state;
pub mod tables;
pub mod tape;
pub mod veclib;
pub mod vector_input;
pub mod widen;

use crate::error::Result;
use crate::llvm::{constant, Builder, Module, Type, Value};
use crate::spec::CloneSpec;
pub use state::{Analyses, WidenStats};
use state::{Flow, Values, Widener};
use std::collections::HashMap;

/// Builds the body of `clone` from the prepared scalar function `scalar`.
pub fn emit<'ctx>(
    module: Module<'ctx>,
    scalar: Value<'ctx>,
    clone: Value<'ctx>,
    spec: &CloneSpec,
    analyses: &Analyses<'_, 'ctx>,
    callees: &mut crate::callee_clones::CalleeClones<'ctx>,
    opts: &crate::options::Options,
) -> Result<WidenStats> {
    let ctx = module.context();
    let mut w = Widener {
        module,
        spec,
        n: spec.width,
        analyses,
        veclib: opts.veclib,
        for_autodiff: opts.for_autodiff,
        hold_finished_lanes: opts.for_autodiff || opts.hold_finished_lanes,
        instrument_lanes: opts.instrument_lanes,
        b: Builder::new(ctx),
        aux: Builder::new(ctx),
        stats: WidenStats::default(),
        function_name: spec.scalar_name.clone(),
        clone,
        entry: None,
        values: Values::default(),
        flow: Flow {
            mask: constant::null(Type::int(ctx, 1).vector_of(spec.width)),
            full: true,
            nonempty: true,
            mask_slots: HashMap::new(),
            phi_slots: HashMap::new(),
            ret_slot: None,
            frames: Vec::new(),
            held: HashMap::new(),
            held_slots: Vec::new(),
            from_header: HashMap::new(),
            trip_masks: HashMap::new(),
            exit_values: HashMap::new(),
        },
        deferred: Default::default(),
        callees,
    };
    w.run(scalar)?;
    Ok(w.stats)
}
