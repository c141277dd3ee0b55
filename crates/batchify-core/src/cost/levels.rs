//! The walk that prices a function level by level: the cycles of one entry
//! into each level (the function body, then each loop, innermost last) for
//! one lane of the scalar function and for the clone.
//!
//! Within a level the blocks are visited in topological order with how
//! often one lane reaches them per entry (per trip, in a loop): 1 at the
//! level's entry, split evenly over a branch's targets and over a loop's
//! exits. The clone reaches a block of a real (not linearized) level as
//! often as one lane does; in a linearized level it runs every block on
//! every entry, except blocks it skips when no lane is in them (heavy
//! blocks and child loops: reached when any of its lanes is,
//! `1 - (1 - p)^N`) and the uniform regions kept inside (reached as often
//! as their branch's lanes go there). A loop's entry costs its trips
//! ([`super::trips`]) times one trip: the larger of the trip's issue time
//! and its loop-carried dependence chain, plus its child loops.

use super::terms::{callee_terms, scalar_terms, vector_terms, wide, Term, Terms};
use super::trips::trips;
use super::{latency, note_per_lane_call, scalar_bits, Inputs, LoopEstimate, PerLaneCalls, UNKNOWN_BODY_OPS};
use crate::analysis::divergence::{branch_condition, classify, Node, Target};
use crate::analysis::loops::LoopId;
use crate::llvm::LLVMOpcode::*;
use crate::llvm::{Block, Type, Value};
use crate::plan::{Recipe, Widen};
use std::collections::{HashMap, HashSet};

/// The work of one entry into a level.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Work {
    /// One lane of the scalar function.
    pub scalar: Terms,
    /// The clone (all lanes).
    pub vector: Terms,
}

/// The walk's state: what it found on the way.
pub struct Walk<'a, 'b, 'ctx> {
    inputs: &'a Inputs<'b, 'ctx>,
    lanes: f64,
    bits: u32,
    /// The divergent loops' estimates, outer loops after their inner ones.
    pub loops: Vec<LoopEstimate>,
    /// Calls the clone makes once per lane.
    pub per_lane_calls: PerLaneCalls,
}

impl<'a, 'b, 'ctx> Walk<'a, 'b, 'ctx> {
    /// A walk over the function the inputs describe, for `bits`-bit registers.
    pub fn new(inputs: &'a Inputs<'b, 'ctx>, bits: u32) -> Self {
        Walk {
            inputs,
            lanes: inputs.spec.width as f64,
            bits,
            loops: Vec::new(),
            per_lane_calls: PerLaneCalls::default(),
        }
    }

    /// Registers of a clone's vector of `t`.
    fn regs(&self, t: Type) -> f64 {
        let elem = if t.is_vector() { t.element() } else { t };
        let lanes = if t.is_vector() { t.vector_len() } else { 1 } * self.inputs.spec.width;
        ((lanes * scalar_bits(elem)) as f64 / self.bits as f64).ceil().max(1.0)
    }

