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
use std::collections::HashMap;

/// Index of a loop in [`Loops::loops`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LoopId(pub usize);

/// One natural loop.
#[derive(Debug, Clone)]
pub struct Loop<'ctx> {
    /// The header: target of the back edges.
    pub header: Block<'ctx>,
    /// How many blocks the loop has, nested loops included ([`Loops::contains`]
    /// tells which).
    pub size: usize,
    /// The loop's interval in a walk of the loop tree: loop `m` is `self`
    /// or nested in it iff `m`'s interval lies in this one.
    tree_in: usize,
    tree_out: usize,
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
    ///
    /// Near-linear in the blocks and edges, whatever the nesting depth:
    /// headers are taken innermost first (reverse post-order), and the walk
    /// back from a loop's latches steps over each loop found inside it in
    /// one step, from its header (a union-find of headers), as LLVM's loop
    /// analysis does. A block belongs to the loop that claimed it first,
    /// its innermost one.
    pub fn new(cfg: &Cfg<'ctx>, dom: &Dominators<'ctx>) -> Result<Loops<'ctx>, Irreducible<'ctx>> {
        let n = cfg.rpo.len();
        let order: HashMap<Block, usize> = cfg.rpo.iter().enumerate().map(|(i, b)| (*b, i)).collect();
        // Retreating edges (to a block at or before the source in reverse
        // post-order); each must go to a block that dominates its source.
        let mut latches: Vec<Vec<usize>> = vec![Vec::new(); n];
        for (i, b) in cfg.rpo.iter().enumerate() {
            for s in &cfg.succs[b] {
                let j = order[s];
                if j <= i {
                    if !dom.dominates(*s, *b) {
                        return Err(Irreducible { block: *s });
                    }
                    latches[j].push(i);
                }
            }
        }
        // Loop bodies, innermost first. `rep[b]`: the header of the
        // outermost loop found so far that holds `b` (`b` if none).
        let mut rep: Vec<usize> = (0..n).collect();
        let mut owner: Vec<Option<usize>> = vec![None; n]; // innermost loop, by discovery index
        let mut found: Vec<(usize, Option<usize>, usize)> = Vec::new(); // (header, parent, own blocks)
        let mut loop_of_header: Vec<Option<usize>> = vec![None; n];
        fn find(rep: &mut [usize], mut b: usize) -> usize {
            while rep[b] != b {
                rep[b] = rep[rep[b]];
                b = rep[b];
            }
            b
        }
        for h in (0..n).rev().filter(|h| !latches[*h].is_empty()) {
            let id = found.len();
            found.push((h, None, 1));
            owner[h] = Some(id);
            loop_of_header[h] = Some(id);
            let mut work: Vec<usize> = latches[h].clone();
            while let Some(b) = work.pop() {
                let r = find(&mut rep, b);
                if r == h {
                    continue;
                }
                match (owner[r], loop_of_header[r]) {
                    // A loop found inside this one: step over it from its header.
                    (Some(_), Some(sub)) => {
                        found[sub].1 = Some(id);
                        rep[r] = h;
                        work.extend(cfg.preds[&cfg.rpo[r]].iter().map(|p| order[p]));
                    }
                    (None, _) => {
                        owner[r] = Some(id);
                        found[id].2 += 1;
                        rep[r] = h;
                        work.extend(cfg.preds[&cfg.rpo[r]].iter().map(|p| order[p]));
                    }
                    (Some(_), None) => unreachable!("a claimed block is represented by its loop's header"),
                }
            }
        }
        // Sizes (own blocks plus nested loops'), children found before parents.
        let mut size: Vec<usize> = found.iter().map(|f| f.2).collect();
        for k in 0..found.len() {
            if let Some(p) = found[k].1 {
                size[p] += size[k];
            }
        }
        // Outer loops first: larger first, ties by the first latch in
        // reverse post-order (emission follows this numbering).
        let mut by_size: Vec<usize> = (0..found.len()).collect();
        let first_latch = |k: usize| latches[found[k].0].iter().copied().min().unwrap_or(0);
        by_size.sort_by_key(|k| (std::cmp::Reverse(size[*k]), first_latch(*k)));
        let mut id_of = vec![0; found.len()];
        for (new, old) in by_size.iter().enumerate() {
            id_of[*old] = new;
        }
        let mut loops: Vec<Loop> = by_size
            .iter()
            .map(|k| Loop {
                header: cfg.rpo[found[*k].0],
                size: size[*k],
                tree_in: 0,
                tree_out: 0,
                parent: found[*k].1.map(|p| LoopId(id_of[p])),
                depth: 0,
                exits: Vec::new(),
            })
            .collect();
        // Depths and tree intervals (parents come first: they are larger).
        let mut children: Vec<Vec<usize>> = vec![Vec::new(); loops.len()];
        for i in 0..loops.len() {
            loops[i].depth = loops[i].parent.map_or(1, |p| loops[p.0].depth + 1);
            if let Some(p) = loops[i].parent {
                children[p.0].push(i);
            }
        }
        let mut clock = 0;
        let roots: Vec<usize> = (0..loops.len()).filter(|i| loops[*i].parent.is_none()).collect();
        for root in roots {
            let mut stack = vec![(root, 0usize)];
            while let Some((l, k)) = stack.pop() {
                if k == 0 {
                    loops[l].tree_in = clock;
                    clock += 1;
                }
                if let Some(&c) = children[l].get(k) {
                    stack.push((l, k + 1));
                    stack.push((c, 0));
                } else {
                    loops[l].tree_out = clock;
                    clock += 1;
                }
            }
        }
        let innermost: HashMap<Block, LoopId> =
            cfg.rpo.iter().enumerate().filter_map(|(i, b)| owner[i].map(|o| (*b, LoopId(id_of[o])))).collect();
        let mut out = Loops { loops, innermost };
        // Exits: per edge, every loop it leaves (those holding the source
        // but not the target), in reverse post-order of the sources, then
        // successor order.
        for b in &cfg.rpo {
            let Some(&inner) = out.innermost.get(b) else { continue };
            for s in &cfg.succs[b] {
                let mut l = Some(inner);
                while let Some(id) = l {
                    if out.contains(id, *s) {
                        break;
                    }
                    if !out.loops[id.0].exits.contains(s) {
                        out.loops[id.0].exits.push(*s);
                    }
                    l = out.loops[id.0].parent;
                }
            }
        }
        Ok(out)
    }

    /// The blocks of loop `l` (nested loops included), in reverse post-order.
    pub fn blocks_of(&self, cfg: &Cfg<'ctx>, l: LoopId) -> Vec<Block<'ctx>> {
        cfg.rpo.iter().copied().filter(|b| self.contains(l, *b)).collect()
    }

    /// Loop `l`'s span in a walk of the loop tree: loop `m` is `l` or
    /// nested in it iff `tree_span(m).start` lies in `tree_span(l)`.
    pub fn tree_span(&self, l: LoopId) -> std::ops::Range<usize> {
        self.loops[l.0].tree_in..self.loops[l.0].tree_out
    }

    /// Whether `b` is the header of a loop.
    pub fn is_header(&self, b: Block<'ctx>) -> bool {
        self.innermost.get(&b).is_some_and(|l| self.loops[l.0].header == b)
    }

    /// Whether `b` belongs to loop `l` (at any depth).
    pub fn contains(&self, l: LoopId, b: Block<'ctx>) -> bool {
        let Some(m) = self.innermost.get(&b) else { return false };
        let (outer, inner) = (&self.loops[l.0], &self.loops[m.0]);
        outer.tree_in <= inner.tree_in && inner.tree_out <= outer.tree_out
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
