//! Widening: the per-instruction rules that build the clone's body.
//!
//! Each scalar value maps to one value in the clone: uniform values to a
//! scalar copy, varying values to their vector (or lane-array) form. Every
//! instruction is emitted under the current block's execution mask:
//!
//! * uniform, side-effect-free instructions are copied as they are; uniform
//!   loads, stores and calls run only if some lane is active (a guard
//!   block), and a uniform divisor becomes 1 when no lane is active;
//! * varying arithmetic, comparisons, casts, `select`, `freeze`,
//!   `getelementptr` and lane-wise intrinsics get their vector form from a
//!   recipe ([`super::recipes`]); a varying divisor is 1 in inactive lanes;
//!   varying loads and stores become masked gathers and scatters;
//! * everything else that is varying runs once per active lane, in lane
//!   order ("serialized").
//!
//! Control flow (masks, linearization, loops) is in [`super::control`].

use super::aggregates;
use super::noreturn::is_deferrable;
use super::recipes::is_safe_divisor;
use super::state::Widener;
use super::vector_input::{self, is_plain_vector, value_type};
use crate::abi::{extract_lane, insert_lane, splat};
use crate::analysis::calls;
use crate::error::{Error, Result};
use crate::llvm::LLVMOpcode::*;
use crate::llvm::{constant, Block, Type, Value};
use crate::plan::{Recipe, Widen};
use std::collections::HashMap;