    /// The work of one entry into `level` (`None`: the function body).
    pub fn level(&mut self, level: Option<LoopId>) -> Work {
        let inputs = self.inputs;
        let lp = &inputs.plan.levels[&level];
        let region_head: HashMap<Block, Block> =
            lp.regions.iter().flat_map(|(head, r)| r.blocks.iter().map(move |b| (*b, *head))).collect();
        let mut reach: HashMap<Node, f64> = HashMap::new();
        let mut reach_v: HashMap<Node, f64> = HashMap::new();
        if let Some(first) = lp.nodes.first() {
            reach.insert(*first, 1.0);
        }
        let mut own = Work::default();
        let mut inner = Work::default();
        let mut depth: HashMap<Value, f64> = HashMap::new();
        let header = level.map(|l| inputs.loops.loops[l.0].header);
        for n in &lp.nodes {
            let p = reach.get(n).copied().unwrap_or(0.0).min(1.0);
            let pv = if !lp.linear {
                p
            } else {
                match n {
                    Node::Block(b) if region_head.contains_key(b) => {
                        let head = Node::Block(region_head[b]);
                        let ph = reach.get(&head).copied().unwrap_or(0.0);
                        reach_v.get(&head).copied().unwrap_or(1.0) * if ph > 0.0 { (p / ph).min(1.0) } else { 0.0 }
                    }
                    Node::Block(b) if !crate::plan::worth_skipping(lp, inputs.recipes, *b) => 1.0,
                    _ => 1.0 - (1.0 - p).powf(self.lanes),
                }
            };
            reach_v.insert(*n, pv);
            let outs: Vec<(Block, f64)> = match n {
                Node::Block(b) => {
                    let c = self.block(*b, level, lp.linear, header, &mut depth);
                    own.scalar.add_scaled(&c.scalar, p);
                    own.vector.add_scaled(&c.vector, pv);
                    let succs = &inputs.cfg.succs[b];
                    succs.iter().map(|s| (*s, 1.0 / succs.len() as f64)).collect()
                }
                Node::Loop(c) => {
                    let sub = self.level(Some(*c));
                    inner.scalar.add_scaled(&sub.scalar, p);
                    inner.vector.add_scaled(&sub.vector, pv);
                    let exits = &inputs.loops.loops[c.0].exits;
                    exits.iter().map(|s| (*s, 1.0 / exits.len() as f64)).collect()
                }
            };
            for (s, share) in outs {
                if let Target::Node(x) = classify(inputs.loops, level, s) {
                    *reach.entry(x).or_default() += p * share;
                }
            }
        }
        let Some(l) = level else {
            own.scalar.add_scaled(&inner.scalar, 1.0);
            own.vector.add_scaled(&inner.vector, 1.0);
            return own;
        };
        // The loop-carried chain: from the header's phis to their values on
        // the back edge.
        let lp_info = &inputs.loops.loops[l.0];
        let chain = lp_info
            .header
            .instructions()
            .into_iter()
            .take_while(|i| i.opcode() == LLVMPHI)
            .flat_map(|p| p.incoming().into_iter().filter(|(_, from)| inputs.loops.contains(l, *from)))
            .filter_map(|(v, _)| depth.get(&v).copied())
            .fold(1.0, f64::max);
        let t = trips(inputs.cfg, inputs.loops, l, lp.linear, self.lanes);
        // Header mask, any-lane test and branch back of a divergent trip.
        if lp.linear {
            own.vector.add(Term::MaskOp, 3.0);
        }
        // A trip takes the longer of its issue time and its chain: the
        // chain's cycles beyond the issue time count as waiting.
        own.scalar.add(Term::ScalarChain, (chain - own.scalar.cycles()).max(0.0));
        own.vector.add(Term::VectorChain, (chain - own.vector.cycles()).max(0.0));
        let mut trip = own;
        trip.scalar.add_scaled(&inner.scalar, 1.0);
        trip.vector.add_scaled(&inner.vector, 1.0);
        let out = Work { scalar: trip.scalar.scaled(t.scalar), vector: trip.vector.scaled(t.vector) };
        if lp.linear {
            let name = lp_info.header.name();
            let header =
                if name.is_empty() { format!("#{} (depth {})", l.0 + 1, lp_info.depth) } else { format!("%{name}") };
            self.loops.push(LoopEstimate {
                header,
                scalar_trips: t.scalar,
                vector_trips: t.vector,
                chain,
                scalar_cycles: trip.scalar.cycles(),
                vector_cycles: trip.vector.cycles(),
                speedup: self.lanes * out.scalar.cycles() / out.vector.cycles().max(1e-9),
            });
        }
        out
    }

