//! The generator's bounds and probability knobs ([`GenConfig`]) and its
//! presets.

#[cfg(doc)]
use super::BufParam;
use std::ops::RangeInclusive;

/// Bounds and probability knobs of the generator.
#[derive(Debug, Clone, PartialEq)]
pub struct GenConfig {
    /// Maximum nesting of `if`, loops and `switch`.
    pub max_depth: u32,
    /// Maximum number of statements in one block (at least one is made).
    pub max_stmts: u32,
    /// Maximum number of statements in the whole program.
    pub max_total_stmts: u32,
    /// Maximum iteration count of any loop (its constant cap is 1..=this).
    pub max_trip: u32,
    /// Maximum depth of expression trees.
    pub max_expr_depth: u32,
    /// Number of integer parameters (`i32` or `i64`).
    pub int_params: RangeInclusive<u32>,
    /// Number of floating-point parameters (`float` or `double`).
    pub float_params: RangeInclusive<u32>,
    /// Number of extra local variables.
    pub locals: RangeInclusive<u32>,
    /// Probability that a statement is an `if`/`else`.
    pub p_if: f64,
    /// Probability that a statement is a loop.
    pub p_loop: f64,
    /// Probability that a statement is a `switch`.
    pub p_switch: f64,
    /// Probability that a statement is a (usually guarded) early `return`.
    pub p_return: f64,
    /// Probability, inside a loop, that a statement is a guarded `break`.
    pub p_break: f64,
    /// Probability, inside a loop, that a statement is a guarded `continue`.
    pub p_continue: f64,
    /// Probability that a division or float-to-int guard is lowered as a
    /// branch (else as a `select`).
    pub p_branch_guard: f64,
    /// Probability that `&&`/`||` is lowered with short-circuit branches
    /// (else with `and`/`or` on `i1`).
    pub p_short_circuit: f64,
    /// Probability, inside a nested loop, that a `break`/`continue` leaves
    /// an outer loop (a labelled `break`/`continue`).
    pub p_outer_exit: f64,
    /// Probability that a statement is an irreducible cycle (two blocks
    /// that branch to each other, entered at either).
    pub p_irreducible: f64,
    /// Probability that the program has helper functions (small generated
    /// functions of their own, `internal`) that expressions call.
    pub p_helper: f64,
    /// Most helpers of one program (at least one when it has helpers).
    /// Helper `k` may call helpers `0..k`, and itself if recursive
    /// ([`GenConfig::p_recursive`]).
    pub max_helpers: u32,
    /// Probability that a helper has an explicit calling convention
    /// (`fastcc`, `coldcc`, `tailcc`, `preserve_mostcc` or `ccc`, uniformly);
    /// its call sites always carry the same one.
    pub p_cc: f64,
    /// Probability that a call of a helper whose arguments are all scalars
    /// is marked `tail`.
    pub p_tail: f64,
    /// Probability of each attribute that holds for a helper, its
    /// parameters and return value (`memory(..)`, `nounwind`, `willreturn`,
    /// `speculatable`, `noundef`, `nonnull`, `noalias`, `dereferenceable`,
    /// `align`, `readonly`/`writeonly`, `captures(none)`, `range`, ...), and
    /// of the matching attributes at call sites.
    pub p_attrs: f64,
    /// Probability that a helper called by the top-level function takes a
    /// pointer to one of its private arrays: read only, write only, read
    /// and written, or `byval` (the helper writes its own copy). The
    /// top-level function then has arrays (batchify builds a per-lane
    /// fallback for such stack memory today).
    pub p_ptr_helper: f64,
    /// Probability that a helper returns a `{ T, i32 }` struct through an
    /// `sret` pointer (to a private object of the caller) instead of a value.
    pub p_sret: f64,
    /// Probability that a helper returns a `{ T, i32 }` struct as a value
    /// (a first-class aggregate: `insertvalue` at each return, a phi of
    /// them after `mergereturn`, `extractvalue` at the call). 0 by default,
    /// which leaves every seed's program as it was.
    pub p_pair_ret: f64,
    /// Probability that the top-level function gets the attributes that hold
    /// for it (`nounwind`, `willreturn`, `memory(none)` when it has no
    /// stack objects, `noundef` parameters and return).
    pub p_top_attrs: f64,
    /// Give the top-level function a random calling convention (`fastcc`,
    /// `tailcc` or C; see `TOP_CCS`). On by default: the oracle calls the
    /// scalar function with its own convention.
    pub top_level_cc: bool,
    /// Give the top-level function `internal` linkage in half the programs.
    /// On by default: the oracle makes internal functions callable.
    pub top_level_internal: bool,
    /// Probability that the program has private arrays (`alloca [8 x T]`)
    /// read and written at masked indices, uniform (constants, uniform
    /// parameters) and varying, so mem2reg cannot remove them.
    pub p_array: f64,
    /// Print the optional attributes chosen. `false` gives the very same
    /// program without them (only `byval`, `sret`, `dereferenceable` of
    /// buffer parameters and their alignment stay): the fuzzer's attribute
    /// check compares the two.
    pub emit_attrs: bool,
    /// Probability that the top-level function takes pointer parameters to
    /// bounded buffers (1 to [`GenConfig::max_buffers`]; see [`BufParam`]),
    /// loaded and stored with uniform, linear, strided and random indices.
    pub p_buffers: f64,
    /// Most buffer parameters of one program.
    pub max_buffers: u32,
    /// Probability that a scalar parameter of the top-level function is
    /// uniform (one value for all lanes) in the clone the fuzzer asks for.
    pub p_uniform_param: f64,
    /// Probability that an integer parameter of the top-level function is
    /// linear with step 1 or -1 (lane k gets `base + k*step`).
    pub p_linear_param: f64,
    /// Probability, per statement, of a call of the side-effect recorder
    /// `void batchify_record(i64 tag, i64 value)` (see
    /// [`crate::recorder`]); helpers make them too.
    pub p_record: f64,
    /// Probability that a helper is recursive: it takes a depth parameter
    /// (callers pass `x & 3`) and calls itself with `depth - 1` only when
    /// `depth > 0`, so recursion ends for every input.
    pub p_recursive: f64,
    /// Probability that a helper takes a read-only pointer to one of the
    /// top-level function's buffers (varying, uniform or linear there) and
    /// loads from it at constant and data-dependent indices.
    pub p_buf_helper: f64,
    /// Probability that a function has one or two small constant tables
    /// (`internal`/`private` `constant [K x i32]` or `[K x float]` globals,
    /// `K` in [`TABLE_LENS`](super::TABLE_LENS)) that expressions read at
    /// data-dependent indices, forced into range as C code does (`& (K-1)`,
    /// `urem K`, or a read behind a branch on `i < K`), through both GEP
    /// shapes clang emits, sometimes in a loop of their own. Helpers draw
    /// tables at a third of this.
    pub p_tables: f64,
    /// Widest clone the programs are checked at (the fuzzer sets its
    /// `--width`): buffers whose lanes own windows of a shared buffer are
    /// sized so that `lanes` windows never overlap.
    pub lanes: u32,
}

