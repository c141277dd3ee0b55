//! Natural loops and their nesting, from back edges (an edge whose target
//! dominates its source). A retreating edge whose target does not dominate
//! its source means the CFG is irreducible, which the transform reports and
//! handles with its per-lane fallback.
//!
//! Expects loop-simplified input (one latch, a preheader, dedicated exits),
//! which the preparation stage provides.

use super::cfg::Cfg;
use super::dominance::Dominators;
use crate::llvm::Block;
use std::collections::{HashMap, HashSet};

/// Index of a loop in [`Loops::loops`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LoopId(pub usize);

/// One natural loop.
#[derive(Debug, Clone)]
pub struct Loop<'ctx> {
    /// The header: target of the back edges.
    pub header: Block<'ctx>,
    /// Every block of the loop, nested loops included.
    pub blocks: HashSet<Block<'ctx>>,
    /// Innermost enclosing loop.
    pub parent: Option<LoopId>,
    /// Depth: 1 for outermost loops.
    pub depth: u32,
    /// Exit blocks: blocks outside the loop with a predecessor inside, in
    /// reverse post-order of those predecessors, then successor order.
    pub exits: Vec<Block<'ctx>>,
}

/// All loops of a function.
#[derive(Debug, Clone, Default)]
pub struct Loops<'ctx> {
    /// The loops, outer loops before inner ones.
    pub loops: Vec<Loop<'ctx>>,
    /// Innermost loop of each block (absent: not in a loop).
    pub innermost: HashMap<Block<'ctx>, LoopId>,
}

/// The CFG is irreducible: a cycle has more than one entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Irreducible<'ctx> {
    /// Target of the offending retreating edge.
    pub block: Block<'ctx>,
}

impl<'ctx> Loops<'ctx> {
    /// Finds the loops of a reachable CFG.
    pub fn new(cfg: &Cfg<'ctx>, dom: &Dominators<'ctx>) -> Result<Loops<'ctx>, Irreducible<'ctx>> {
        // Retreating edges via DFS colouring: an edge to a block on the stack.
        let order: HashMap<Block, usize> = cfg.rpo.iter().enumerate().map(|(i, b)| (*b, i)).collect();
        let mut headers: Vec<(Block, Vec<Block>)> = Vec::new();
        let mut header_index: HashMap<Block, usize> = HashMap::new();
        for b in &cfg.rpo {
            for s in &cfg.succs[b] {
                if order[s] <= order[b] {
                    if !dom.dominates(*s, *b) {
                        return Err(Irreducible { block: *s });
                    }
                    match header_index.get(s) {
                        Some(&k) => headers[k].1.push(*b),
                        None => {
                            header_index.insert(*s, headers.len());
                            headers.push((*s, vec![*b]));
                        }
                    }
                }
            }
        }
        let mut loops: Vec<Loop> = Vec::new();
        for (h, latches) in headers {
            let mut blocks = HashSet::from([h]);
            let mut work = latches.clone();
            while let Some(b) = work.pop() {
                if blocks.insert(b) {
                    for p in &cfg.preds[&b] {
                        work.push(*p);
                    }
                }
            }
            loops.push(Loop { header: h, blocks, parent: None, depth: 0, exits: Vec::new() });
        }
        // Outer loops first: a loop strictly contains the loops nested in
        // it, so it is larger. Visiting in that order, the innermost loop
        // seen so far at a header is the parent of the loop it heads; the
        // last loop to claim a block is the block's innermost loop.
        loops.sort_by_key(|l| std::cmp::Reverse(l.blocks.len()));
        let mut innermost: HashMap<Block, LoopId> = HashMap::new();
        for i in 0..loops.len() {
            let parent = innermost.get(&loops[i].header).copied();
            loops[i].parent = parent;
            loops[i].depth = parent.map_or(1, |p| loops[p.0].depth + 1);
            for b in &loops[i].blocks {
                innermost.insert(*b, LoopId(i));
            }
        }
        for l in &mut loops {
            let mut inside: Vec<Block> = l.blocks.iter().copied().collect();
            inside.sort_by_key(|b| order[b]);
            for b in inside {
                for s in &cfg.succs[&b] {
                    if !l.blocks.contains(s) && !l.exits.contains(s) {
                        l.exits.push(*s);
                    }
                }
            }
        }
        Ok(Loops { loops, innermost })
    }

    /// Whether `b` is the header of a loop.
    pub fn is_header(&self, b: Block<'ctx>) -> bool {
        self.innermost.get(&b).is_some_and(|l| self.loops[l.0].header == b)
    }

    /// Whether `b` belongs to loop `l` (at any depth).
    pub fn contains(&self, l: LoopId, b: Block<'ctx>) -> bool {
        self.loops[l.0].blocks.contains(&b)
    }

    /// The child of `level` (or a top-level loop for `None`) that contains `b`,
    /// if `b` is nested below `level`.
    pub fn child_containing(&self, level: Option<LoopId>, b: Block<'ctx>) -> Option<LoopId> {
        let mut l = *self.innermost.get(&b)?;
        loop {
            let p = self.loops[l.0].parent;
            if p == level {
                return Some(l);
            }
            l = p?;
        }
    }
}
