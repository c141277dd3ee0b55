//! Stage 7, cost: decides, for a function legality accepted, whether its
//! vector form is worth building or the per-lane loop would be faster.
//! Reads the prepared function, its analyses and its plan; changes nothing.
//!
//! The estimate is for the whole function ([`FunctionEstimate`]): the
//! cycles of one call of the clone against those of the per-lane loop (`N`
//! calls of the scalar function, as many as lanes are active in a masked
//! clone, [`MASKED_ACTIVE`] assumed, each with its arguments taken out of
//! the vectors). Below [`PER_LANE_BELOW`] the function becomes the per-lane
//! loop, with the estimate as the reason. `--report` shows it (`cost:
//! function: ...`), what it is made of (`cost: terms: ...`) and each
//! divergent loop's share ([`LoopEstimate`]).
//!
//! Both sides are sums of work ([`terms`]): each instruction's kind for one
//! lane of the scalar function, its recipe's work ([`crate::plan`]) for the
//! clone, weighted by how often each runs ([`levels`]): a lane reaches the
//! two sides of a branch half as often, while the clone runs every block of
//! a linearized level (skipping heavy blocks no lane is in), loops run the
//! trips of [`trips`] (a constant bound when the induction variable gives
//! one, the slowest lane's count for a divergent loop), and a call of a
//! module function adds its body (its clone's, for a batched call). The
//! cycles per kind ([`terms::CYCLES`]) are calibrated on measurement of
//! random programs (`batchify-judge-cost --replay FILE --tune`,
//! `docs/benchmarks.md`).
//!
//! The table is for x86 (SSE2, AVX, AVX2, AVX-512); clones for other
//! targets (`_LLVM_`, generic) are always vectorized. With
//! `--no-fallback` the estimate is reported but not acted on.
//!
//! One cost rule is per call, in the callee summaries
//! (`analysis::callees`): tree-recursive callees stay per lane.

use crate::analysis::cfg::Cfg;
use crate::analysis::divergence::ControlPlan;
use crate::analysis::loops::Loops;
use crate::analysis::uniformity::Uniformity;
use crate::llvm::LLVMOpcode::*;
use crate::llvm::{Type, Value};
use crate::plan::Plan;
use crate::spec::CloneSpec;

pub mod levels;
pub mod terms;
pub mod trips;

pub use levels::Work;
pub use terms::{Term, Terms};

/// What to build for a legal function.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Choice {
    /// The vector form.
    Vectorize,
    /// The per-lane loop, for the reason given (reported like a fallback).
    PerLane(String),
}

/// Scalar operations a call of a function whose body the module does not
/// have is assumed to run (5 cycles; calibrated with the table [`terms::CYCLES`]).
pub const UNKNOWN_BODY_OPS: f64 = 20.0;
/// Estimated speed-ups below this choose the per-lane loop.
pub const PER_LANE_BELOW: f64 = 1.0;
/// The share of a masked clone's lanes assumed active (the per-lane loop
/// runs only those).
pub const MASKED_ACTIVE: f64 = 0.75;

/// A divergent loop whose loop-carried chain takes at least this share of
/// its vector trip's issue cycles is *latency-bound*: a second lane group
/// in the same trip fills the cycles the chain leaves idle (`crate::refill`
/// then runs two groups per trip). The share is below 1 because the issue
/// cycles are an upper bound (measured on Zen 4, `cargo xtask bench-map`:
/// Mandelbrot, chain 96 against 31 cycles, and ray marching, 95 against
/// 113, gain 20-40% from a second group; Collatz, 5 against 8.6, loses
/// 25%; Newton, 19 against 29.5, and binary search, 11 against 25, are
/// within 5%).
pub const LATENCY_BOUND_SHARE: f64 = 0.75;

/// The estimate for one divergent loop (one entry into it).
#[derive(Debug, Clone, PartialEq)]
pub struct LoopEstimate {
    /// The loop's header block.
    pub header: String,
    /// Trips of one lane per entry.
    pub scalar_trips: f64,
    /// Trips of the clone per entry (its slowest lane's).
    pub vector_trips: f64,
    /// Latency of the loop-carried dependence chain of one trip.
    pub chain: f64,
    /// Cycles of one scalar trip (inner loops included).
    pub scalar_cycles: f64,
    /// Cycles of one vector trip (inner loops included).
    pub vector_cycles: f64,
    /// Estimated speed-up of the loop in the clone over `N` lanes running it.
    pub speedup: f64,
}