    /// Adds the body of the function call `i` calls, if the module defines
    /// it: for one lane, and for the clone once per lane (a per-lane call)
    /// or as a call of its clone.
    fn add_callee(&self, i: Value<'ctx>, recipe: &Recipe, work: &mut Work) {
        let callee = i.called_value();
        let n = self.lanes;
        let regs = |t: Type| self.regs(t);
        if callee.name().starts_with("llvm.") || matches!(recipe, Recipe::CrossLane(_)) {
            return;
        }
        // A body this module does not have costs what an ordinary library
        // function does, in the scalar call and in its vector variant alike.
        let unknown = Terms::of(Term::ScalarOp, UNKNOWN_BODY_OPS);
        let scalar = callee_terms(callee, false, n, &regs).unwrap_or(unknown);
        if matches!(recipe, Recipe::Deferred) {
            // A `noreturn` call ends the program: no lane returns through it.
            return;
        }
        work.scalar.add_scaled(&scalar, 1.0);
        match recipe {
            Recipe::Call(_) | Recipe::Widened(Widen::VecMath) => {
                work.vector.add_scaled(&callee_terms(callee, true, n, &regs).unwrap_or(unknown), 1.0);
            }
            Recipe::Uniform => work.vector.add_scaled(&scalar, 1.0),
            // The vector intrinsic of a `--for-autodiff` clone is one call
            // of the scalar function per lane in the backend.
            Recipe::PerLane(_) | Recipe::Widened(Widen::AutodiffMath) => work.vector.add_scaled(&scalar, n),
            _ => {}
        }
    }

    /// The work of one run of block `b` of `level` (linearized or not) for
    /// one lane and for the clone; records the dependence chain's depth of
    /// its values in `depth`.
    fn block(
        &mut self,
        b: Block<'ctx>,
        level: Option<LoopId>,
        linear: bool,
        header: Option<Block<'ctx>>,
        depth: &mut HashMap<Value<'ctx>, f64>,
    ) -> Work {
        let inputs = self.inputs;
        let uni = inputs.uniformity;
        let n = self.lanes;
        let mut work = Work::default();
        let mut splat: HashSet<Value> = HashSet::new();
        for i in b.instructions() {
            let op = i.opcode();
            let varying = uni.is_varying(i);
            match op {
                // A varying phi of a linearized block is a blend.
                LLVMPHI if linear && varying && Some(b) != header => work.vector.add(Term::MaskOp, self.regs(i.ty())),
                LLVMPHI => {}
                LLVMBr | LLVMSwitch => {
                    let divergent = branch_condition(i).is_some_and(|c| uni.is_varying(c));
                    if i.successors().len() > 1 {
                        work.scalar.add(Term::ScalarBranch, 1.0);
                        work.vector.add(Term::MaskOp, if divergent { 3.0 } else { 2.0 });
                    }
                }
                _ => {
                    let recipe = inputs.recipes.recipe(i);
                    if op == LLVMCall
                        && !i.called_value().name().starts_with("llvm.")
                        && matches!(recipe, Recipe::PerLane(_))
                    {
                        note_per_lane_call(&mut self.per_lane_calls, i);
                    }
                    work.scalar.add_scaled(&scalar_terms(i), 1.0);
                    work.vector.add_scaled(&vector_terms(recipe, i, n, &|t| self.regs(t)), 1.0);
                    if op == LLVMCall {
                        self.add_callee(i, recipe, &mut work);
                    }
                }
            }
            // A uniform value computed in this loop and used by varying
            // code is splat there.
            if varying && op != LLVMPHI {
                for o in i.operands() {
                    let here = o.is_instruction() && level.is_some_and(|l| inputs.loops.contains(l, o.parent_block()));
                    if here && !uni.is_varying(o) && splat.insert(o) {
                        work.vector.add(Term::VectorOp, 1.0);
                    }
                }
            }
            let start = if op == LLVMPHI && Some(b) == header {
                0.0
            } else {
                i.operands().iter().filter_map(|o| depth.get(o)).fold(0.0, |a: f64, d| a.max(*d))
            };
            depth.insert(i, start + if op == LLVMPHI { 0.0 } else { latency(i) });
        }
        // Edges out of a divergent loop: the exit mask, and a blend per
        // varying phi there (elements wider than 32 bits widen the mask too).
        if let (Some(l), true) = (level, linear) {
            for s in &inputs.cfg.succs[&b] {
                if inputs.loops.contains(l, *s) {
                    continue;
                }
                work.vector.add(Term::MaskOp, 1.0);
                for q in s.instructions().into_iter().take_while(|q| q.opcode() == LLVMPHI) {
                    if uni.is_varying(q) {
                        let widen = if wide(q.ty()) { 2.0 } else { 1.0 };
                        work.vector.add(Term::MaskOp, widen * self.regs(q.ty()));
                    }
                }
            }
        }
        work
    }
}
