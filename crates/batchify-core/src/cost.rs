//! Stage 7, cost: decides, for a function legality accepted, whether its
//! vector form is worth building or the per-lane loop would be faster.
//! Reads the prepared function and its analyses; changes nothing.
//!
//! The rule is per divergent loop, the place where a clone can lose: the
//! clone runs each trip for all `N` lanes, as many trips as its slowest
//! lane, and adds mask bookkeeping (edge masks, exit masks, blends of
//! live-out values, an any-lane test) to every trip. For each divergent
//! loop the stage estimates the cycles of one trip of the scalar loop and
//! of one trip of the vector loop ([`LoopEstimate`]), and the speed-up of
//! the clone over `N` scalar calls as `N · scalar / (SPREAD · vector)`,
//! `SPREAD` being how many more trips the slowest of `N` lanes runs than
//! the average one. If some divergent loop's estimate is below
//! [`PER_LANE_BELOW`], the function becomes the per-lane loop, with the
//! loop and the numbers as the reason. Each estimate is also in `--report`
//! (`cost:` lines).
//!
//! A trip's cycles are the larger of its issue time (the instructions'
//! weights over the issue rate) and its loop-carried dependence chain (the
//! latencies along the longest path from the header's phis to their values
//! on the back edge). The scalar loop issues about [`SCALAR_IPC`]
//! instructions per cycle; the vector loop, whose masks and blends form
//! dependence chains of their own, about [`VECTOR_IPC`]. Every vector
//! weight follows from the instruction's recipe ([`crate::plan`]), the form
//! emission gives it: registers for a widened value (`<8 x i64>` is two
//! AVX2 registers), a vector access plus one, a reversed one a shuffle
//! more, a wide access of stride `m` its `m` registers and a shuffle, a
//! table permute a permute and the index, a gather or scatter
//! [`GATHER_PER_LANE`] per lane, a run-time stride check 4 more, a
//! per-lane instruction 3 per lane (extract, run, insert), a division wider
//! than 32 bits one scalar division per lane, and a splat per uniform value
//! of the trip that vector code uses. A call that is not an intrinsic adds
//! [`CALL_CYCLES`] to a scalar trip, and to a vector trip once if its
//! recipe is a vector call (a callee clone, a declared variant, vector
//! math) and `N` times if the recipe is per lane. The constants are
//! calibrated on
//! `cargo xtask bench-gcc` (`docs/benchmarks.md`, `docs/internals.md`):
//! `lsearch`, a search loop of one load and two compares per trip over a
//! uniform table, measured 1.7x of scalar calls as an AVX2 clone (0.46x
//! before its masks stayed at full width) and is estimated at 1.5x; at 4
//! lanes (SSE) the same loop is estimated below 1; a loop of per-lane calls
//! is estimated below 1; every kernel whose clone measured faster than
//! scalar calls is estimated at or above 1.
//!
//! The table is for x86 (SSE2, AVX, AVX2, AVX-512); clones for other
//! targets (`_LLVM_`, generic) are always vectorized. With
//! `--no-fallback` the estimate is reported but not acted on.
//!
//! One cost rule is per call, in the callee summaries
//! (`analysis::callees`): tree-recursive callees stay per lane.

use crate::analysis::cfg::Cfg;
use crate::analysis::divergence::ControlPlan;
use crate::analysis::loops::{LoopId, Loops};
use crate::analysis::uniformity::Uniformity;
use crate::llvm::LLVMOpcode::*;
use crate::llvm::{Block, Type, Value};
use crate::plan::{Access, Plan, Recipe, Widen};
use crate::spec::CloneSpec;
use std::collections::{HashMap, HashSet};

/// What to build for a legal function.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Choice {
    /// The vector form.
    Vectorize,
    /// The per-lane loop, for the reason given (reported like a fallback).
    PerLane(String),
}

/// Instructions per cycle of a scalar loop (a 4-wide x86 core).
pub const SCALAR_IPC: f64 = 4.0;
/// Instructions per cycle of a clone's divergent loop (calibrated on AVX2
/// with masks kept at full width across blocks, `finish::masks`: `lsearch`'s
/// vector trip of about 17 instructions measured 1.7x of scalar calls).
pub const VECTOR_IPC: f64 = 2.5;
/// How many more trips the slowest of `N` lanes runs than the average lane
/// (`lsearch`'s keys: 480 against 337 trips for 8 lanes).
pub const SPREAD: f64 = 1.5;
/// Weight of one lane of a gather or scatter.
pub const GATHER_PER_LANE: f64 = 2.0;
/// Cycles of a call that is not an intrinsic (its body unknown), in the
/// scalar loop and per lane in a per-lane call of the clone.
pub const CALL_CYCLES: f64 = 20.0;
/// Estimated speed-ups below this choose the per-lane loop.
pub const PER_LANE_BELOW: f64 = 1.0;