impl LoopEstimate {
    /// Whether the loop is latency-bound ([`LATENCY_BOUND_SHARE`]).
    #[must_use]
    pub fn latency_bound(&self) -> bool {
        self.chain >= LATENCY_BOUND_SHARE * self.vector_cycles
    }

    /// One `--report` line.
    pub fn line(&self) -> String {
        format!(
            "divergent loop {}: est. {:.2}x over scalar calls (trip: scalar {:.1} cycles, chain {:.0}, vector {:.1} \
             cycles; trips: {:.1} per lane, {:.1} in the clone)",
            self.header,
            self.speedup,
            self.scalar_cycles,
            self.chain,
            self.vector_cycles,
            self.scalar_trips,
            self.vector_trips
        )
    }
}

/// The estimate for the whole function: one call of the clone against the
/// per-lane loop (`N` calls of the scalar function, or as many as lanes are
/// active).
#[derive(Debug, Clone, PartialEq)]
pub struct FunctionEstimate {
    /// Cycles of one call of the scalar function.
    pub scalar_cycles: f64,
    /// Cycles of the per-lane loop.
    pub per_lane_cycles: f64,
    /// Cycles of one call of the vector form.
    pub vector_cycles: f64,
    /// `per_lane_cycles / vector_cycles`.
    pub speedup: f64,
    /// The per-lane loop's work.
    pub per_lane: Terms,
    /// The vector form's work.
    pub vector: Terms,
    /// The divergent loops' estimates.
    pub loops: Vec<LoopEstimate>,
    /// Functions the vector form calls once per lane.
    pub per_lane_calls: PerLaneCalls,
}

impl FunctionEstimate {
    /// The `--report` lines: the function's, then each divergent loop's.
    pub fn lines(&self) -> Vec<String> {
        let mut out = vec![self.line(), self.terms_line()];
        out.extend(self.loops.iter().map(LoopEstimate::line));
        out
    }

    /// What the estimate is made of: the per-lane loop's and the vector
    /// form's terms ([`Term`]).
    pub fn terms_line(&self) -> String {
        format!("terms: per-lane loop [{}]; vector form [{}]", self.per_lane.list(), self.vector.list())
    }

    /// The function's line.
    pub fn line(&self) -> String {
        format!(
            "function: est. {:.2}x over scalar calls (per call: vector form {:.1} cycles, per-lane loop {:.1} cycles, \
             scalar function {:.1} cycles)",
            self.speedup, self.vector_cycles, self.per_lane_cycles, self.scalar_cycles
        )
    }

    /// What would make the vector form pay, from its per-lane calls (empty
    /// when it has none).
    pub fn cure(&self) -> String {
        let quoted = |v: &[String]| v.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", ");
        let PerLaneCalls { math, errno_math, other } = &self.per_lane_calls;
        let mut out = String::new();
        if !math.is_empty() {
            out += &format!(
                "; {} run once per lane (exact): `--veclib libmvec` (plugin: `veclib=libmvec`) calls glibc's vector \
                 versions instead (at most 4 ulp from the exact result)",
                quoted(math)
            );
        }
        if !errno_math.is_empty() {
            out += &format!(
                "; {} run once per lane: they may set `errno` (clang's default `-fmath-errno`); with \
                 `-fno-math-errno` and `--veclib libmvec` (plugin: `veclib=libmvec`) glibc's vector versions are \
                 called instead (at most 4 ulp from the exact result)",
                quoted(errno_math)
            );
        }
        if !other.is_empty() {
            out += &format!(
                "; {} run once per lane: a `declare simd` body in this module (or variants its declaration \
                 promises) makes them vector calls",
                quoted(other)
            );
        }
        out
    }
}

/// The functions a vector trip calls once per lane, by what would cure it.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PerLaneCalls {
    /// Math functions libmvec has (`--veclib libmvec` would call them).
    pub math: Vec<String>,
    /// The same, but the call may set `errno`, so no vector math replaces it.
    pub errno_math: Vec<String>,
    /// Every other function.
    pub other: Vec<String>,
}

/// What the cost stage reads.
pub struct Inputs<'a, 'ctx> {
    /// CFG of the prepared function.
    pub cfg: &'a Cfg<'ctx>,
    /// Its loops.
    pub loops: &'a Loops<'ctx>,
    /// Value uniformity.
    pub uniformity: &'a Uniformity<'ctx>,
    /// Control plan (which levels are linearized).
    pub plan: &'a ControlPlan<'ctx>,
    /// Each instruction's recipe: the form emission gives it.
    pub recipes: &'a Plan<'ctx>,
    /// The clone's width and target.
    pub spec: &'a CloneSpec,
}