impl<'ctx> Widener<'_, 'ctx> {
    /// An error for what [`crate::legality`] should have rejected.
    pub(crate) fn missed_by_legality(&self, what: impl Into<String>) -> Error {
        Error::Internal {
            function: self.function_name.clone(),
            message: format!("{} (legality let it through)", what.into()),
        }
    }

    pub(crate) fn ctx(&self) -> crate::llvm::Context<'ctx> {
        self.module.context()
    }

    pub(crate) fn mask_type(&self) -> Type<'ctx> {
        Type::int(self.ctx(), 1).vector_of(self.n)
    }

    pub(crate) fn all_true(&self) -> Value<'ctx> {
        constant::all_ones(self.mask_type())
    }

    pub(crate) fn all_false(&self) -> Value<'ctx> {
        constant::null(self.mask_type())
    }

    /// Type of the clone's value for scalar value `v`.
    pub(crate) fn mapped_type(&self, v: Value<'ctx>) -> Type<'ctx> {
        if self.analyses.uniformity.is_varying(v) {
            value_type(v.ty(), self.n)
        } else {
            v.ty()
        }
    }

    /// The clone's scalar value for a uniform operand.
    pub(crate) fn uniform_value(&self, v: Value<'ctx>) -> Value<'ctx> {
        if let Some(m) = self.values.vmap.get(&v) {
            return *m;
        }
        // Constants, globals, functions and metadata are shared with the scalar code.
        v
    }

    /// The clone's value for an operand in its own shape (vector if varying).
    pub(crate) fn mapped_value(&mut self, v: Value<'ctx>) -> Value<'ctx> {
        if self.analyses.uniformity.is_varying(v) {
            self.values.vmap[&v]
        } else {
            self.uniform_value(v)
        }
    }

    /// The clone's varying form of an operand (splatting uniform values).
    pub(crate) fn varying_value(&mut self, v: Value<'ctx>) -> Value<'ctx> {
        if self.analyses.uniformity.is_varying(v) {
            return self.values.vmap[&v];
        }
        if let Some(s) = self.values.splats.get(&v) {
            return *s;
        }
        let u = self.uniform_value(v);
        let s = if u.is_constant() && !u.is_function() && u.ty().is_vector_element() {
            constant::vector(&vec![u; self.n as usize])
        } else {
            // Splat right after the definition so it dominates every use.
            if u.is_instruction() {
                self.aux.position_after(u);
            } else {
                self.position_aux_in_entry();
            }
            if is_plain_vector(u.ty()) {
                vector_input::splat_wide(&self.aux, u, self.n)
            } else if aggregates::is_split(u.ty()) {
                aggregates::splat(&self.aux, u, self.n)
            } else {
                splat(&self.aux, u, self.n)
            }
        };
        self.values.splats.insert(v, s);
        s
    }

    /// Positions the auxiliary builder before the entry block's terminator
    /// (or at its end while it has none).
    pub(crate) fn position_aux_in_entry(&self) {
        let entry = self.entry.expect("entry block exists");
        match entry.terminator() {
            Some(t) => self.aux.position_before(t),
            None => self.aux.position_at_end(entry),
        }
    }

    /// Lane `k` of an operand, as a scalar.
    fn lane_value(&mut self, v: Value<'ctx>, k: u32) -> Value<'ctx> {
        if !self.analyses.uniformity.is_varying(v) {
            return self.uniform_value(v);
        }
        let vv = self.values.vmap[&v];
        if is_plain_vector(v.ty()) {
            return vector_input::lane_of(&self.b, vv, self.n, k);
        }
        if aggregates::is_split(v.ty()) {
            return aggregates::lane_of(&self.b, vv, v.ty(), self.n, k);
        }
        extract_lane(&self.b, vv, v.ty(), k)
    }

    /// The clone's value of `v` in the ABI's form (lane arrays for vectors
    /// and aggregates with vector leaves).
    pub(crate) fn abi_value(&mut self, v: Value<'ctx>) -> Value<'ctx> {
        let x = self.varying_value(v);
        if is_plain_vector(v.ty()) {
            vector_input::to_abi(&self.b, x, v.ty(), self.n)
        } else {
            aggregates::to_abi(&self.b, x, v.ty(), self.n)
        }
    }

    /// The value scalar phi `phi` takes from predecessor `from` (the first
    /// one listed), by a map made once for phis with many predecessors, so
    /// that writing every edge into a block is linear in its edges.
    pub(crate) fn incoming_from(&mut self, phi: Value<'ctx>, from: Block<'ctx>) -> Option<Value<'ctx>> {
        const SCAN_BELOW: u32 = 16;
        if phi.num_operands() < SCAN_BELOW {
            return phi.incoming().into_iter().find(|(_, p)| *p == from).map(|(v, _)| v);
        }
        let map = self.values.incoming.entry(phi).or_insert_with(|| {
            let mut m = HashMap::new();
            for (v, p) in phi.incoming() {
                m.entry(p).or_insert(v);
            }
            m
        });
        map.get(&from).copied()
    }

    /// `any(mask)` as an `i1`.
    pub(crate) fn any(&self, m: Value<'ctx>) -> Value<'ctx> {
        let f = self.module.intrinsic("llvm.vector.reduce.or", &[m.ty()]).expect("llvm.vector.reduce.or exists");
        self.b.call(f.function_type(), f, &[m])
    }

    /// Emits a non-terminator instruction under the current mask, by its
    /// recipe ([`crate::plan`]).
    pub(crate) fn emit_instruction(&mut self, i: Value<'ctx>) -> Result<()> {
        debug_assert_eq!(
            self.analyses.recipes.full(i.parent_block()),
            self.flow.full,
            "the plan and the control rules disagree on a full mask"
        );
        let analyses = self.analyses;
        let recipe = analyses.recipes.recipe(i);
        let v = match recipe {
            Recipe::Uniform => {
                let c = self.emit_uniform(i);
                self.stats.uniform += 1;
                self.values.vmap.insert(i, c);
                return Ok(());
            }
            Recipe::Dropped => return Ok(()), // a hint on varying values
            Recipe::CrossLane(op) => {
                if self.analyses.uniformity.is_varying(i) {
                    self.stats.vectorized += 1;
                } else {
                    self.stats.uniform += 1;
                }
                self.cross_lane(i, *op)
            }
            Recipe::Control => return Err(self.missed_by_legality("a phi or terminator as an instruction")),
            Recipe::Call(call) => {
                self.stats.vectorized += 1;
                self.batched_call(i, call)
            }
            Recipe::Memory { load, recipe } => {
                self.stats.vectorized += 1;
                if *load && matches!(recipe.access, crate::plan::Access::Interleaved { .. }) {
                    super::interleave::load(self, i, *recipe)
                } else if *load {
                    super::memory::load(self, i, *recipe)
                } else {
                    super::memory::store(self, i, *recipe)
                }
            }
            Recipe::Widened(rule) => match super::recipes::rule(*rule)(self, i) {
                Some(v) => {
                    self.stats.vectorized += 1;
                    v
                }
                // The vector-input and aggregate rules still decide part of
                // their form here; a decline runs the instruction per lane.
                None if matches!(rule, Widen::PlainVector | Widen::Aggregate) || !cfg!(debug_assertions) => {
                    self.per_lane(i)
                }
                None => {
                    return Err(Error::Internal {
                        function: self.function_name.clone(),
                        message: format!(
                            "the plan chose `{}` for `{}`, whose rule declined",
                            rule.name(),
                            i.print().trim()
                        ),
                    })
                }
            },
            Recipe::PerLane(note) => {
                if let Some(why) = note {
                    self.note_call(&i.called_value().name(), why.clone());
                }
                self.per_lane(i)
            }
            Recipe::Deferred => self.per_lane(i),
            Recipe::Tape(crate::plan::TapeOp::Grow) => {
                self.stats.vectorized += 1;
                super::tape::grow(self, i)
            }
            // Freed when the clone returns.
            Recipe::Tape(crate::plan::TapeOp::Free) => return Ok(()),
        };
        if !i.ty().is_void() {
            v.set_name(&i.name());
            self.values.vmap.insert(i, v);
        }
        Ok(())
    }

    /// Copies a uniform instruction with its operands remapped; guards it
    /// if it may trap or has effects and some lanes may be inactive.
    fn emit_uniform(&mut self, i: Value<'ctx>) -> Value<'ctx> {
        let op = i.opcode();
        let c = i.clone_instruction();
        for k in 0..c.num_operands() {
            let o = c.operand(k);
            c.set_operand(k, self.uniform_value(o));
        }
        c.clear_debug_location();
        if !self.flow.nonempty
            && matches!(op, LLVMUDiv | LLVMSDiv | LLVMURem | LLVMSRem)
            && !is_safe_divisor(op, i.operand(1))
        {
            // No active lane: divide by 1 instead of a possibly bad divisor.
            let any = self.any(self.flow.mask);
            // The scalar code may divide vectors (e.g. after SLP vectorization).
            let one = constant::one(i.ty());
            let dividend = self.b.freeze(c.operand(0));
            c.set_operand(0, dividend);
            let frozen = self.b.freeze(c.operand(1));
            let d = self.b.select(any, frozen, one);
            c.set_operand(1, d);
        }
        let needs_guard = !self.flow.nonempty && may_trap_or_write(i);
        if needs_guard {
            let any = self.any(self.flow.mask);
            let r = self.guarded(any, |w| {
                w.b.insert(c);
                c
            });
            c.set_name(&i.name());
            return r.unwrap_or(c);
        }
        self.b.insert(c);
        c.set_name(&i.name());
        c
    }

    /// How many lanes `mask` (`<N x i1>`) has set, as an integer of type `ty`.
    pub(crate) fn lanes_set(&self, mask: Value<'ctx>, ty: Type<'ctx>) -> Value<'ctx> {
        let bits_ty = Type::int(self.ctx(), self.n);
        let bits = self.b.cast(LLVMBitCast, mask, bits_ty);
        let ctpop = self.module.intrinsic("llvm.ctpop", &[bits_ty]).expect("llvm.ctpop exists");
        let count = self.b.call(ctpop.function_type(), ctpop, &[bits]);
        self.resize_int(count, ty)
    }

    /// Integer `v` zero-extended or truncated to `ty`.
    pub(crate) fn resize_int(&self, v: Value<'ctx>, ty: Type<'ctx>) -> Value<'ctx> {
        match v.ty().int_width().cmp(&ty.int_width()) {
            std::cmp::Ordering::Less => self.b.cast(LLVMZExt, v, ty),
            std::cmp::Ordering::Greater => self.b.cast(LLVMTrunc, v, ty),
            std::cmp::Ordering::Equal => v,
        }
    }

    /// What a value that was not computed for a lane holds: poison, or zero
    /// in `--for-autodiff` clones (garbage in an inactive lane could be
    /// infinite or NaN, and a zero adjoint times either is NaN in Enzyme's
    /// reverse pass).
    pub(crate) fn inactive_lane_value(&self, ty: Type<'ctx>) -> Value<'ctx> {
        if self.for_autodiff {
            constant::null(ty)
        } else {
            constant::poison(ty)
        }
    }

    /// Runs `body` only when `cond` holds; returns its value (poison when
    /// skipped) if it produced a non-void one.
    pub(crate) fn guarded(
        &mut self,
        cond: Value<'ctx>,
        body: impl FnOnce(&mut Self) -> Value<'ctx>,
    ) -> Option<Value<'ctx>> {
        let then_b = self.clone.append_block("guard.then");
        let cont = self.clone.append_block("guard.cont");
        let from = self.b.current_block();
        self.b.cond_br(cond, then_b, cont);
        self.b.position_at_end(then_b);
        let v = body(self);
        let then_end = self.b.current_block();
        self.b.br(cont);
        self.b.position_at_end(cont);
        if v.ty().is_void() {
            return None;
        }
        let p = self.b.phi(v.ty());
        p.add_incoming(v, then_end);
        p.add_incoming(self.inactive_lane_value(v.ty()), from);
        Some(p)
    }

    /// Runs `i` once per active lane and counts it for the report.
    fn per_lane(&mut self, i: Value<'ctx>) -> Value<'ctx> {
        self.stats.serialized += 1;
        let what = describe(i);
        if !self.stats.serialized_what.contains(&what) {
            self.stats.serialized_what.push(what);
        }
        self.serialize(i)
    }

    /// Runs `i` once per lane, in lane order, and gathers the results.
    /// Lanes that are inactive skip it if it may trap or has effects (such a
    /// call is one loop over the active lanes, [`super::lane_loop`]).
    fn serialize(&mut self, i: Value<'ctx>) -> Value<'ctx> {
        if is_deferrable(i) {
            self.defer_noreturn(i);
            return constant::poison(Type::int(self.ctx(), 1));
        }
        let guard = !self.flow.full && may_trap_or_write(i);
        if let Some(v) = self.call_lane_loop(i, guard) {
            return v;
        }
        let ty = i.ty();
        let mut acc = (!ty.is_void()).then(|| constant::poison(value_type(ty, self.n)));
        for k in 0..self.n {
            let ops = i.operands();
            let lanes: Vec<Value> = ops.iter().map(|o| self.lane_value(*o, k)).collect();
            let make = |w: &mut Self| {
                let c = i.clone_instruction();
                for (j, l) in lanes.iter().enumerate() {
                    c.set_operand(j as u32, *l);
                }
                c.clear_debug_location();
                w.b.insert(c);
                c
            };
            let r = if guard {
                let bit = self.b.extract_element(self.flow.mask, k);
                self.guarded(bit, make)
            } else {
                Some(make(self))
            };
            if let (Some(a), Some(r)) = (acc, r) {
                acc = Some(if is_plain_vector(ty) {
                    vector_input::set_lane(&self.b, a, r, self.n, k)
                } else if aggregates::is_split(ty) {
                    aggregates::set_lane(&self.b, a, ty, r, self.n, k)
                } else {
                    insert_lane(&self.b, a, ty, r, k)
                });
            }
        }
        acc.unwrap_or_else(|| constant::poison(Type::int(self.ctx(), 1)))
    }
}

/// Whether an instruction may trap or has side effects, so that it must not
/// run for lanes that are inactive.
fn may_trap_or_write(i: Value) -> bool {
    match i.opcode() {
        LLVMUDiv | LLVMSDiv | LLVMURem | LLVMSRem => !is_safe_divisor(i.opcode(), i.operand(1)),
        LLVMLoad | LLVMStore => true,
        LLVMCall => {
            !(calls::is_lane_invariant_call(i)
                && (i.call_has_fn_attribute("speculatable")
                    || (i.called_value().is_function() && i.called_value().has_fn_attribute("speculatable"))))
        }
        _ => false,
    }
}

/// Short description of an instruction kind for the report.
fn describe(i: Value) -> String {
    if i.opcode() == LLVMCall {
        let name = i.called_value().name();
        if !name.is_empty() {
            return format!("call to `{name}`");
        }
    }
    let accessed = match i.opcode() {
        LLVMLoad => Some(i.ty()),
        LLVMStore => Some(i.operand(0).ty()),
        _ => None,
    };
    if let Some(t) = accessed.filter(|t| t.is_aggregate()) {
        // No vector form for whole-aggregate accesses yet (limits.md).
        let what = if i.opcode() == LLVMLoad { "load" } else { "store" };
        return format!("{what} of a whole `{}`", t.print());
    }
    let text = i.print();
    let op = text.split('=').nth(1).unwrap_or(&text).trim();
    op.split_whitespace().next().unwrap_or("instruction").to_string()
}
