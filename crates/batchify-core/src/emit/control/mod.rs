//! Control flow of the clone: execution masks, linearization of divergent
//! levels, and loops that run while any lane is active.
//!
//! Design (documented in `docs/architecture.md`):
//!
//! * **Masks and phis live in stack slots.** Every scalar block has a mask
//!   slot and every phi a value slot. Taking an edge `B -> S` with edge mask
//!   `em` ORs `em` into `S`'s mask slot and blends the phi inputs into `S`'s
//!   phi slots (`select(em, v, old)`); entering `S` reads (and clears) its
//!   mask and reads its phis. This one rule serves real branches, linearized
//!   joins, loop back edges and loop exits at any depth (an exit slot keeps
//!   accumulating the lanes that left, with their live-out values, until the
//!   exit block runs). [`crate::finish::promote`] turns the slots into SSA
//!   values; `slot_resets` keeps their live ranges local.
//! * **Real levels** (no node splits; see [`crate::analysis::divergence`])
//!   keep their branches: uniform branches and uniform loops stay scalar
//!   control flow. **Linear levels** run their nodes in topological order;
//!   branches become edge masks.
//! * **Divergent loops** run while any lane is active: the loop jumps back
//!   while the header's mask slot (filled by the back edges) has a lane set;
//!   lanes that exit only add themselves to their exit block's slots.
//! * A loop that some lanes may not reach is entered only if its entry mask
//!   has an active lane, so a uniform loop never runs with a bound that no
//!   lane computed.
//!
//! The parts: `slots` (mask and phi slots, entering a block), `edges` (edge
//! masks, taking an edge), `linear`, `loops` and `real` (emitting each kind
//! of level); this file makes the clone's entry and runs the top level.

mod edges;
mod linear;
mod loops;
mod real;
mod slots;

use super::state::{Frame, Widener};
use crate::abi;
use crate::error::Result;
use crate::llvm::{constant, Type, Value};
use crate::vfabi::ParamKind;
use std::collections::HashMap;

// The parts call the other emit modules as `super::aggregates::...` and so
// on, the paths they had when control flow was one file.
use super::{aggregates, state, vector_input};

impl<'ctx> Widener<'_, 'ctx> {
    /// Builds the whole clone body.
    pub(crate) fn run(&mut self, scalar: Value<'ctx>) -> Result<()> {
        let entry = self.clone.append_block("entry");
        self.entry = Some(entry);
        self.b.position_at_end(entry);
        self.map_params(scalar);
        self.create_slots();
        self.create_tape_slots();
        let m0 = self.entry_mask();
        self.flow.full = self.spec.mask.is_none();
        self.flow.mask = m0;
        let scalar_entry = self.analyses.cfg.rpo[0];
        let slot = self.flow.mask_slots[&scalar_entry];
        self.store_mask(slot, m0);
        if self.spec.mask.is_some() {
            // No lane active: return at once (nothing may run, not even a uniform loop).
            let start = self.clone.append_block("start");
            let none = self.clone.append_block("no.active.lane");
            let any = self.any(m0);
            self.b.cond_br(any, start, none);
            self.b.position_at_end(none);
            self.return_poison();
            self.b.position_at_end(start);
        }
        let top = &self.analyses.plan.levels[&None];
        if top.linear {
            self.stats.linearized_levels += 1;
            let body = self.clone.append_block("body");
            self.b.br(body);
            self.b.position_at_end(body);
            self.flow.full = false;
            self.flow.frames.push(Frame {
                level: None,
                real: false,
                blocks: HashMap::new(),
                loop_entry: HashMap::new(),
                after: None,
                escape: None,
            });
            self.emit_linear(None)?;
            self.flow.frames.pop();
            self.resolve_doomed();
            self.free_tapes();
            match self.flow.ret_slot {
                Some(slot) => {
                    let ty = self.clone.function_type().return_type();
                    let v = self.b.load(ty, slot, 0);
                    self.b.ret(Some(v));
                }
                None => {
                    self.b.ret(None);
                }
            }
        } else {
            self.emit_real(None, None)?;
        }
        Ok(())
    }

    fn return_poison(&self) {
        let ty = self.clone.function_type().return_type();
        if ty.is_void() {
            self.b.ret(None);
        } else {
            self.b.ret(Some(constant::poison(ty)));
        }
    }

    /// The function's execution mask as `<N x i1>`.
    fn entry_mask(&mut self) -> Value<'ctx> {
        let Some(abi) = self.spec.mask else { return self.all_true() };
        let m = *self.clone.params().last().expect("masked clones have a mask parameter");
        abi::decode_mask(&self.b, abi, m, self.n)
    }

    fn map_params(&mut self, scalar: Value<'ctx>) {
        let ctx = self.ctx();
        let cparams = self.clone.params();
        for (k, p) in scalar.params().into_iter().enumerate() {
            let q = cparams[k];
            q.set_name(&p.name());
            let mapped = match self.spec.params[k] {
                ParamKind::Linear { step } => {
                    self.values.linear_params.insert(p, (q, step));
                    abi::linear_lanes(&self.b, q, constant::int(Type::int(ctx, 64), step as u64), self.n)
                }
                ParamKind::LinearVarStep { param } => {
                    let step64 = abi::step_as_i64(&self.b, cparams[param]);
                    abi::linear_lanes(&self.b, q, step64, self.n)
                }
                ParamKind::Vector if super::vector_input::is_plain_vector(p.ty()) => {
                    super::vector_input::from_abi(&self.b, q, p.ty(), self.n)
                }
                _ => q,
            };
            self.values.vmap.insert(p, mapped);
        }
        if let Some(m) = cparams.get(scalar.params().len()) {
            m.set_name("mask");
        }
    }
}
