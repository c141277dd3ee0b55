//! Control-flow graph of a function: reachable blocks in reverse post-order,
//! successors and predecessors. Unreachable blocks are left out.

use crate::llvm::{Block, Value};
use std::collections::{HashMap, HashSet};

/// The CFG of one function.
#[derive(Debug, Clone)]
pub struct Cfg<'ctx> {
    /// Reachable blocks in reverse post-order (entry first).
    pub rpo: Vec<Block<'ctx>>,
    /// Successors of each reachable block, in terminator order.
    pub succs: HashMap<Block<'ctx>, Vec<Block<'ctx>>>,
    /// Reachable predecessors of each reachable block (deduplicated).
    pub preds: HashMap<Block<'ctx>, Vec<Block<'ctx>>>,
}

impl<'ctx> Cfg<'ctx> {
    /// Computes the CFG of a function with a body.
    pub fn new(f: Value<'ctx>) -> Cfg<'ctx> {
        let blocks = f.blocks();
        let entry = blocks[0];
        let succ_of = |b: Block<'ctx>| b.terminator().map(|t| t.successors()).unwrap_or_default();
        // Iterative DFS for post-order.
        let mut post = Vec::new();
        let mut seen = HashSet::from([entry]);
        let mut stack = vec![(entry, succ_of(entry), 0usize)];
        let mut succs = HashMap::new();
        while let Some((b, ss, i)) = stack.last_mut() {
            if *i < ss.len() {
                let s = ss[*i];
                *i += 1;
                if seen.insert(s) {
                    let s_succ = succ_of(s);
                    stack.push((s, s_succ, 0));
                }
            } else {
                succs.insert(*b, ss.clone());
                post.push(*b);
                stack.pop();
            }
        }
        post.reverse();
        let mut preds: HashMap<Block, Vec<Block>> = post.iter().map(|b| (*b, Vec::new())).collect();
        for b in &post {
            for s in &succs[b] {
                let p = preds.get_mut(s).expect("successor of a reachable block is reachable");
                // Blocks are visited in order, so a repeated edge (a
                // `switch` with several cases to one block) is the last one.
                if p.last() != Some(b) {
                    p.push(*b);
                }
            }
        }
        Cfg { rpo: post, succs, preds }
    }
}
