//! Taking an edge: the edge masks of a terminator, and the target's mask and
//! phi slots written with them (blends, held live-outs, uniform phis).

use crate::analysis::loops::LoopId;
use crate::emit::state::Widener;
use crate::llvm::LLVMOpcode::*;
use crate::llvm::{constant, Block, Type, Value};

impl<'ctx> Widener<'_, 'ctx> {
    /// Takes the edge `from -> to` for the lanes in `em`.
    pub(super) fn write_edge(&mut self, from: Block<'ctx>, to: Block<'ctx>, em: Value<'ctx>) {
        let all = em == self.all_true();
        // A loop header is entered by the lanes of one edge at a time (the
        // entry, then the back edge each iteration): lanes outside `em` are
        // inactive there, so its phis take the value without a blend.
        let header = self.analyses.loops.is_header(to);
        let slot = self.flow.mask_slots[&to];
        if all {
            self.store_mask(slot, em);
        } else {
            let old = self.load_mask(slot);
            let new = self.b.binop(LLVMOr, old, em);
            self.store_mask(slot, new);
        }
        for phi in to.instructions().into_iter().take_while(|i| i.opcode() == LLVMPHI) {
            let Some(v) = self.incoming_from(phi, from) else { continue };
            if self.flow.from_header.contains_key(&phi) {
                // Read from the header phi's slot after the loop.
                continue;
            }
            if let Some(held) = self.flow.held.get(&phi).copied() {
                // The lanes' header phi values are in the held slot already;
                // another incoming value goes there too (only this exit
                // phi of its group has one).
                if v != held.header_phi {
                    let val = self.varying_value(v);
                    let old = self.b.load(val.ty(), held.slot, 0);
                    let blended = self.blend(em, val, old, phi.ty());
                    self.b.store(blended, held.slot, 0);
                }
                continue;
            }
            let pslot = self.flow.phi_slots[&phi];
            if self.analyses.uniformity.is_varying(phi) {
                let val = self.varying_value(v);
                if header && self.hold_finished_lanes && self.is_divergent_back_edge(from, to) {
                    // A back edge (`from` is in `to`'s loop): lanes that
                    // left the loop keep their values from their last trip
                    // (or, where the trip's mask holds them, the values
                    // their last trip computed: `control::loops`).
                    let trip = self.flow.trip_masks.get(&to).copied();
                    let kept = trip.and(self.flow.exit_values.get(&phi)).map(|e| e.before_trip);
                    let old = kept.unwrap_or_else(|| self.b.load(val.ty(), pslot, 0));
                    let blended = self.blend(trip.unwrap_or(em), val, old, phi.ty());
                    self.b.store(blended, pslot, 0);
                } else if all || header {
                    self.b.store(val, pslot, 0);
                } else {
                    let old = self.b.load(val.ty(), pslot, 0);
                    let per_lane = self.for_autodiff && !is_integer_vector(val.ty());
                    let blended = if per_lane && self.leaves_divergent_loop(from, to).is_some() {
                        self.blend_per_lane(em, val, old, phi.ty())
                    } else {
                        self.blend(em, val, old, phi.ty())
                    };
                    self.b.store(blended, pslot, 0);
                }
            } else {
                let mut val = self.uniform_value(v);
                if !all && !header && self.in_linear_level(to) {
                    // A uniform phi of a linearized level (no join of a
                    // divergent branch, `analysis::divergence`): the lanes
                    // that reach it all come along one edge, so the edge
                    // some lane takes gives the value; the others run too
                    // (linearized), for no lane, and leave it.
                    let old = self.b.load(val.ty(), pslot, 0);
                    let taken = self.any(em);
                    val = self.b.select(taken, val, old);
                }
                self.b.store(val, pslot, 0);
            }
        }
    }

    /// `select(em, a, b)` lane by lane for values of scalar type `t`:
    /// vectors, element-major vectors of vectors ([`super::vector_input`]),
    /// structs of vectors ([`super::aggregates`]) and lane arrays alike.
    pub(super) fn blend(&self, em: Value<'ctx>, a: Value<'ctx>, b: Value<'ctx>, t: Type<'ctx>) -> Value<'ctx> {
        if super::aggregates::is_split(t) {
            return super::aggregates::blend(&self.b, em, a, b, t, self.n);
        }
        if a.ty().is_vector() {
            let k = a.ty().vector_len() / self.n;
            let em = if k > 1 { super::vector_input::broadcast_lanes(&self.b, em, k) } else { em };
            return self.b.select(em, a, b);
        }
        let mut acc = b;
        for k in 0..self.n {
            let bit = self.b.extract_element(em, k);
            let x = self.b.extract_value(a, k);
            let y = self.b.extract_value(acc, k);
            let pick = self.b.select(bit, x, y);
            acc = self.b.insert_value(acc, pick, k);
        }
        acc
    }

    /// Whether `from -> to` is a back edge of a divergent loop.
    fn is_divergent_back_edge(&self, from: Block<'ctx>, to: Block<'ctx>) -> bool {
        let loops = self.analyses.loops;
        match loops.innermost.get(&to) {
            Some(&l) => loops.loops[l.0].header == to && loops.contains(l, from) && self.analyses.plan.is_divergent(l),
            None => false,
        }
    }

    /// The divergent loop that the edge `from -> to` leaves, if any (the
    /// outermost such loop). A back edge or an edge inside a loop leaves none.
    fn leaves_divergent_loop(&self, from: Block<'ctx>, to: Block<'ctx>) -> Option<LoopId> {
        let loops = self.analyses.loops;
        let mut l = loops.innermost.get(&from).copied();
        let mut left = None;
        while let Some(id) = l {
            if loops.contains(id, to) {
                break;
            }
            if self.analyses.plan.is_divergent(id) {
                left = Some(id);
            }
            l = loops.loops[id.0].parent;
        }
        left
    }

    /// [`Self::blend`] one element at a time (extract, scalar `select`,
    /// insert); structs of vectors leaf by leaf, integer leaves with one
    /// vector `select`. Enzyme's reverse
    /// mode rejects a loop phi fed by a `select` on a vector condition,
    /// which a live-out slot of a divergent loop would otherwise become
    /// (`docs/autodiff.md`).
    fn blend_per_lane(&self, em: Value<'ctx>, a: Value<'ctx>, b: Value<'ctx>, t: Type<'ctx>) -> Value<'ctx> {
        if super::aggregates::is_split(t) {
            // A struct of vectors: each leaf on its own, integer leaves
            // with one vector `select` as elsewhere in this mode.
            let n = self.n;
            return crate::abi::zip_leaves(
                &self.b,
                t,
                &|t| crate::plan::layout::value_type(t, n),
                &[a, b],
                &mut |leaf, p| {
                    if is_integer_vector(p[0].ty()) {
                        self.blend(em, p[0], p[1], leaf)
                    } else {
                        self.blend_per_lane(em, p[0], p[1], leaf)
                    }
                },
            );
        }
        if !a.ty().is_vector() {
            return self.blend(em, a, b, t);
        }
        let len = a.ty().vector_len();
        let k = len / self.n;
        // Element-major vectors of vectors: element `j` belongs to lane `j % N`.
        let em = if k > 1 { super::vector_input::broadcast_lanes(&self.b, em, k) } else { em };
        let mut acc = b;
        for j in 0..len {
            let bit = self.b.extract_element(em, j);
            let x = self.b.extract_element(a, j);
            let y = self.b.extract_element(b, j);
            let pick = self.b.select(bit, x, y);
            acc = self.b.insert_element(acc, pick, j);
        }
        acc
    }

    fn and_mask(&self, m: Value<'ctx>, c: Value<'ctx>) -> Value<'ctx> {
        self.b.select(m, c, self.all_false())
    }

    fn and_not_mask(&self, m: Value<'ctx>, c: Value<'ctx>) -> Value<'ctx> {
        let not_c = self.b.binop(LLVMXor, c, self.all_true());
        self.b.select(m, not_c, self.all_false())
    }

    /// Edge masks of `b`'s terminator, one per distinct successor.
    pub(super) fn edge_masks(&mut self, term: Value<'ctx>) -> Vec<(Block<'ctx>, Value<'ctx>)> {
        let m = self.flow.mask;
        let succs = term.successors();
        let mut out: Vec<(Block, Value)> = Vec::new();
        let add = |out: &mut Vec<(Block<'ctx>, Value<'ctx>)>, w: &Self, s: Block<'ctx>, em: Value<'ctx>| match out
            .iter_mut()
            .find(|(b, _)| *b == s)
        {
            Some((_, acc)) => *acc = w.b.binop(LLVMOr, *acc, em),
            None => out.push((s, em)),
        };
        match term.opcode() {
            LLVMBr if term.is_conditional() && succs[0] != succs[1] => {
                let c = term.operand(0);
                let (t, f) = if self.analyses.uniformity.is_varying(c) {
                    let cv = self.values.vmap[&c];
                    (self.and_mask(m, cv), self.and_not_mask(m, cv))
                } else {
                    let cu = self.b.freeze(self.uniform_value(c));
                    (self.b.select(cu, m, self.all_false()), self.b.select(cu, self.all_false(), m))
                };
                add(&mut out, self, succs[0], t);
                add(&mut out, self, succs[1], f);
            }
            LLVMSwitch => {
                let x = term.operand(0);
                let varying = self.analyses.uniformity.is_varying(x);
                let xv = if varying { self.values.vmap[&x] } else { self.b.freeze(self.uniform_value(x)) };
                let mut any_case = self.all_false();
                for (val, dest) in term.switch_cases() {
                    let em = if varying {
                        let splat = constant::vector(&vec![val; self.n as usize]);
                        let hit = self.b.icmp(crate::llvm::LLVMIntPredicate::LLVMIntEQ, xv, splat);
                        self.and_mask(m, hit)
                    } else {
                        let hit = self.b.icmp(crate::llvm::LLVMIntPredicate::LLVMIntEQ, xv, val);
                        self.b.select(hit, m, self.all_false())
                    };
                    any_case = self.b.binop(LLVMOr, any_case, em);
                    add(&mut out, self, dest, em);
                }
                let default = term.switch_default();
                let dm = self.b.select(any_case, self.all_false(), m);
                add(&mut out, self, default, dm);
            }
            _ => {
                for s in succs {
                    add(&mut out, self, s, m);
                }
            }
        }
        out
    }
}

/// Whether `t` is a vector of integers: values Enzyme does not
/// differentiate, whose loop-carried vector `select`s its reverse mode
/// accepts (`--for-autodiff` keeps them as vector blends).
pub(super) fn is_integer_vector(t: Type) -> bool {
    t.is_vector() && t.element().kind() == crate::llvm::LLVMTypeKind::LLVMIntegerTypeKind
}