/// The choice for the prepared function the inputs describe, and the
/// estimate behind it (none for targets without a table). With `act`
/// false (no fallback allowed, or the cost model off) the choice is always
/// [`Choice::Vectorize`].
pub fn decide(inputs: &Inputs, act: bool) -> (Choice, Option<FunctionEstimate>) {
    let Some(bits) = inputs.spec.isa.vector_bits() else { return (Choice::Vectorize, None) };
    let e = estimate(inputs, bits);
    if act && e.speedup < PER_LANE_BELOW {
        let why = format!(
            "cost model: the per-lane loop is faster: {} (per-lane below {PER_LANE_BELOW}x){}{}",
            e.line(),
            e.loops.iter().map(|l| format!("; {}", l.line())).collect::<String>(),
            e.cure()
        );
        return (Choice::PerLane(why), Some(e));
    }
    (Choice::Vectorize, Some(e))
}

/// The whole function's estimate with `bits`-bit vector registers.
pub fn estimate(inputs: &Inputs, bits: u32) -> FunctionEstimate {
    let mut walk = levels::Walk::new(inputs, bits);
    let body = walk.level(None);
    let n = inputs.spec.width as f64;
    let active = if inputs.spec.mask.is_some() { n * MASKED_ACTIVE } else { n };
    // Each lane: its arguments taken out of the vectors, the call, its
    // result put in; each lane of a masked clone: its mask bit tested.
    let mut lane = body.scalar;
    lane.add(Term::LaneArgument, inputs.spec.params.len() as f64 + 1.0);
    let mut per_lane = lane.scaled(active);
    if inputs.spec.mask.is_some() {
        per_lane.add(Term::LaneArgument, n);
    }
    let mut vector = body.vector;
    // The clone's own entry: its arguments split, its mask set up.
    vector.add(Term::MaskOp, 1.0);
    let (p, v) = (per_lane.cycles(), vector.cycles());
    FunctionEstimate {
        scalar_cycles: lane.cycles(),
        per_lane_cycles: p,
        vector_cycles: v,
        speedup: p / v.max(1e-9),
        per_lane,
        vector,
        loops: walk.loops,
        per_lane_calls: walk.per_lane_calls,
    }
}

/// Files a per-lane call under what would cure it.
pub(crate) fn note_per_lane_call(calls: &mut PerLaneCalls, i: Value) {
    use crate::analysis::calls::{is_vecmath_name, vecmath_call};
    let name = i.called_value().name();
    let list = if vecmath_call(i).is_some() {
        &mut calls.math
    } else if is_vecmath_name(&name) {
        &mut calls.errno_math
    } else {
        &mut calls.other
    };
    if !name.is_empty() && !list.contains(&name) {
        list.push(name);
    }
}

/// Latency (cycles) of an instruction on the loop-carried chain.
pub(crate) fn latency(i: Value) -> f64 {
    match i.opcode() {
        LLVMFAdd | LLVMFSub | LLVMFMul | LLVMFNeg => 4.0,
        LLVMFDiv | LLVMFRem => 11.0,
        LLVMMul => 3.0,
        LLVMUDiv | LLVMSDiv | LLVMURem | LLVMSRem => {
            if scalar_bits(elem_of(i.ty())) > 32 {
                40.0
            } else {
                20.0
            }
        }
        LLVMLoad => 5.0,
        LLVMSIToFP | LLVMUIToFP | LLVMFPToSI | LLVMFPToUI | LLVMFPExt | LLVMFPTrunc => 4.0,
        LLVMCall => {
            let name = i.called_value().name();
            if name.starts_with("llvm.sqrt") {
                14.0
            } else if name.starts_with("llvm.fmuladd") || name.starts_with("llvm.fma") {
                4.0
            } else {
                // Other calls count as [`CALL_CYCLES`] apart from the chain.
                2.0
            }
        }
        LLVMPHI | LLVMBr | LLVMSwitch => 0.0,
        _ => 1.0,
    }
}

pub(crate) fn elem_of(t: Type) -> Type {
    if t.is_vector() {
        t.element()
    } else {
        t
    }
}

/// Bits of a scalar type (`i1` counts as a byte).
pub(crate) fn scalar_bits(t: Type) -> u32 {
    crate::abi::scalar_bits(t).max(8)
}

