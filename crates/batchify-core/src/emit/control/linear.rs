//! Linear levels: nodes in topological order under masks, blocks skipped
//! when no lane is in them, and uniform regions kept as real control flow.

use crate::analysis::divergence::{Node, UniformRegion};
use crate::analysis::loops::LoopId;
use crate::emit::state::{Frame, Widener};
use crate::error::Result;
use crate::llvm::LLVMOpcode::*;
use crate::llvm::{Block, Value};
use std::collections::{HashMap, HashSet};

impl<'ctx> Widener<'_, 'ctx> {
    /// Emits a linear level: nodes in topological order under masks.
    pub(super) fn emit_linear(&mut self, level: Option<LoopId>) -> Result<()> {
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

    /// Whether block `b` of a linear level is skipped when no lane is in
    /// it (the plan's rule, [`crate::plan::worth_skipping`]).
    fn worth_skipping(&self, level: Option<LoopId>, b: Block<'ctx>) -> bool {
        crate::plan::worth_skipping(&self.analyses.plan.levels[&level], self.analyses.recipes, b)
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
}

/// A block being emitted behind an any-lane test.
struct Skippable<'ctx> {
    /// The block that tests.
    from: Block<'ctx>,
    /// Where both paths meet.
    cont: Block<'ctx>,
    /// The splats made before the block.
    splats: HashSet<Value<'ctx>>,
}
