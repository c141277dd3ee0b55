//! The mask and phi slots of the scalar blocks: creating them, resetting
//! them where a linear level reuses them, and entering a block through them
//! (its mask and phis, then its body).

use crate::analysis::divergence::{node_targets, Node, Target};
use crate::analysis::loops::LoopId;
use crate::emit::state::Widener;
use crate::error::Result;
use crate::legality::is_terminator;
use crate::llvm::LLVMOpcode::*;
use crate::llvm::{constant, Block, Value};
use std::collections::{HashMap, HashSet};

impl<'ctx> Widener<'_, 'ctx> {
    /// Reads a mask slot.
    pub(super) fn load_mask(&self, slot: Value<'ctx>) -> Value<'ctx> {
        self.b.load(self.mask_type(), slot, 0)
    }

    /// Writes a mask slot.
    pub(super) fn store_mask(&self, slot: Value<'ctx>, m: Value<'ctx>) {
        self.b.store(m, slot, 0);
    }

    /// One mask slot per block, one value slot per phi, all in the entry block.
    pub(super) fn create_slots(&mut self) {
        let mt = self.mask_type();
        for b in self.analyses.cfg.rpo.clone() {
            let s = self.b.alloca(mt);
            s.set_name(&format!("mask.{}", b.name()));
            self.b.store(constant::null(mt), s, 0);
            self.flow.mask_slots.insert(b, s);
            for phi in b.instructions().into_iter().take_while(|i| i.opcode() == LLVMPHI) {
                let ty = self.mapped_type(phi);
                let s = self.b.alloca(ty);
                // Lanes that never write the slot read poison, not undef.
                self.b.store(constant::poison(ty), s, 0);
                self.flow.phi_slots.insert(phi, s);
            }
        }
        let ret = self.clone.function_type().return_type();
        if !ret.is_void() && self.analyses.plan.levels[&None].linear {
            let s = self.b.alloca(ret);
            s.set_name("ret.slot");
            self.b.store(constant::poison(ret), s, 0);
            self.flow.ret_slot = Some(s);
        }
    }

    /// Where each slot of a linear level is reset: a block's (or a child
    /// loop header's) slots right before the first node that may write them,
    /// in emission order (a uniform region's nodes are emitted with its
    /// head). The masks are empty there already (every block cleared its
    /// mask when it ran); saying so ends each slot's live range where the
    /// level's code uses it, so promoting the slots to SSA values stays
    /// local: no phis, and no liveness, for a slot across the loops the
    /// level runs before it or around it. The level's own header is left
    /// alone (its entry and back edges fill it).
    pub(super) fn slot_resets(&self, level: Option<LoopId>, nodes: &[Node<'ctx>]) -> Vec<Vec<Block<'ctx>>> {
        let plan = &self.analyses.plan.levels[&level];
        let mut at: Vec<Vec<Block>> = vec![Vec::new(); nodes.len()];
        let mut reset: HashSet<Block> = HashSet::new();
        let mut emitted_with: HashMap<Block, usize> = HashMap::new();
        for (i, node) in nodes.iter().enumerate() {
            let mut here = i;
            if let Node::Block(b) = node {
                here = emitted_with.get(b).copied().unwrap_or(i);
                if let Some(region) = plan.regions.get(b) {
                    emitted_with.extend(region.blocks.iter().map(|m| (*m, here)));
                }
            }
            for t in node_targets(self.analyses.cfg, self.analyses.loops, level, *node) {
                let entry = match t {
                    Target::Node(Node::Block(b)) => b,
                    Target::Node(Node::Loop(l)) => self.analyses.loops.loops[l.0].header,
                    Target::Back | Target::Exit(_) => continue,
                };
                if reset.insert(entry) {
                    at[here].push(entry);
                }
            }
        }
        at
    }

    /// Empties the mask slot of `b`; its phi slots read poison again (in
    /// `--for-autodiff` clones, varying phis read zero: see
    /// [`Self::unwritten_phi_value`]).
    pub(super) fn reset_slots(&mut self, b: Block<'ctx>) {
        self.store_mask(self.flow.mask_slots[&b], self.all_false());
        for phi in b.instructions().into_iter().take_while(|i| i.opcode() == LLVMPHI) {
            let v = self.unwritten_phi_value(phi);
            self.b.store(v, self.flow.phi_slots[&phi], 0);
        }
    }

    /// What a phi's slot holds for the lanes no incoming edge wrote:
    /// poison, or in `--for-autodiff` clones, for varying phis inside
    /// divergent loops that hold with the trip's mask (`control::loops`),
    /// a finite value: `0.0` in the lanes that did not begin the trip
    /// (`uitofp` of the trip's mask, which dominates the loop's body; a
    /// `zeroinitializer` arm made Enzyme's type analysis fail on
    /// `tests/autodiff/08_collatz.c`, "Cannot deduce type of phi"), or
    /// zero for integer vectors. A finished lane held in the loop then
    /// gets that value at a join of a linearized branch, not the value of
    /// a side it did not take: with poison, LLVM folds the join's blends
    /// into one `select` whose other arm is the last side's value for
    /// every lane, such as a constant `INFINITY`, whose zero adjoint times
    /// an infinite partial derivative made the held lanes' reverse-mode
    /// gradients NaN (`tests/autodiff/16_held_branch.c`). Outside such
    /// loops no lane is held, and the slots read poison as before.
    fn unwritten_phi_value(&self, phi: Value<'ctx>) -> Value<'ctx> {
        let ty = self.mapped_type(phi);
        let trip = self.enclosing_trip_mask(phi.parent_block());
        let Some(trip) = trip.filter(|_| self.analyses.uniformity.is_varying(phi) && ty.is_vector()) else {
            return constant::poison(ty);
        };
        use crate::llvm::LLVMTypeKind::*;
        match ty.element().kind() {
            LLVMHalfTypeKind | LLVMBFloatTypeKind | LLVMFloatTypeKind | LLVMDoubleTypeKind
                if ty.vector_len() == self.n =>
            {
                self.b.cast(LLVMUIToFP, trip, ty)
            }
            LLVMIntegerTypeKind => constant::null(ty),
            _ => constant::poison(ty),
        }
    }

    /// The trip mask of the innermost loop around `b` that holds with one
    /// (`Flow::trip_masks`), if any.
    fn enclosing_trip_mask(&self, b: Block<'ctx>) -> Option<Value<'ctx>> {
        let loops = self.analyses.loops;
        let mut l = loops.innermost.get(&b).copied();
        while let Some(id) = l {
            if let Some(&m) = self.flow.trip_masks.get(&loops.loops[id.0].header) {
                return Some(m);
            }
            l = loops.loops[id.0].parent;
        }
        None
    }

    /// Enters scalar block `b`: its mask and its phis.
    pub(super) fn begin_block(&mut self, b: Block<'ctx>) {
        self.flow.nonempty = self.flow.full;
        if self.flow.full {
            self.flow.mask = self.all_true();
        } else {
            let slot = self.flow.mask_slots[&b];
            let m = self.load_mask(slot);
            m.set_name(&format!("mask.{}", b.name()));
            self.store_mask(slot, self.all_false());
            self.flow.mask = m;
        }
        // A loop header is entered only while some lane is in the loop.
        let may_be_empty = self.in_linear_level(b) && !self.analyses.loops.is_header(b);
        for phi in b.instructions().into_iter().take_while(|i| i.opcode() == LLVMPHI) {
            let mut v = self.b.load(self.mapped_type(phi), self.flow.phi_slots[&phi], 0);
            if may_be_empty && !self.analyses.uniformity.is_varying(phi) && !self.flow.full {
                // A uniform phi of a linearized block that no lane entered
                // holds poison or an old value: frozen, so that a uniform
                // branch on it (a region kept as real control flow) is no
                // branch on poison.
                v = self.b.freeze(v);
            }
            v.set_name(&phi.name());
            self.values.vmap.insert(phi, v);
        }
    }

    /// Whether scalar block `b` belongs to a linearized level (its blocks
    /// run in order under masks, each whether or not a lane is in it).
    pub(super) fn in_linear_level(&self, b: Block<'ctx>) -> bool {
        let level = self.analyses.loops.innermost.get(&b).copied();
        self.analyses.plan.levels.get(&level).is_some_and(|p| p.linear)
    }

    /// Emits the non-phi, non-terminator instructions of `b`.
    pub(super) fn emit_body(&mut self, b: Block<'ctx>) -> Result<()> {
        for i in b.instructions() {
            let op = i.opcode();
            if op == LLVMPHI || is_terminator(op) {
                continue;
            }
            self.emit_instruction(i)?;
        }
        Ok(())
    }
}
