//! The emitter's shared state: the clone being built, the value map, the
//! current execution mask, the mask and phi slots, the stack of levels being
//! emitted ([`Frame`]) and the record of doomed lanes ([`DeferredNoreturn`]). The rules
//! that change it live in [`super::widen`] (instructions),
//! [`super::control`] (blocks, masks, loops) and [`super::noreturn`]
//! (deferred `noreturn` calls); this module imports none of them.

use crate::analysis::cfg::Cfg;
use crate::analysis::divergence::ControlPlan;
use crate::analysis::loops::{LoopId, Loops};
use crate::analysis::private::PrivateMemory;
use crate::analysis::shape::Shapes;
use crate::analysis::uniformity::Uniformity;
use crate::llvm::{Block, Builder, Module, Type, Value};
use crate::spec::CloneSpec;
use std::collections::HashMap;

/// What the widener did, for the report.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WidenStats {
    /// Instructions given a vector form.
    pub vectorized: usize,
    /// Instructions kept scalar because they are uniform.
    pub uniform: usize,
    /// Instructions run once per lane.
    pub serialized: usize,
    /// Divergent loops (run while any lane is active).
    pub divergent_loops: usize,
    /// Linearized levels (function body or loop bodies with divergent branches).
    pub linearized_levels: usize,
    /// Uniform branches inside linearized levels that kept real control flow.
    pub uniform_regions: usize,
    /// One line per serialized instruction kind, for `--report`.
    pub serialized_what: Vec<String>,
    /// One line per varying load or store: how it is made (vector access,
    /// wide access, gather or scatter and why), for `--report`.
    pub memory_what: Vec<String>,
    /// Calls that became calls of a callee's clone (one line per callee and clone).
    pub batched_calls: Vec<String>,
    /// Calls of module functions that stay per lane, with the reason.
    pub per_lane_calls: Vec<String>,
    /// One line per vector math library function called (`--veclib`), with
    /// its error bound, for `--report`.
    pub veclib_calls: Vec<String>,
    /// The largest error bound (in ulp) of the vector math library
    /// functions the clone calls; `None` if it calls none (the clone is
    /// then bit-exact).
    pub veclib_max_ulps: Option<u32>,
    /// The cost stage's estimate for each divergent loop (`crate::cost`),
    /// for `--report`.
    pub cost_notes: Vec<String>,
    /// Divergent loops the cost stage found latency-bound
    /// ([`crate::cost::LoopEstimate::latency_bound`]).
    pub latency_bound_loops: usize,
}

