//! Child loops: entered only if some lane is in them, divergent ones run
//! while any lane is active, and their live-outs held in slots.

use super::edges::is_integer_vector;
use crate::analysis::loops::LoopId;
use crate::emit::state::{Frame, Widener};
use crate::error::Result;
use crate::llvm::LLVMOpcode::*;
use crate::llvm::{constant, Block, Value};
use std::collections::HashMap;

impl<'ctx> Widener<'_, 'ctx> {
    /// Emits a child loop. In a linear parent (or for divergent loops) the
    /// emission ends at a fresh block where the parent continues.
    pub(super) fn emit_loop(&mut self, l: LoopId, parent_real: bool) -> Result<()> {
        let header = self.analyses.loops.loops[l.0].header;
        let divergent = self.analyses.plan.is_divergent(l);
        if !divergent && parent_real {
            return self.emit_real(Some(l), None);
        }
        let pre = self.clone.append_block("loop.enter");
        let after = self.clone.append_block("loop.after");
        // Held live-outs are loop phis fed by vector selects, which
        // Enzyme's reverse mode rejects unless they are integers.
        let held = if divergent { self.begin_held_live_outs(l) } else { Vec::new() };
        let from_header = if divergent && self.for_autodiff { self.header_live_outs(l) } else { Vec::new() };
        self.flow.from_header.extend(from_header.iter().copied());
        let m = self.load_mask(self.flow.mask_slots[&header]);
        let any = self.any(m);
        self.b.cond_br(any, pre, after);
        let mut exit_slots = Vec::new();
        self.b.position_at_end(pre);
        if divergent {
            self.stats.divergent_loops += 1;
            self.stats.linearized_levels += 1;
            let saved_full = self.flow.full;
            self.flow.full = false;
            let counters = self.loop_counters(header);
            let trip_hold = self.for_autodiff && self.has_one_back_edge(l);
            if trip_hold {
                exit_slots = self.exit_value_slots(&from_header);
            }
            let top = self.clone.append_block("loop.top");
            self.b.br(top);
            self.b.position_at_end(top);
            if trip_hold {
                let trip = self.load_mask(self.flow.mask_slots[&header]);
                self.flow.trip_masks.insert(header, trip);
                self.keep_exit_values(&exit_slots, trip);
            }
            if let Some(c) = counters {
                let trip = self.load_mask(self.flow.mask_slots[&header]);
                self.count_trip(c, trip);
            }
            self.flow.frames.push(Frame {
                level: Some(l),
                real: false,
                blocks: HashMap::new(),
                loop_entry: HashMap::new(),
                after: Some(after),
                escape: None,
            });
            self.emit_linear(Some(l))?;
            self.flow.frames.pop();
            let cm = self.load_mask(self.flow.mask_slots[&header]);
            let again = self.any(cm);
            self.b.cond_br(again, top, after);
            self.flow.full = saved_full;
        } else {
            let saved_full = self.flow.full;
            self.flow.full = false;
            self.emit_real(Some(l), Some(after))?;
            self.flow.full = saved_full;
        }
        self.b.position_at_end(after);
        self.end_held_live_outs(&held);
        self.flow.trip_masks.remove(&header);
        for (q, p) in from_header {
            self.flow.from_header.remove(&q);
            let slot = self.flow.exit_values.get(&p).map_or(self.flow.phi_slots[&p], |e| e.slot);
            let v = self.b.load(self.mapped_type(p), slot, 0);
            self.b.store(v, self.flow.phi_slots[&q], 0);
        }
        for (p, _) in exit_slots {
            self.flow.exit_values.remove(&p);
        }
        Ok(())
    }

    /// Whether divergent loop `l`'s header has one predecessor in the loop.
    /// In `--for-autodiff` clones such a loop's back edge holds the
    /// finished lanes with the mask of the lanes that began the trip
    /// (known when the trip begins) instead of the back edge's own mask
    /// (known only after the trip's exit tests): a lane that leaves during
    /// a trip keeps the values that trip computed for it, masked off from
    /// where it left, and from the next trip on repeats that computation
    /// from the same values. The blend then waits for no exit test: with
    /// the back edge's mask it made each trip wait for the exit test's
    /// compare and mask logic on the loop-carried chain, which cost 42%
    /// on the AVX2 Mandelbrot clone (`docs/benchmarks.md`). With two back
    /// edges the trip's mask cannot tell which edge a lane took.
    fn has_one_back_edge(&self, l: LoopId) -> bool {
        let header = self.analyses.loops.loops[l.0].header;
        self.analyses.cfg.preds[&header].iter().filter(|p| self.analyses.loops.contains(l, **p)).count() == 1
    }

    /// Before a divergent loop whose finished lanes hold with the trip's
    /// mask: a slot for each header phi that exit phis read after the loop
    /// (`from_header`), since the phi itself no longer keeps each lane's
    /// value from the start of its last trip.
    fn exit_value_slots(&mut self, from_header: &[(Value<'ctx>, Value<'ctx>)]) -> Vec<(Value<'ctx>, Value<'ctx>)> {
        let mut slots: Vec<(Value, Value)> = Vec::new();
        for &(_, p) in from_header {
            if slots.iter().any(|(q, _)| *q == p) {
                continue;
            }
            let ty = self.mapped_type(p);
            self.position_aux_in_entry();
            let slot = self.aux.alloca(ty);
            slot.set_name("exit.value");
            // Lanes that never begin a trip keep the value they entered with.
            let entered = self.b.load(ty, self.flow.phi_slots[&p], 0);
            self.b.store(entered, slot, 0);
            slots.push((p, slot));
        }
        slots
    }

    /// At the top of a trip: each exit-value slot takes its header phi's
    /// value in the lanes that begin the trip (`trip`). The header phi's
    /// back edge reads the slot's value from before this write
    /// (`ExitValue::before_trip`) for the lanes that did not begin the
    /// trip, which holds the same values there; so the slot's loop phi
    /// has two uses in the loop, and is not the phi of a conditional
    /// reduction, which Enzyme's reverse mode rejects for a vector
    /// condition (`docs/autodiff.md`).
    fn keep_exit_values(&mut self, slots: &[(Value<'ctx>, Value<'ctx>)], trip: Value<'ctx>) {
        for &(p, slot) in slots {
            let ty = self.mapped_type(p);
            let before_trip = self.b.load(ty, slot, 0);
            let now = self.b.load(ty, self.flow.phi_slots[&p], 0);
            let kept = self.blend(trip, now, before_trip, p.ty());
            self.b.store(kept, slot, 0);
            self.flow.exit_values.insert(p, crate::emit::state::ExitValue { slot, before_trip });
        }
    }

    /// In `--for-autodiff` clones, where lanes that left divergent loop
    /// `l` hold their header phis: the varying exit phis of its dedicated
    /// exit blocks in its parent level whose every incoming value is one
    /// header phi `P` of `l`, with `P`. After the loop, `P`'s slot holds
    /// each lane's value from the last trip it ran, which is the value the
    /// exit phi takes, so the exit edges blend nothing (a loop-carried
    /// blend per exit edge is what Enzyme's reverse mode cannot take as a
    /// vector `select`, and costs N scalar selects one lane at a time).
    fn header_live_outs(&self, l: LoopId) -> Vec<(Value<'ctx>, Value<'ctx>)> {
        let lp = &self.analyses.loops.loops[l.0];
        let header_phis: Vec<Value> =
            lp.header.instructions().into_iter().take_while(|i| i.opcode() == LLVMPHI).collect();
        let mut out = Vec::new();
        for x in &lp.exits {
            let dedicated = self.analyses.cfg.preds[x].iter().all(|p| self.analyses.loops.contains(l, *p));
            if !dedicated || self.analyses.loops.innermost.get(x).copied() != lp.parent {
                continue;
            }
            for q in x.instructions().into_iter().take_while(|i| i.opcode() == LLVMPHI) {
                let incoming = q.incoming();
                let Some(&(p, _)) = incoming.first() else { continue };
                let varying = self.analyses.uniformity.is_varying(q) && self.analyses.uniformity.is_varying(p);
                let held = self.flow.held.contains_key(&q);
                if varying && !held && header_phis.contains(&p) && incoming.iter().all(|(v, _)| *v == p) {
                    out.push((q, p));
                }
            }
        }
        out
    }

    /// The exit phis of divergent loop `l` worth holding (see
    /// [`Self::begin_held_live_outs`]), grouped by the header phi they take:
    /// exit phis of dedicated exit blocks in `l`'s parent level whose
    /// incoming values from the loop are a header phi `P` of `l` (and, for
    /// at most one exit phi of each group, other values too), where the
    /// group has at least two incoming edges of `P`. Holding then costs one
    /// blend per trip where the exit edges cost one blend each.
    ///
    /// The group shares one slot, and the mixed phi's other edges write
    /// their values into it. So no other phi of the group may be in the
    /// mixed phi's block: a lane leaving on such an edge needs both values
    /// (fuzz seed 553665025: `phi [P, %a], [P, %b]` and `phi [P, %a],
    /// [0.0, %b]` in one exit block read the same slot).
    fn held_live_outs(&self, l: LoopId) -> Vec<(Value<'ctx>, Vec<Value<'ctx>>)> {
        let lp = &self.analyses.loops.loops[l.0];
        let header_phis: Vec<Value> =
            lp.header.instructions().into_iter().take_while(|i| i.opcode() == LLVMPHI).collect();
        // (P, exit phis, edges of P, block of the mixed phi if any)
        let mut groups: Vec<(Value, Vec<Value>, usize, Option<Block>)> = Vec::new();
        for x in &lp.exits {
            let dedicated = self.analyses.cfg.preds[x].iter().all(|p| self.analyses.loops.contains(l, *p));
            if !dedicated || self.analyses.loops.innermost.get(x).copied() != lp.parent {
                continue;
            }
            for q in x.instructions().into_iter().take_while(|i| i.opcode() == LLVMPHI) {
                if !self.analyses.uniformity.is_varying(q) {
                    continue;
                }
                let incoming = q.incoming();
                let Some(p) = incoming.iter().map(|(v, _)| *v).find(|v| header_phis.contains(v)) else { continue };
                let p_edges = incoming.iter().filter(|(v, _)| *v == p).count();
                let mixed = (p_edges < incoming.len()).then_some(*x);
                match groups.iter_mut().find(|g| g.0 == p) {
                    // A second mixed phi, or a mixed phi beside a member.
                    Some(g) if mixed.is_some() && (g.3.is_some() || g.1.iter().any(|m| m.parent_block() == *x)) => {}
                    // A member in the block of the group's mixed phi.
                    Some(g) if g.3 == Some(*x) => {}
                    Some(g) => {
                        g.1.push(q);
                        g.2 += p_edges;
                        g.3 = g.3.or(mixed);
                    }
                    None => groups.push((p, vec![q], p_edges, mixed)),
                }
            }
        }
        groups.into_iter().filter(|g| g.2 >= 2).map(|g| (g.0, g.1)).collect()
    }

    /// Before divergent loop `l`: one slot per group of
    /// [`Self::held_live_outs`], which the header fills with the active
    /// lanes' value of the header phi each trip
    /// ([`Self::hold_header_phis`]), so that after the loop each lane finds
    /// there its value from the last trip it ran, the value every exit of
    /// the group takes. The exit edges then write nothing.
    fn begin_held_live_outs(&mut self, l: LoopId) -> Vec<Value<'ctx>> {
        let header = self.analyses.loops.loops[l.0].header;
        let mut held = Vec::new();
        for (p, qs) in self.held_live_outs(l) {
            let ty = self.mapped_type(qs[0]);
            if self.for_autodiff && !is_integer_vector(ty) {
                continue;
            }
            self.position_aux_in_entry();
            let slot = self.aux.alloca(ty);
            slot.set_name("held");
            self.aux.store(constant::poison(ty), slot, 0);
            self.b.store(constant::poison(ty), slot, 0);
            let h = super::state::HeldLiveOut { header, header_phi: p, slot };
            self.flow.held_slots.push(h);
            for q in qs {
                self.flow.held.insert(q, h);
                held.push(q);
            }
        }
        held
    }

    /// At the header of a divergent loop: the held slots take the active
    /// lanes' header phi values.
    pub(super) fn hold_header_phis(&mut self, header: Block<'ctx>) {
        let held: Vec<_> = self.flow.held_slots.iter().copied().filter(|h| h.header == header).collect();
        for h in held {
            let val = self.varying_value(h.header_phi);
            let old = self.b.load(val.ty(), h.slot, 0);
            let blended = self.blend(self.flow.mask, val, old, h.header_phi.ty());
            self.b.store(blended, h.slot, 0);
        }
    }

    /// After a divergent loop: the held exit phis read their slots.
    fn end_held_live_outs(&mut self, held: &[Value<'ctx>]) {
        for q in held {
            let h = self.flow.held.remove(q).expect("held exit phi");
            self.flow.held_slots.retain(|k| k.slot != h.slot);
            let v = self.b.load(self.mapped_type(*q), h.slot, 0);
            self.b.store(v, self.flow.phi_slots[q], 0);
        }
    }
}
