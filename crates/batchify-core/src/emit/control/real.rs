//! Real levels: blocks keep their (uniform) branches, through one edge
//! block per successor.

use crate::analysis::divergence::{branch_condition, classify, exit_blocks, node_targets, Node, Target};
use crate::analysis::loops::LoopId;
use crate::emit::state::{Frame, Widener};
use crate::error::Result;
use crate::llvm::Block;
use crate::llvm::LLVMOpcode::*;
use std::collections::HashMap;

impl<'ctx> Widener<'_, 'ctx> {
    /// Emits a real level: its blocks keep their (uniform) branches.
    pub(super) fn emit_real(&mut self, level: Option<LoopId>, after: Option<Block<'ctx>>) -> Result<()> {
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

    pub(super) fn emit_real_terminator(&mut self, b: Block<'ctx>) -> Result<()> {
        let term = b.terminator().expect("blocks have terminators");
        match term.opcode() {
            LLVMRet => {
                let v = (term.num_operands() > 0).then(|| self.abi_value(term.operand(0)));
                self.resolve_doomed();
                self.free_tapes();
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