/// A rule that builds the vector form of one varying instruction
/// (`recipes.rs` names one for each of the plan's [`crate::plan::Widen`]).
pub(crate) type Rule<'ctx> = for<'a> fn(&mut Widener<'a, 'ctx>, Value<'ctx>) -> Option<Value<'ctx>>;

/// The analyses the widener reads.
pub struct Analyses<'a, 'ctx> {
    /// CFG of the prepared scalar function.
    pub cfg: &'a Cfg<'ctx>,
    /// Its loops.
    pub loops: &'a Loops<'ctx>,
    /// Value uniformity.
    pub uniformity: &'a Uniformity<'ctx>,
    /// Control plan.
    pub plan: &'a ControlPlan<'ctx>,
    /// Strides of varying integers and pointers.
    pub shapes: &'a Shapes<'ctx>,
    /// Layout of private memory (allocas).
    pub private: &'a PrivateMemory<'ctx>,
    /// Each instruction's recipe.
    pub recipes: &'a crate::plan::Plan<'ctx>,
}

/// The emitter: what every rule reads (the module, the spec, the analyses,
/// the builders, the clone), and the state of each group of rules in a
/// part of its own: [`Values`] (the instruction rules), [`Flow`] (the
/// control rules) and [`DeferredNoreturn`] (the deferred `noreturn` calls).
pub(crate) struct Widener<'a, 'ctx> {
    pub(crate) module: Module<'ctx>,
    pub(crate) spec: &'a CloneSpec,
    pub(crate) n: u32,
    pub(crate) analyses: &'a Analyses<'a, 'ctx>,
    /// The vector math library the clone may call.
    pub(crate) veclib: crate::options::VecLib,
    /// Clones for automatic differentiation (`Options::for_autodiff`).
    pub(crate) for_autodiff: bool,
    /// Count trips and active lanes of divergent loops
    /// (`Options::instrument_lanes`, [`super::instrument`]).
    pub(crate) instrument_lanes: bool,
    /// Lanes that left a divergent loop hold their loop-carried values
    /// (`Options::hold_finished_lanes`, implied by `for_autodiff`).
    pub(crate) hold_finished_lanes: bool,
    /// Main builder.
    pub(crate) b: Builder<'ctx>,
    /// Builder for out-of-line insertions (splats, slots).
    pub(crate) aux: Builder<'ctx>,
    pub(crate) stats: WidenStats,
    pub(crate) function_name: String,
    pub(crate) clone: Value<'ctx>,
    /// The clone's first block (allocas, parameter set-up).
    pub(crate) entry: Option<Block<'ctx>>,
    /// The clone's value of each scalar value.
    pub(crate) values: Values<'ctx>,
    /// Masks, slots and the levels being emitted.
    pub(crate) flow: Flow<'ctx>,
    /// Lanes that reached a deferred `noreturn` call (see `noreturn`).
    pub(crate) deferred: DeferredNoreturn<'ctx>,
    /// The run's callee clones (see `callees`).
    pub(crate) callees: &'a mut crate::callee_clones::CalleeClones<'ctx>,
}

/// The clone's value of each scalar value: uniform values map to a scalar
/// copy, varying ones to their vector or lane-array form.
#[derive(Default)]
pub(crate) struct Values<'ctx> {
    /// Scalar value to clone value.
    pub(crate) vmap: HashMap<Value<'ctx>, Value<'ctx>>,
    /// Uniform value to its splat, made once.
    pub(crate) splats: HashMap<Value<'ctx>, Value<'ctx>>,
    /// Linear parameters with a constant step: the scalar parameter to the
    /// clone's (lane 0's) parameter and the step (units, or bytes for
    /// pointers), for [`super::lane_scalar`].
    pub(crate) linear_params: HashMap<Value<'ctx>, (Value<'ctx>, i64)>,
    /// Divisor vector (`<N x i32>`, set up in the entry block) to its
    /// reciprocal in `double`, made once in the entry block, for
    /// [`super::division`].
    pub(crate) reciprocals: HashMap<Value<'ctx>, Value<'ctx>>,
    /// Scalar phi to its incoming value per predecessor, made once for phis
    /// with many predecessors ([`Widener::incoming_from`]).
    pub(crate) incoming: HashMap<Value<'ctx>, HashMap<Block<'ctx>, Value<'ctx>>>,
    /// Interleave group leader load to the group's wide load
    /// ([`super::interleave`]).
    pub(crate) interleaved: HashMap<Value<'ctx>, Value<'ctx>>,
    /// Tape key to the slots of the lanes' shared buffer ([`super::tape`]).
    pub(crate) tapes: HashMap<Value<'ctx>, TapeSlots<'ctx>>,
}

/// The two slots of one tape's shared buffer ([`super::tape`]).
#[derive(Debug, Clone, Copy)]
pub(crate) struct TapeSlots<'ctx> {
    /// The shared buffer's address (`null` before the first growth).
    pub(crate) ptr: Value<'ctx>,
    /// Its capacity in bytes per lane (`i64`).
    pub(crate) cap: Value<'ctx>,
}

