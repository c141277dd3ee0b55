//! Dominator tree over the reachable CFG (Cooper, Harvey & Kennedy, "A
//! Simple, Fast Dominance Algorithm", 2001), iterated in reverse post-order.

use super::cfg::Cfg;
use crate::llvm::Block;
use std::collections::HashMap;

/// Immediate dominators of the reachable blocks.
#[derive(Debug, Clone)]
pub struct Dominators<'ctx> {
    idom: HashMap<Block<'ctx>, Block<'ctx>>,
    order: HashMap<Block<'ctx>, usize>,
}

impl<'ctx> Dominators<'ctx> {
    /// Computes the dominator tree of a CFG.
    pub fn new(cfg: &Cfg<'ctx>) -> Dominators<'ctx> {
        let order: HashMap<Block, usize> = cfg.rpo.iter().enumerate().map(|(i, b)| (*b, i)).collect();
        let entry = cfg.rpo[0];
        let mut idom: HashMap<Block, Block> = HashMap::from([(entry, entry)]);
        let intersect = |idom: &HashMap<Block<'ctx>, Block<'ctx>>, mut a: Block<'ctx>, mut b: Block<'ctx>| {
            while a != b {
                while order[&a] > order[&b] {
                    a = idom[&a];
                }
                while order[&b] > order[&a] {
                    b = idom[&b];
                }
            }
            a
        };
        let mut changed = true;
        while changed {
            changed = false;
            for b in cfg.rpo.iter().skip(1) {
                let mut new: Option<Block> = None;
                for p in &cfg.preds[b] {
                    if idom.contains_key(p) {
                        new = Some(match new {
                            None => *p,
                            Some(n) => intersect(&idom, *p, n),
                        });
                    }
                }
                let new = new.expect("a reachable block has a processed predecessor");
                if idom.get(b) != Some(&new) {
                    idom.insert(*b, new);
                    changed = true;
                }
            }
        }
        Dominators { idom, order }
    }

    /// The immediate dominator of a reachable block (`None` for the entry).
    pub fn idom(&self, b: Block<'ctx>) -> Option<Block<'ctx>> {
        self.idom.get(&b).copied().filter(|d| *d != b)
    }

    /// Whether `a` dominates `b` (every block dominates itself).
    pub fn dominates(&self, a: Block<'ctx>, mut b: Block<'ctx>) -> bool {
        loop {
            if a == b {
                return true;
            }
            let up = self.idom[&b];
            if up == b {
                return false;
            }
            if self.order[&up] < self.order[&a] {
                return false;
            }
            b = up;
        }
    }
}
