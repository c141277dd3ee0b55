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
pub struct Loop {
    /// The header: target of the back edges.
    pub header: Block,
    /// Every block of the loop, nested loops included.
    pub blocks: HashSet<Block>,
    /// Innermost enclosing loop.
    pub parent: Option<LoopId>,
    /// Depth: 1 for outermost loops.
    pub depth: u32,
}

/// All loops of a function.
#[derive(Debug, Clone, Default)]
pub struct Loops {
    /// The loops, outer loops before inner ones.
    pub loops: Vec<Loop>,
    /// Innermost loop of each block (absent: not in a loop).
    pub innermost: HashMap<Block, LoopId>,
}

/// The CFG is irreducible: a cycle has more than one entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Irreducible {
    /// Target of the offending retreating edge.
    pub block: Block,
}

impl Loops {
    /// Finds the loops of a reachable CFG.
    pub fn new(cfg: &Cfg, dom: &Dominators) -> Result<Loops, Irreducible> {
        // Retreating edges via DFS colouring: an edge to a block on the stack.
        let order: HashMap<Block, usize> = cfg.rpo.iter().enumerate().map(|(i, b)| (*b, i)).collect();
        let mut headers: Vec<(Block, Vec<Block>)> = Vec::new();
        for b in &cfg.rpo {
            for s in &cfg.succs[b] {
                if order[s] <= order[b] {
                    if !dom.dominates(*s, *b) {
                        return Err(Irreducible { block: *s });
                    }
                    match headers.iter_mut().find(|(h, _)| h == s) {
                        Some((_, latches)) => latches.push(*b),
                        None => headers.push((*s, vec![*b])),
                    }
                }
            }
        }
        // An edge to a block that is not earlier in RPO but closes a cycle
        // would also be irreducible; RPO of a reducible graph sees every
        // back edge as retreating, so check that no cycle escapes detection.
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
            loops.push(Loop { header: h, blocks, parent: None, depth: 0 });
        }
        // Outer loops first: larger loops contain smaller ones.
        loops.sort_by_key(|l| std::cmp::Reverse(l.blocks.len()));
        for i in 0..loops.len() {
            let parent = (0..i).rev().find(|&j| loops[j].blocks.contains(&loops[i].header));
            loops[i].parent = parent.map(LoopId);
            loops[i].depth = parent.map_or(1, |p| loops[p].depth + 1);
        }
        let mut innermost = HashMap::new();
        for (i, l) in loops.iter().enumerate() {
            for b in &l.blocks {
                // Later loops are nested deeper (or disjoint).
                innermost.insert(*b, LoopId(i));
            }
        }
        Ok(Loops { loops, innermost })
    }

    /// Whether `b` belongs to loop `l` (at any depth).
    pub fn contains(&self, l: LoopId, b: Block) -> bool {
        self.loops[l.0].blocks.contains(&b)
    }

    /// The child of `level` (or a top-level loop for `None`) that contains `b`,
    /// if `b` is nested below `level`.
    pub fn child_containing(&self, level: Option<LoopId>, b: Block) -> Option<LoopId> {
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