impl Default for GenConfig {
    fn default() -> Self {
        GenConfig {
            max_depth: 3,
            max_stmts: 4,
            max_total_stmts: 24,
            max_trip: 6,
            max_expr_depth: 3,
            int_params: 0..=3,
            float_params: 0..=3,
            locals: 1..=4,
            p_if: 0.22,
            p_loop: 0.12,
            p_switch: 0.06,
            p_return: 0.05,
            p_break: 0.12,
            p_continue: 0.08,
            p_branch_guard: 0.4,
            p_short_circuit: 0.4,
            p_outer_exit: 0.3,
            // Rare: batchify builds a per-lane fallback for irreducible cycles.
            p_irreducible: 0.01,
            p_helper: 0.3,
            max_helpers: 3,
            p_cc: 0.6,
            p_tail: 0.3,
            p_attrs: 0.6,
            // Stack objects make batchify fall back to per-lane calls today.
            p_ptr_helper: 0.12,
            p_sret: 0.08,
            p_pair_ret: 0.0,
            p_top_attrs: 0.3,
            top_level_cc: true,
            top_level_internal: true,
            // Stack memory mem2reg cannot remove: batchify builds a per-lane
            // fallback for it today, checked all the same.
            p_array: 0.15,
            emit_attrs: true,
            p_buffers: 0.4,
            max_buffers: 3,
            p_uniform_param: 0.2,
            p_linear_param: 0.15,
            p_record: 0.04,
            p_recursive: 0.3,
            p_buf_helper: 0.25,
            p_tables: 0.15,
            lanes: 8,
        }
    }
}

impl GenConfig {
    /// Straight-line programs only: no statement nesting, no early returns,
    /// and every guard lowered as a `select`, so the function has a single
    /// basic block after mem2reg (what batchify handled before divergent
    /// control flow). Helper functions are straight-line too, and take no
    /// pointers.
    pub fn straight_line() -> GenConfig {
        GenConfig {
            max_depth: 0,
            max_stmts: 6,
            max_total_stmts: 8,
            p_if: 0.0,
            p_loop: 0.0,
            p_switch: 0.0,
            p_return: 0.0,
            p_break: 0.0,
            p_continue: 0.0,
            p_branch_guard: 0.0,
            p_short_circuit: 0.0,
            p_irreducible: 0.0,
            // Stack objects of the caller: not a single block after mem2reg.
            p_ptr_helper: 0.0,
            p_sret: 0.0,
            p_pair_ret: 0.0,
            p_array: 0.0,
            // The generator's features from before: no buffers, recursion,
            // recorder calls, uniform or linear parameters.
            p_recursive: 0.0,
            p_record: 0.0,
            p_buffers: 0.0,
            p_uniform_param: 0.0,
            p_linear_param: 0.0,
            p_buf_helper: 0.0,
            p_tables: 0.0,
            ..GenConfig::default()
        }
    }
}
