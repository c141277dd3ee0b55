//! Dominator tree over the reachable CFG (Cooper, Harvey & Kennedy, "A
//! Simple, Fast Dominance Algorithm", 2001), iterated in reverse post-order.

use super::cfg::Cfg;
use crate::llvm::Block;
use std::collections::HashMap;

/// Immediate dominators of the reachable blocks.
#[derive(Debug, Clone)]
pub struct Dominators {
    idom: HashMap<Block, Block>,
    order: HashMap<Block, usize>,
}

impl Dominators {
    /// Computes the dominator tree of a CFG.
    pub fn new(cfg: &Cfg) -> Dominators {
        let order: HashMap<Block, usize> = cfg.rpo.iter().enumerate().map(|(i, b)| (*b, i)).collect();
        let entry = cfg.rpo[0];
        let mut idom: HashMap<Block, Block> = HashMap::from([(entry, entry)]);
        let intersect = |idom: &HashMap<Block, Block>, mut a: Block, mut b: Block| {
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
    pub fn idom(&self, b: Block) -> Option<Block> {
        self.idom.get(&b).copied().filter(|d| *d != b)
    }

    /// Whether `a` dominates `b` (every block dominates itself).
    pub fn dominates(&self, a: Block, mut b: Block) -> bool {
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
