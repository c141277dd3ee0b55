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

use super::state::{Frame, Widener};
use crate::abi;
use crate::analysis::divergence::{branch_condition, classify, exit_blocks, node_targets, Node, Target, UniformRegion};
use crate::analysis::loops::LoopId;
use crate::error::Result;
use crate::legality::is_terminator;
use crate::llvm::LLVMOpcode::*;
use crate::llvm::{constant, Block, Type, Value};
use crate::vfabi::ParamKind;
use std::collections::{HashMap, HashSet};

impl<'ctx> Widener<'_, 'ctx> {
    /// Builds the whole clone body.
    pub(crate) fn run(&mut self, scalar: Value<'ctx>) -> Result<()> {
        let entry = self.clone.append_block("entry");
        self.entry = Some(entry);
        self.b.position_at_end(entry);
        self.map_params(scalar);
        self.create_slots();
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

    /// Reads a mask slot.
    fn load_mask(&self, slot: Value<'ctx>) -> Value<'ctx> {
        self.b.load(self.mask_type(), slot, 0)
    }

    /// Writes a mask slot.
    fn store_mask(&self, slot: Value<'ctx>, m: Value<'ctx>) {
        self.b.store(m, slot, 0);
    }

    /// One mask slot per block, one value slot per phi, all in the entry block.
    fn create_slots(&mut self) {
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
    fn slot_resets(&self, level: Option<LoopId>, nodes: &[Node<'ctx>]) -> Vec<Vec<Block<'ctx>>> {
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

    /// Empties the mask slot of `b`; its phi slots read poison again.
    fn reset_slots(&mut self, b: Block<'ctx>) {
        self.store_mask(self.flow.mask_slots[&b], self.all_false());
        for phi in b.instructions().into_iter().take_while(|i| i.opcode() == LLVMPHI) {
            let ty = self.mapped_type(phi);
            self.b.store(constant::poison(ty), self.flow.phi_slots[&phi], 0);
        }
    }

    /// Enters scalar block `b`: its mask and its phis.
    fn begin_block(&mut self, b: Block<'ctx>) {
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
    fn in_linear_level(&self, b: Block<'ctx>) -> bool {
        let level = self.analyses.loops.innermost.get(&b).copied();
        self.analyses.plan.levels.get(&level).is_some_and(|p| p.linear)
    }

    /// Emits the non-phi, non-terminator instructions of `b`.
    fn emit_body(&mut self, b: Block<'ctx>) -> Result<()> {
        for i in b.instructions() {
            let op = i.opcode();
            if op == LLVMPHI || is_terminator(op) {
                continue;
            }
            self.emit_instruction(i)?;
        }
        Ok(())
    }

    /// Takes the edge `from -> to` for the lanes in `em`.
    fn write_edge(&mut self, from: Block<'ctx>, to: Block<'ctx>, em: Value<'ctx>) {
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
                    // left the loop keep their values from their last trip.
                    let old = self.b.load(val.ty(), pslot, 0);
                    let blended = self.blend(em, val, old, phi.ty());
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
    fn blend(&self, em: Value<'ctx>, a: Value<'ctx>, b: Value<'ctx>, t: Type<'ctx>) -> Value<'ctx> {
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
    fn edge_masks(&mut self, term: Value<'ctx>) -> Vec<(Block<'ctx>, Value<'ctx>)> {
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

    /// Emits a linear level: nodes in topological order under masks.
    fn emit_linear(&mut self, level: Option<LoopId>) -> Result<()> {
        let plan = &self.analyses.plan.levels[&level];
        let nodes = plan.nodes.clone();
        let inits = self.slot_resets(level, &nodes);
        let mut emitted_real: HashSet<Block> = HashSet::new();
        for (node, resets) in nodes.into_iter().zip(inits) {
            for b in resets {
                self.reset_slots(b);
            }
            match node {
                Node::Block(b) if emitted_real.contains(&b) => {}
                Node::Block(b) => {
                    self.begin_block(b);
                    // A divergent loop's header runs only while some lane
                    // is in the loop (`emit_loop` tests its mask first).
                    if level.is_some_and(|l| self.analyses.loops.loops[l.0].header == b) {
                        self.flow.nonempty = true;
                        self.hold_header_phis(b);
                    }
                    let skippable = !self.flow.nonempty && self.worth_skipping(level, b);
                    let skip = skippable.then(|| self.begin_skippable());
                    self.emit_body(b)?;
                    if let Some(skip) = skip {
                        let term = b.terminator().expect("blocks have terminators");
                        for (s, em) in self.edge_masks(term) {
                            self.write_edge(b, s, em);
                        }
                        self.end_skippable(skip, b);
                        continue;
                    }
                    if let Some(region) = self.analyses.plan.levels[&level].regions.get(&b).cloned() {
                        self.emit_uniform_region(level, b, &region)?;
                        emitted_real.extend(region.blocks.iter().copied());
                        continue;
                    }
                    let term = b.terminator().expect("blocks have terminators");
                    match term.opcode() {
                        LLVMRet => {
                            if term.num_operands() > 0 {
                                let v = self.abi_value(term.operand(0));
                                let slot = self.flow.ret_slot.expect("non-void linear functions have a return slot");
                                // The one return block (mergereturn) runs once.
                                self.b.store(v, slot, 0);
                            }
                        }
                        LLVMUnreachable => {}
                        LLVMBr | LLVMSwitch => {
                            for (s, em) in self.edge_masks(term) {
                                self.write_edge(b, s, em);
                            }
                        }
                        _ => return Err(self.missed_by_legality(format!("terminator `{}`", term.print()))),
                    }
                }
                Node::Loop(l) => self.emit_loop(l, false)?,
            }
        }
        Ok(())
    }

    /// Whether block `b` of a linear level is worth skipping when no lane
    /// is in it: heavy enough that an any-lane test and a branch cost less
    /// than running it for no lane (calls, divisions and memory accesses
    /// count extra), and an ordinary block (no return, no deferred
    /// `noreturn` call, no uniform region kept inside).
    fn worth_skipping(&self, level: Option<LoopId>, b: Block<'ctx>) -> bool {
        let term = b.terminator().expect("blocks have terminators");
        if !matches!(term.opcode(), LLVMBr | LLVMSwitch) || self.analyses.plan.levels[&level].regions.contains_key(&b) {
            return false;
        }
        let mut weight = 0;
        for i in b.instructions() {
            if super::noreturn::is_deferrable(i) {
                return false;
            }
            weight += match i.opcode() {
                LLVMPHI => 0,
                LLVMCall => 10,
                LLVMUDiv | LLVMSDiv | LLVMURem | LLVMSRem | LLVMFDiv | LLVMFRem => 8,
                LLVMLoad | LLVMStore => 3,
                _ => 1,
            };
        }
        weight >= SKIP_WEIGHT
    }

    /// Starts a block that runs only if some lane is in it (see
    /// [`Self::end_skippable`]).
    fn begin_skippable(&mut self) -> Skippable<'ctx> {
        let any = self.any(self.flow.mask);
        let run = self.clone.append_block("skip.run");
        let cont = self.clone.append_block("skip.cont");
        let from = self.b.current_block();
        self.b.cond_br(any, run, cont);
        self.b.position_at_end(run);
        Skippable { from, cont, splats: self.values.splats.keys().copied().collect() }
    }

    /// Ends a skippable block `b`: its values reach later blocks through
    /// phis (poison where it was skipped: no lane that uses them was in
    /// it), and splats made inside it are forgotten.
    fn end_skippable(&mut self, skip: Skippable<'ctx>, b: Block<'ctx>) {
        let end = self.b.current_block();
        self.b.br(skip.cont);
        self.b.position_at_end(skip.cont);
        for i in b.instructions() {
            if i.opcode() == LLVMPHI || i.ty().is_void() {
                continue;
            }
            let Some(v) = self.values.vmap.get(&i).copied() else { continue };
            if !v.is_instruction() {
                continue;
            }
            let p = self.b.phi(v.ty());
            p.add_incoming(v, end);
            p.add_incoming(self.inactive_lane_value(v.ty()), skip.from);
            self.values.vmap.insert(i, p);
        }
        self.values.splats.retain(|k, _| skip.splats.contains(k));
    }

    /// Emits the region of a uniform branch inside a linear level with real
    /// control flow; the chain continues in a fresh block where the paths meet.
    fn emit_uniform_region(
        &mut self,
        level: Option<LoopId>,
        head: Block<'ctx>,
        region: &UniformRegion<'ctx>,
    ) -> Result<()> {
        let join = self.clone.append_block("uniform.join");
        let mut frame = Frame {
            level,
            real: true,
            blocks: HashMap::new(),
            loop_entry: HashMap::new(),
            after: None,
            escape: Some(join),
        };
        for b in &region.blocks {
            frame.blocks.insert(*b, self.clone.append_block(&b.name()));
        }
        frame.blocks.insert(region.join, join);
        self.flow.frames.push(frame);
        self.emit_real_terminator(head)?;
        for b in &region.blocks {
            let cb = self.flow.frames.last().expect("frame").blocks[b];
            self.b.position_at_end(cb);
            self.begin_block(*b);
            self.emit_body(*b)?;
            self.emit_real_terminator(*b)?;
        }
        self.flow.frames.pop();
        self.stats.uniform_regions += 1;
        self.b.position_at_end(join);
        Ok(())
    }

    /// Emits a child loop. In a linear parent (or for divergent loops) the
    /// emission ends at a fresh block where the parent continues.
    fn emit_loop(&mut self, l: LoopId, parent_real: bool) -> Result<()> {
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
        self.b.position_at_end(pre);
        if divergent {
            self.stats.divergent_loops += 1;
            self.stats.linearized_levels += 1;
            let saved_full = self.flow.full;
            self.flow.full = false;
            let top = self.clone.append_block("loop.top");
            self.b.br(top);
            self.b.position_at_end(top);
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
        for (q, p) in from_header {
            self.flow.from_header.remove(&q);
            let v = self.b.load(self.mapped_type(p), self.flow.phi_slots[&p], 0);
            self.b.store(v, self.flow.phi_slots[&q], 0);
        }
        Ok(())
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
    fn hold_header_phis(&mut self, header: Block<'ctx>) {
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

    /// Emits a real level: its blocks keep their (uniform) branches.
    fn emit_real(&mut self, level: Option<LoopId>, after: Option<Block<'ctx>>) -> Result<()> {
        let nodes = self.analyses.plan.levels[&level].nodes.clone();
        // A real level inside a linear one escapes to where the linear one
        // continues; one inside a real level escapes where its parent does.
        let escape = after.or_else(|| self.flow.frames.last().and_then(|f| f.escape));
        let mut frame = Frame { level, real: true, blocks: HashMap::new(), loop_entry: HashMap::new(), after, escape };
        for n in &nodes {
            match n {
                Node::Block(b) => {
                    frame.blocks.insert(*b, self.clone.append_block(&b.name()));
                }
                Node::Loop(l) => {
                    frame.loop_entry.insert(*l, self.clone.append_block("loop.node"));
                }
            }
        }
        let first = match nodes[0] {
            Node::Block(b) => frame.blocks[&b],
            Node::Loop(l) => frame.loop_entry[&l],
        };
        self.b.br(first);
        self.flow.frames.push(frame);
        for node in nodes {
            match node {
                Node::Block(b) => {
                    let cb = self.flow.frames.last().expect("frame").blocks[&b];
                    self.b.position_at_end(cb);
                    self.begin_block(b);
                    self.emit_body(b)?;
                    self.emit_real_terminator(b)?;
                }
                Node::Loop(l) => {
                    let start = self.flow.frames.last().expect("frame").loop_entry[&l];
                    self.b.position_at_end(start);
                    let divergent = self.analyses.plan.is_divergent(l);
                    if divergent {
                        // The exit's slots are empty; the loop's lanes gather there.
                        for t in node_targets(self.analyses.cfg, self.analyses.loops, level, Node::Loop(l)) {
                            match t {
                                Target::Node(Node::Block(x)) => self.reset_slots(x),
                                Target::Node(Node::Loop(m)) => self.reset_slots(self.analyses.loops.loops[m.0].header),
                                Target::Back | Target::Exit(_) => {}
                            }
                        }
                    }
                    self.emit_loop(l, true)?;
                    if divergent {
                        // A divergent loop in a real level has one target (else the level would split).
                        let exits = exit_blocks(self.analyses.cfg, self.analyses.loops, l);
                        match exits.first() {
                            Some(x) => {
                                let d = self.dest(*x);
                                self.b.br(d);
                            }
                            None => {
                                self.b.unreachable();
                            }
                        }
                    }
                }
            }
        }
        self.flow.frames.pop();
        Ok(())
    }

    /// Clone block that an edge to scalar block `s` leads to, from the top frame (real).
    fn dest(&self, s: Block<'ctx>) -> Block<'ctx> {
        self.resolve_edge(s).0
    }

    /// [`Self::dest`], and whether control enters `s` right there (a block
    /// or loop of a real level, or a back edge), so no other edge can have
    /// written `s`'s slots since `s` last ran. Edges to a linear level (out
    /// of a loop, or to the join of a uniform region, which the linear level
    /// runs later) may meet lanes from other edges there.
    fn resolve_edge(&self, s: Block<'ctx>) -> (Block<'ctx>, bool) {
        let mut i = self.flow.frames.len() - 1;
        loop {
            let f = &self.flow.frames[i];
            match classify(self.analyses.loops, f.level, s) {
                Target::Node(Node::Block(b)) => {
                    let d = f.blocks[&b];
                    return (d, f.escape != Some(d));
                }
                Target::Node(Node::Loop(l)) => return (f.loop_entry[&l], true),
                Target::Back => {
                    let h = self.analyses.loops.loops[f.level.expect("back edges are in loops").0].header;
                    return (f.blocks[&h], true);
                }
                Target::Exit(_) => {
                    let parent = &self.flow.frames[i - 1];
                    if !parent.real {
                        return (f.after.expect("loops in linear levels have an after block"), false);
                    }
                    i -= 1;
                }
            }
        }
    }

    fn emit_real_terminator(&mut self, b: Block<'ctx>) -> Result<()> {
        let term = b.terminator().expect("blocks have terminators");
        match term.opcode() {
            LLVMRet => {
                let v = (term.num_operands() > 0).then(|| self.abi_value(term.operand(0)));
                self.resolve_doomed();
                self.b.ret(v);
                return Ok(());
            }
            LLVMUnreachable => {
                // Lanes here are doomed (a deferred `noreturn` call) or in
                // undefined behaviour: they vanish. Where other lanes may be
                // elsewhere, go on with them; else make the lowest doomed
                // lane's call now.
                match self.flow.frames.last().and_then(|f| f.escape) {
                    Some(escape) => {
                        self.b.br(escape);
                    }
                    None => {
                        self.resolve_doomed();
                        self.b.unreachable();
                    }
                }
                return Ok(());
            }
            LLVMBr | LLVMSwitch => {}
            _ => return Err(self.missed_by_legality(format!("terminator `{}`", term.print()))),
        }
        let from = self.b.current_block();
        // One edge block per distinct successor: writes the edge, then jumps.
        let mut edges: Vec<(Block, Block)> = Vec::new();
        for s in term.successors() {
            if edges.iter().any(|(t, _)| *t == s) {
                continue;
            }
            let e = self.clone.append_block("edge");
            self.b.position_at_end(e);
            let (d, immediate) = self.resolve_edge(s);
            if immediate {
                // `s`'s slots are empty (see `slot_resets`).
                self.reset_slots(s);
            }
            self.write_edge(b, s, self.flow.mask);
            self.b.br(d);
            edges.push((s, e));
        }
        self.b.position_at_end(from);
        let edge_of = |s: Block<'ctx>| edges.iter().find(|(t, _)| *t == s).expect("edge exists").1;
        // Without a known-full mask, no lane may be active here and the
        // uniform condition may be poison (computed for no lane): freeze it.
        let cond = branch_condition(term).map(|c| {
            let c = self.uniform_value(c);
            if self.flow.full {
                c
            } else {
                self.b.freeze(c)
            }
        });
        match term.opcode() {
            LLVMBr if term.is_conditional() && term.successors()[0] != term.successors()[1] => {
                let c = cond.expect("conditional");
                let s = term.successors();
                self.b.cond_br(c, edge_of(s[0]), edge_of(s[1]));
            }
            LLVMSwitch if edges.len() > 1 => {
                let x = cond.expect("switch condition");
                let cases = term.switch_cases();
                let sw = self.b.switch(x, edge_of(term.switch_default()), cases.len() as u32);
                for (val, dest) in cases {
                    self.b.add_case(sw, val, edge_of(dest));
                }
            }
            _ => {
                self.b.br(edges[0].1);
            }
        }
        Ok(())
    }
}

/// Whether `t` is a vector of integers: values Enzyme does not
/// differentiate, whose loop-carried vector `select`s its reverse mode
/// accepts (`--for-autodiff` keeps them as vector blends).
fn is_integer_vector(t: Type) -> bool {
    t.is_vector() && t.element().kind() == crate::llvm::LLVMTypeKind::LLVMIntegerTypeKind
}

/// The weight (instructions, with calls, divisions and memory accesses
/// counting extra) from which a block of a linear level is skipped when no
/// lane is in it.
const SKIP_WEIGHT: u32 = 16;

/// A block being emitted behind an any-lane test.
struct Skippable<'ctx> {
    /// The block that tests.
    from: Block<'ctx>,
    /// Where both paths meet.
    cont: Block<'ctx>,
    /// The splats made before the block.
    splats: HashSet<Value<'ctx>>,
}