/// The estimate for one divergent loop.
#[derive(Debug, Clone, PartialEq)]
pub struct LoopEstimate {
    /// The loop's header block.
    pub header: String,
    /// Weight (instructions) of one scalar trip.
    pub scalar_weight: f64,
    /// Weight of one vector trip, bookkeeping included.
    pub vector_weight: f64,
    /// Latency of the loop-carried dependence chain of one trip.
    pub chain: f64,
    /// Cycles of one scalar trip.
    pub scalar_cycles: f64,
    /// Cycles of one vector trip.
    pub vector_cycles: f64,
    /// Estimated speed-up of the clone over `N` scalar calls.
    pub speedup: f64,
    /// Functions the vector trip calls once per lane: math functions that
    /// glibc's libmvec has (`exp`, `logf`, ...), the same that may set
    /// `errno` (clang's default `-fmath-errno`), and the others.
    pub per_lane_calls: PerLaneCalls,
}

impl LoopEstimate {
    /// One `--report` line.
    pub fn line(&self) -> String {
        format!(
            "divergent loop {}: est. {:.2}x over scalar calls (trip: scalar {:.1} cycles (weight {:.0}, chain {:.0}), \
             vector {:.1} cycles (weight {:.0}))",
            self.header,
            self.speedup,
            self.scalar_cycles,
            self.scalar_weight,
            self.chain,
            self.vector_cycles,
            self.vector_weight
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
    /// Control plan (which loops are divergent).
    pub plan: &'a ControlPlan<'ctx>,
    /// Each instruction's recipe: the form emission gives it.
    pub recipes: &'a Plan<'ctx>,
    /// The clone's width and target.
    pub spec: &'a CloneSpec,
}

/// The plan for the prepared function the inputs describe, and the
/// estimates behind it (one per divergent loop; none for targets without a
/// table). With `act` false (no fallback allowed, or the cost model off)
/// the plan is always [`Choice::Vectorize`].
pub fn decide(inputs: &Inputs, act: bool) -> (Choice, Vec<LoopEstimate>) {
    let Some(bits) = inputs.spec.isa.vector_bits() else { return (Choice::Vectorize, Vec::new()) };
    let estimates: Vec<LoopEstimate> = (0..inputs.loops.loops.len())
        .map(LoopId)
        .filter(|l| inputs.plan.is_divergent(*l))
        .map(|l| estimate_loop(inputs, l, bits))
        .collect();
    let worst = estimates.iter().filter(|e| e.speedup < PER_LANE_BELOW).min_by(|a, b| a.speedup.total_cmp(&b.speedup));
    match worst {
        Some(e) if act => {
            let why = format!(
                "cost model: the per-lane loop is faster: {} (per-lane below {PER_LANE_BELOW}x){}",
                e.line(),
                e.cure()
            );
            (Choice::PerLane(why), estimates)
        }
        _ => (Choice::Vectorize, estimates),
    }
}

/// The estimate for divergent loop `l` with `bits`-bit vector registers.
fn estimate_loop(inputs: &Inputs, l: LoopId, bits: u32) -> LoopEstimate {
    let lp = &inputs.loops.loops[l.0];
    let n = inputs.spec.width as f64;
    let regs = |t: Type| -> f64 {
        let elem = if t.is_vector() { t.element() } else { t };
        let lanes = if t.is_vector() { t.vector_len() } else { 1 } * inputs.spec.width;
        let eb = scalar_bits(elem);
        ((lanes * eb) as f64 / bits as f64).ceil().max(1.0)
    };
    // The loop's own blocks (inner loops are estimated on their own), in
    // reverse post-order.
    let own: Vec<Block> =
        inputs.cfg.rpo.iter().copied().filter(|b| inputs.loops.innermost.get(b) == Some(&l)).collect();
    let mut ws = 0.0;
    let mut wv = 3.0; // header mask, any-lane test, branch back
    let mut depth: HashMap<Value, f64> = HashMap::new();
    let mut splat: HashSet<Value> = HashSet::new();
    let (mut calls_s, mut calls_v) = (0.0, 0.0);
    let mut per_lane_calls = PerLaneCalls::default();
    for b in &own {
        for i in b.instructions() {
            let op = i.opcode();
            let varying = inputs.uniformity.is_varying(i);
            let (s, v) = match op {
                LLVMPHI => (0.0, if varying && *b != lp.header { regs(i.ty()) } else { 0.0 }),
                LLVMBr | LLVMSwitch => {
                    let divergent = crate::analysis::divergence::branch_condition(i)
                        .is_some_and(|c| inputs.uniformity.is_varying(c));
                    let conditional = i.successors().len() > 1;
                    (
                        1.0,
                        if divergent {
                            3.0
                        } else if conditional {
                            2.0
                        } else {
                            0.0
                        },
                    )
                }
                _ => {
                    let recipe = inputs.recipes.recipe(i);
                    if op == LLVMCall && !is_intrinsic(i) {
                        // The call itself takes as long in both forms: once
                        // per trip, or once per lane per trip.
                        let per_lane = matches!(recipe, Recipe::PerLane(_) | Recipe::Deferred);
                        calls_s += CALL_CYCLES;
                        calls_v += if per_lane { CALL_CYCLES * n } else { CALL_CYCLES };
                        if per_lane {
                            note_per_lane_call(&mut per_lane_calls, i);
                        }
                    }
                    (scalar_weight(i), vector_weight(recipe, i, n, &regs))
                }
            };
            ws += s;
            wv += v;
            // A uniform value of this trip used by varying code is splat
            // once per trip.
            if varying && op != LLVMPHI {
                for o in i.operands() {
                    let in_loop = o.is_instruction() && inputs.loops.contains(l, o.parent_block());
                    if in_loop && !inputs.uniformity.is_varying(o) && splat.insert(o) {
                        wv += 1.0;
                    }
                }
            }
            // The dependence chain within the trip (header phis start it).
            let lat = latency(i);
            let start = if op == LLVMPHI && *b == lp.header {
                0.0
            } else {
                i.operands().iter().filter_map(|o| depth.get(o)).fold(0.0, |a: f64, d| a.max(*d))
            };
            depth.insert(i, start + if op == LLVMPHI { 0.0 } else { lat });
        }
        // Edges out of the loop: exit mask, and a blend per varying phi there.
        for s in &inputs.cfg.succs[b] {
            if inputs.loops.contains(l, *s) {
                continue;
            }
            wv += 1.0;
            for q in s.instructions().into_iter().take_while(|q| q.opcode() == LLVMPHI) {
                if inputs.uniformity.is_varying(q) {
                    // Elements wider than 32 bits need the mask widened too.
                    let widen = if scalar_bits(elem_of(q.ty())) > 32 { 2.0 } else { 1.0 };
                    wv += widen * regs(q.ty());
                }
            }
        }
    }
    let latch_values: Vec<Value> = lp
        .header
        .instructions()
        .into_iter()
        .take_while(|i| i.opcode() == LLVMPHI)
        .flat_map(|p| p.incoming().into_iter().filter(|(_, from)| inputs.loops.contains(l, *from)).map(|(v, _)| v))
        .collect();
    let chain = latch_values.iter().filter_map(|v| depth.get(v)).fold(1.0, |a: f64, d| a.max(*d));
    let scalar_cycles = (ws / SCALAR_IPC).max(chain) + calls_s;
    let vector_cycles = (wv / VECTOR_IPC).max(chain) + calls_v;
    let name = lp.header.name();
    let header = if name.is_empty() { format!("#{} (depth {})", l.0 + 1, lp.depth) } else { format!("%{name}") };
    LoopEstimate {
        header,
        scalar_weight: ws,
        vector_weight: wv,
        chain,
        scalar_cycles,
        vector_cycles,
        speedup: n * scalar_cycles / (SPREAD * vector_cycles),
        per_lane_calls,
    }
}

/// Weight of instruction `i` in a scalar trip.
fn scalar_weight(i: Value) -> f64 {
    match i.opcode() {
        LLVMUDiv | LLVMSDiv | LLVMURem | LLVMSRem => 10.0,
        LLVMFDiv | LLVMFRem => 3.0,
        _ => 1.0,
    }
}

/// Weight of instruction `i` in a vector trip of `n` lanes, from its
/// recipe (`regs` counts the registers of a type's vector).
fn vector_weight(recipe: &Recipe, i: Value, n: f64, regs: &dyn Fn(Type) -> f64) -> f64 {
    let op = i.opcode();
    let wide = || scalar_bits(elem_of(i.ty())) > 32;
    match recipe {
        Recipe::Uniform => match op {
            LLVMStore => 2.0,
            _ => scalar_weight(i),
        },
        // Extract the lanes' operands, run, insert the result.
        Recipe::PerLane(_) | Recipe::Deferred => 3.0 * n,
        Recipe::Dropped | Recipe::Control => 0.0,
        Recipe::Call(_) => 1.0,
        Recipe::Memory { load, recipe } => {
            let ty = if *load { i.ty() } else { i.operand(0).ty() };
            let access = match recipe.access {
                Access::Contiguous { reverse: false } => regs(ty) + 1.0,
                // One vector access and a lane shuffle.
                Access::Contiguous { reverse: true } => 2.0 * regs(ty) + 1.0,
                // One wide access over `m` registers and a shuffle.
                Access::Strided { m } => (m as f64 + 1.0) * regs(ty),
                Access::TablePermute { .. } => regs(ty) + 1.0,
                Access::Gather(_) => GATHER_PER_LANE * n,
                Access::LastLane => 2.0,
            };
            // The check: first and last active lanes, a compare, a branch.
            access + if recipe.checked { 4.0 } else { 0.0 }
        }
        Recipe::Widened(Widen::GuardedDivision) if wide() => 10.0 * n,
        Recipe::Widened(Widen::GuardedDivision | Widen::NarrowDivision) => 6.0 * regs(i.ty()),
        Recipe::Widened(_) if matches!(op, LLVMFDiv | LLVMFRem) => 3.0 * regs(i.ty()),
        Recipe::Widened(_) => regs(i.ty().non_void_or(i)),
    }
}

/// Whether `i` calls an intrinsic.
fn is_intrinsic(i: Value) -> bool {
    i.called_value().name().starts_with("llvm.")
}

/// Files a per-lane call under what would cure it.
fn note_per_lane_call(calls: &mut PerLaneCalls, i: Value) {
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
fn latency(i: Value) -> f64 {
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

fn elem_of(t: Type) -> Type {
    if t.is_vector() {
        t.element()
    } else {
        t
    }
}

/// Bits of a scalar type (`i1` counts as a byte).
fn scalar_bits(t: Type) -> u32 {
    crate::abi::scalar_bits(t).max(8)
}

trait NonVoid<'ctx> {
    fn non_void_or(self, i: Value<'ctx>) -> Type<'ctx>;
}

impl<'ctx> NonVoid<'ctx> for Type<'ctx> {
    /// The type, or for `void` the type of the instruction's first operand.
    fn non_void_or(self, i: Value<'ctx>) -> Type<'ctx> {
        if self.is_void() && i.num_operands() > 0 {
            i.operand(0).ty()
        } else {
            self
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llvm::{parse_ir, Module};
    use crate::plan::MemoryRecipe;
    // Links libLLVM into the test binary.
    use batchify_llvm_link as _;

    const IR: &str = "define i32 @f(ptr %p, i32 %x) {\n  %v = load i32, ptr %p\n  %q = udiv i64 0, 0\n  \
                      %c = call i32 @g(i32 %x)\n  ret i32 %v\n}\ndeclare i32 @g(i32)";

    /// The weights of `f`'s instructions under the recipes given, at 8
    /// lanes of one register each.
    fn with_f(check: impl FnOnce(&[Value])) {
        let ctx = inkwell::context::Context::create();
        let m = parse_ir(&ctx, IR, "t").unwrap();
        let f = Module::from_inkwell(&m).function("f").unwrap();
        check(&f.blocks()[0].instructions());
    }

    fn load(access: Access, checked: bool) -> Recipe {
        Recipe::Memory { load: true, recipe: MemoryRecipe { access, checked, lanewise: false } }
    }

    #[test]
    fn memory_weights_follow_the_access_form() {
        with_f(|i| {
            let w = |r: Recipe| vector_weight(&r, i[0], 8.0, &|_| 1.0);
            assert_eq!(w(load(Access::Contiguous { reverse: false }, false)), 2.0);
            assert_eq!(w(load(Access::Contiguous { reverse: true }, false)), 3.0);
            assert_eq!(w(load(Access::Strided { m: 2 }, false)), 3.0);
            assert_eq!(w(load(Access::TablePermute { intrinsic: "llvm.x86.avx2.permd" }, false)), 2.0);
            assert_eq!(w(load(Access::Gather("no stride"), false)), GATHER_PER_LANE * 8.0);
            // A run-time stride check costs the same on every form.
            assert_eq!(w(load(Access::Contiguous { reverse: false }, true)), 6.0);
        });
    }

    #[test]
    fn per_lane_and_wide_division_weigh_per_lane() {
        with_f(|i| {
            let w = |r: Recipe, at: usize| vector_weight(&r, i[at], 8.0, &|_| 1.0);
            assert_eq!(w(Recipe::PerLane(None), 2), 24.0);
            assert_eq!(
                w(
                    Recipe::Call(crate::plan::BatchedCall {
                        spec: crate::spec::CloneSpec::all_varying("g", 1, 8, crate::vfabi::Isa::Avx2, false),
                        target: crate::plan::CallTarget::Helper,
                    }),
                    2
                ),
                1.0
            );
            // A 64-bit division has no vector instruction on x86.
            assert_eq!(w(Recipe::Widened(Widen::GuardedDivision), 1), 80.0);
            assert_eq!(w(Recipe::Uniform, 1), 10.0);
        });
    }
}