#[cfg(test)]
mod tests {
    use super::terms::vector_terms;
    use super::*;
    use crate::llvm::{parse_ir, Module};
    use crate::plan::{Access, MemoryRecipe, Recipe, Widen};
    // Links libLLVM into the test binary.
    use batchify_llvm_link as _;

    const IR: &str = "define i32 @f(ptr %p, i32 %x) {\n  %v = load i32, ptr %p\n  %q = udiv i64 0, 0\n  \
                      %c = call i32 @g(i32 %x)\n  ret i32 %v\n}\ndeclare i32 @g(i32)";

    /// `f`'s instructions.
    fn with_f(check: impl FnOnce(&[Value])) {
        let ctx = inkwell::context::Context::create();
        let m = parse_ir(&ctx, IR, "t").unwrap();
        let f = Module::from_inkwell(&m).function("f").unwrap();
        check(&f.blocks()[0].instructions());
    }

    fn load(access: Access, checked: bool) -> Recipe {
        Recipe::Memory { load: true, recipe: MemoryRecipe { access, checked, lanewise: false } }
    }

    /// The terms of instruction `i` under recipe `r` at 8 lanes of one register each.
    fn terms(r: Recipe, i: Value) -> Terms {
        vector_terms(&r, i, 8.0, &|_| 1.0)
    }

    #[test]
    fn memory_terms_follow_the_access_form() {
        with_f(|i| {
            let access = |r: Recipe| terms(r, i[0]).0[Term::VectorAccess as usize];
            assert_eq!(access(load(Access::Contiguous { reverse: false }, false)), 2.0);
            assert_eq!(access(load(Access::Contiguous { reverse: true }, false)), 3.0);
            assert_eq!(access(load(Access::Strided { m: 2 }, false)), 3.0);
            let table =
                |registers| Access::TablePermute { intrinsic: "llvm.x86.avx2.permd", sources: 1, registers, width: 8 };
            assert_eq!(access(load(table(1), false)), 2.0);
            // Four registers: four permutes and the table, three selects.
            let four = terms(load(table(4), false), i[0]);
            assert_eq!((four.0[Term::VectorAccess as usize], four.0[Term::VectorOp as usize]), (8.0, 6.0));
            let gather = terms(load(Access::Gather("no stride"), false), i[0]);
            assert_eq!(gather, Terms::of(Term::GatherLane, 8.0));
            // A run-time stride check costs mask work on every form.
            let checked = terms(load(Access::Contiguous { reverse: false }, true), i[0]);
            assert_eq!(checked.0[Term::MaskOp as usize], 4.0);
            // A gather costs more than a contiguous load.
            assert!(gather.cycles() > terms(load(Access::Contiguous { reverse: false }, false), i[0]).cycles());
        });
    }

    #[test]
    fn per_lane_calls_and_divisions_count_per_lane() {
        with_f(|i| {
            assert_eq!(terms(Recipe::PerLane(None), i[2]), Terms::of(Term::LaneCall, 8.0));
            let batched = Recipe::Call(crate::plan::BatchedCall {
                spec: crate::spec::CloneSpec::all_varying("g", 1, 8, crate::vfabi::Isa::Avx2, false),
                target: crate::plan::CallTarget::Helper,
            });
            assert_eq!(terms(batched, i[2]), Terms::of(Term::VectorCall, 1.0));
            // x86 has no vector integer division.
            assert_eq!(terms(Recipe::Widened(Widen::GuardedDivision), i[1]), Terms::of(Term::LaneDivision, 8.0));
            assert_eq!(terms(Recipe::Uniform, i[1]), Terms::of(Term::ScalarDivision, 1.0));
            // 8 per-lane calls cost more than one vector call.
            assert!(Terms::of(Term::LaneCall, 8.0).cycles() > 4.0 * Terms::of(Term::VectorCall, 1.0).cycles());
        });
    }

    #[test]
    fn a_loop_is_latency_bound_when_its_chain_takes_three_quarters_of_a_trip() {
        let est = |chain: f64, vector_cycles: f64| LoopEstimate {
            header: "%loop".into(),
            scalar_trips: 8.0,
            vector_trips: 16.0,
            chain,
            scalar_cycles: 10.0,
            vector_cycles,
            speedup: 2.0,
        };
        assert!(est(96.0, 31.2).latency_bound());
        assert!(est(95.0, 113.4).latency_bound());
        assert!(est(75.0, 100.0).latency_bound());
        assert!(!est(74.0, 100.0).latency_bound());
        assert!(!est(5.0, 8.6).latency_bound());
    }
}