/// The control rules' state: the current execution mask and the slots
/// that carry masks and phi values along edges.
pub(crate) struct Flow<'ctx> {
    /// Execution mask of the block being emitted (`<N x i1>`).
    pub(crate) mask: Value<'ctx>,
    /// Whether every lane is known active (no masking needed).
    pub(crate) full: bool,
    /// Whether some lane is known active (`full`, or the header of a
    /// divergent loop, which runs only while a lane is in the loop): then
    /// uniform loads, stores and divisions need no `any(mask)` guard.
    pub(crate) nonempty: bool,
    /// Stack slot holding each scalar block's incoming mask.
    pub(crate) mask_slots: HashMap<Block<'ctx>, Value<'ctx>>,
    /// Stack slot holding each scalar phi's incoming value.
    pub(crate) phi_slots: HashMap<Value<'ctx>, Value<'ctx>>,
    /// Stack slot for the return value of a linearized function body.
    pub(crate) ret_slot: Option<Value<'ctx>>,
    /// Emission frames of the levels being emitted (see `control`).
    pub(crate) frames: Vec<Frame<'ctx>>,
    /// Live-outs of divergent loops held in one slot per header phi
    /// instead of a blend per exit edge (see `control::held_live_outs`).
    pub(crate) held: HashMap<Value<'ctx>, HeldLiveOut<'ctx>>,
    /// The held slots of the divergent loops being emitted, one per group.
    pub(crate) held_slots: Vec<HeldLiveOut<'ctx>>,
    /// In clones whose finished lanes hold their values: exit phis of
    /// divergent loops that take a header phi on every edge, mapped to it;
    /// they read its slot after the loop instead of a blend per exit edge
    /// (see `control::header_live_outs`).
    pub(crate) from_header: HashMap<Value<'ctx>, Value<'ctx>>,
    /// In `--for-autodiff` clones, the divergent loops being emitted whose
    /// finished lanes hold with the trip's mask (one back edge; see
    /// `control::loops`): header block to the mask of the lanes that began
    /// the current trip.
    pub(crate) trip_masks: HashMap<Block<'ctx>, Value<'ctx>>,
    /// Header phis of those loops that exit phis read after the loop
    /// (`from_header`): each lane's value at the start of the last trip it
    /// began, as a slot and the value the slot held when this trip began.
    pub(crate) exit_values: HashMap<Value<'ctx>, ExitValue<'ctx>>,
}

/// A header phi's value at the start of each lane's last trip, kept beside
/// the phi where finished lanes hold with the trip's mask.
#[derive(Clone, Copy)]
pub(crate) struct ExitValue<'ctx> {
    /// The slot, written at the top of every trip.
    pub(crate) slot: Value<'ctx>,
    /// The slot's value before this trip's write (the loop phi it becomes).
    pub(crate) before_trip: Value<'ctx>,
}

/// An exit phi of a divergent loop whose value is held: every lane that
/// leaves through it reads the slot after the loop.
#[derive(Clone, Copy)]
pub(crate) struct HeldLiveOut<'ctx> {
    /// The loop's header block.
    pub(crate) header: Block<'ctx>,
    /// The loop header phi whose value the lanes take on the held edges.
    pub(crate) header_phi: Value<'ctx>,
    /// The slot: each lane's header phi value in the last iteration it ran
    /// (or, for the one mixed exit phi of a group, its other incoming value).
    pub(crate) slot: Value<'ctx>,
}

/// One level being emitted.
pub(crate) struct Frame<'ctx> {
    pub(super) level: Option<LoopId>,
    pub(super) real: bool,
    /// Real levels: the clone block of each block node.
    pub(super) blocks: HashMap<Block<'ctx>, Block<'ctx>>,
    /// Real levels: the block where each child loop node starts.
    pub(super) loop_entry: HashMap<LoopId, Block<'ctx>>,
    /// Loop levels inside a linear parent: where the parent continues.
    pub(super) after: Option<Block<'ctx>>,
    /// Real levels: where control goes when every lane here is doomed by a
    /// deferred `noreturn` call and other lanes may be elsewhere (`None`:
    /// every live lane is here, so the call is made at once).
    pub(super) escape: Option<Block<'ctx>>,
}

/// One deferred call site.
pub(crate) struct DeferredSite<'ctx> {
    /// The scalar call; the lane's call is a copy of it (same callee,
    /// calling convention, attributes and operand bundles).
    pub(super) call: Value<'ctx>,
    pub(super) fn_ty: Type<'ctx>,
    /// One slot per argument, holding each lane's argument (`<N x T>`).
    pub(super) arg_slots: Vec<Value<'ctx>>,
}

/// The clone's record of doomed lanes.
#[derive(Default)]
pub(crate) struct DeferredNoreturn<'ctx> {
    /// `<N x i1>`: lanes that reached a deferred call.
    pub(super) doomed_slot: Option<Value<'ctx>>,
    /// `<N x i32>`: the call site each doomed lane reached.
    pub(super) site_slot: Option<Value<'ctx>>,
    pub(super) sites: Vec<DeferredSite<'ctx>>,
}
