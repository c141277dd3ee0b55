//! Node splitting: makes an irreducible control-flow graph reducible by
//! duplicating blocks, so that `goto`-style code and Enzyme's reverse-mode
//! functions are vectorized instead of getting the per-lane fallback.
//!
//! A cycle is irreducible when it has more than one *entry* (a block of the
//! cycle with a predecessor outside it). For each such cycle, found
//! outermost first on the strongly connected components of the CFG, one
//! entry `H` is kept as the header (the first in reverse post-order) and
//! every other entry `E` gets its own copy of the cycle's blocks except
//! `H`: the edges from outside the cycle into `E` go to `E`'s copy, the
//! copies branch to each other where the originals did, to the original
//! `H`, and out of the cycle as before. The original cycle is then entered
//! at `H` alone; a copy is entered at its `E` alone, and any irreducible
//! cycle left inside a copy is smaller, so repeating the step ends. Each
//! lane runs the same instructions in the same order as before, only from
//! other blocks: the scalar semantics are unchanged.
//!
//! The function is first demoted to memory ([`super::demote`], or LLVM's
//! `reg2mem` where that does not apply: no phis, no value used outside its
//! block except through a stack slot), so a block
//! copy only remaps operands within the block; the preparation pipeline's
//! `mem2reg` rebuilds SSA afterwards. Growth is bounded ([`budget`]):
//! past it the function stays irreducible and gets the fallback, which the
//! report names.
//!
//! Touches only the scratch copy it is given.

use crate::llvm::{Block, Builder, LLVMOpcode, Value};
use std::collections::HashMap;

/// Whether `f`'s CFG has a cycle with more than one entry.
pub fn is_irreducible(f: Value) -> bool {
    Graph::of(f).has_irreducible_edge()
}

/// The most instructions the function may have after splitting: four
/// times its size, plus room for small functions.
fn budget(original: usize) -> usize {
    original * 4 + 256
}

/// Makes `f` (already demoted to memory, no phis) reducible by node
/// splitting. Returns the number of blocks added; `Err` (with `f` left
/// valid but maybe partly split) when the growth budget runs out.
pub fn make_reducible(f: Value) -> Result<usize, String> {
    for b in f.blocks() {
        for i in b.instructions() {
            let plain = match i.opcode() {
                LLVMOpcode::LLVMPHI | LLVMOpcode::LLVMLandingPad => false,
                LLVMOpcode::LLVMBr | LLVMOpcode::LLVMSwitch | LLVMOpcode::LLVMRet | LLVMOpcode::LLVMUnreachable => true,
                _ => !is_terminator(i),
            };
            if !plain {
                return Err(format!(
                    "irreducible control flow around `{}`, which blocks are not copied with",
                    i.print().trim()
                ));
            }
        }
    }
    let original = instruction_count(f);
    let limit = budget(original);
    let mut added = 0;
    loop {
        remove_unreachable(f);
        let g = Graph::of(f);
        let Some((scc, entries)) = g.find_irreducible() else { return Ok(added) };
        let header = entries[0];
        let body: Vec<usize> = scc.iter().copied().filter(|b| *b != header).collect();
        for &e in &entries[1..] {
            let copies = copy_blocks(f, &body.iter().map(|b| g.blocks[*b]).collect::<Vec<_>>());
            added += copies.len();
            for &p in &g.preds[e] {
                if !scc.contains(&p) {
                    retarget(g.blocks[p], g.blocks[e], copies[&g.blocks[e]]);
                }
            }
            if instruction_count(f) > limit {
                return Err(format!(
                    "irreducible control flow: making it reducible would grow the function past {limit} \
                     instructions ({original} before)"
                ));
            }
        }
    }
}

fn is_terminator(i: Value) -> bool {
    i.parent_block().terminator() == Some(i)
}

fn instruction_count(f: Value) -> usize {
    f.blocks().iter().map(|b| b.instructions().len()).sum()
}

/// The CFG as indices: blocks in reverse post-order from the entry
/// (unreachable blocks are left out), successors and predecessors.
struct Graph<'ctx> {
    blocks: Vec<Block<'ctx>>,
    succs: Vec<Vec<usize>>,
    preds: Vec<Vec<usize>>,
}

impl<'ctx> Graph<'ctx> {
    fn of(f: Value<'ctx>) -> Graph<'ctx> {
        let all = f.blocks();
        let Some(&entry) = all.first() else { return Graph { blocks: vec![], succs: vec![], preds: vec![] } };
        // Post-order by an explicit DFS, then reversed.
        let mut seen: HashMap<Block, ()> = HashMap::new();
        let mut post = Vec::new();
        let mut stack = vec![(entry, 0usize)];
        seen.insert(entry, ());
        // Each block's successors, listed once (a `switch` has thousands).
        let mut listed: HashMap<Block, Vec<Block>> = HashMap::new();
        while let Some((b, k)) = stack.pop() {
            let succs = listed.entry(b).or_insert_with(|| successors(b));
            if k < succs.len() {
                stack.push((b, k + 1));
                let s = succs[k];
                if seen.insert(s, ()).is_none() {
                    stack.push((s, 0));
                }
            } else {
                post.push(b);
            }
        }
        post.reverse();
        let index: HashMap<Block, usize> = post.iter().enumerate().map(|(i, b)| (*b, i)).collect();
        let succs: Vec<Vec<usize>> =
            post.iter().map(|b| listed[b].iter().filter_map(|s| index.get(s).copied()).collect()).collect();
        let mut preds = vec![Vec::new(); post.len()];
        for (i, ss) in succs.iter().enumerate() {
            for &s in ss {
                // `i` grows, so a repeated edge is the last one listed.
                if preds[s].last() != Some(&i) {
                    preds[s].push(i);
                }
            }
        }
        Graph { blocks: post, succs, preds }
    }

    /// Whether some retreating edge (to a block at or before its source in
    /// reverse post-order) goes to a block that does not dominate its
    /// source: then a cycle has two entries. The same answer as
    /// [`Self::find_irreducible`] finding a cycle (both characterise
    /// reducibility of a CFG whose blocks the entry reaches), in
    /// near-linear time where that search grows with the loop nest.
    fn has_irreducible_edge(&self) -> bool {
        let n = self.succs.len();
        if n == 0 {
            return false;
        }
        // Immediate dominators by reverse post-order index (Cooper,
        // Harvey & Kennedy); a dominator comes before what it dominates.
        const NONE: usize = usize::MAX;
        let mut idom = vec![NONE; n];
        idom[0] = 0;
        let intersect = |idom: &[usize], mut a: usize, mut b: usize| {
            while a != b {
                while a > b {
                    a = idom[a];
                }
                while b > a {
                    b = idom[b];
                }
            }
            a
        };
        let mut changed = true;
        while changed {
            changed = false;
            for b in 1..n {
                let mut new = NONE;
                for &p in self.preds[b].iter().filter(|p| idom[**p] != NONE) {
                    new = if new == NONE { p } else { intersect(&idom, p, new) };
                }
                if new != idom[b] {
                    idom[b] = new;
                    changed = true;
                }
            }
        }
        let dominates = |a: usize, mut b: usize| loop {
            if a == b {
                return true;
            }
            if b == 0 {
                return false;
            }
            b = idom[b];
        };
        self.succs.iter().enumerate().any(|(i, ss)| ss.iter().any(|&s| s <= i && !dominates(s, i)))
    }

    /// The first cycle found (outermost first) with several entries: its
    /// blocks and its entries in reverse post-order.
    fn find_irreducible(&self) -> Option<(Vec<usize>, Vec<usize>)> {
        let mut work: Vec<Vec<usize>> = vec![(0..self.succs.len()).collect()];
        while let Some(region) = work.pop() {
            for scc in self.sccs(&region) {
                let cyclic = scc.len() > 1 || self.succs[scc[0]].contains(&scc[0]);
                if !cyclic {
                    continue;
                }
                let mut entries: Vec<usize> =
                    scc.iter().copied().filter(|b| self.preds[*b].iter().any(|p| !scc.contains(p))).collect();
                entries.sort_unstable();
                if entries.len() > 1 {
                    let mut scc = scc;
                    scc.sort_unstable();
                    return Some((scc, entries));
                }
                // One entry: a reducible loop with that header; look for
                // irreducible cycles inside it, without the header.
                let header = entries.first().copied().unwrap_or(scc[0]);
                work.push(scc.into_iter().filter(|b| *b != header).collect());
            }
        }
        None
    }

    /// Strongly connected components of the subgraph on `region`
    /// (Tarjan's algorithm, iterative).
    fn sccs(&self, region: &[usize]) -> Vec<Vec<usize>> {
        let inside: std::collections::HashSet<usize> = region.iter().copied().collect();
        let n = self.succs.len();
        let mut index = vec![usize::MAX; n];
        let mut low = vec![0; n];
        let mut on_stack = vec![false; n];
        let mut stack = Vec::new();
        let mut next = 0;
        let mut out = Vec::new();
        for &root in region {
            if index[root] != usize::MAX {
                continue;
            }
            let mut call = vec![(root, 0usize)];
            index[root] = next;
            low[root] = next;
            next += 1;
            stack.push(root);
            on_stack[root] = true;
            while let Some(&mut (v, ref mut k)) = call.last_mut() {
                let succs: Vec<usize> = self.succs[v].iter().copied().filter(|s| inside.contains(s)).collect();
                if *k < succs.len() {
                    let w = succs[*k];
                    *k += 1;
                    if index[w] == usize::MAX {
                        index[w] = next;
                        low[w] = next;
                        next += 1;
                        stack.push(w);
                        on_stack[w] = true;
                        call.push((w, 0));
                    } else if on_stack[w] {
                        low[v] = low[v].min(index[w]);
                    }
                } else {
                    call.pop();
                    if let Some(&(parent, _)) = call.last() {
                        low[parent] = low[parent].min(low[v]);
                    }
                    if low[v] == index[v] {
                        let mut scc = Vec::new();
                        loop {
                            let w = stack.pop().expect("v is on the stack");
                            on_stack[w] = false;
                            scc.push(w);
                            if w == v {
                                break;
                            }
                        }
                        out.push(scc);
                    }
                }
            }
        }
        out
    }
}

fn successors(b: Block) -> Vec<Block> {
    b.terminator().map(|t| t.successors()).unwrap_or_default()
}

/// Copies `blocks` to the end of their function; within the copies,
/// operands of the same block and branches to copied blocks are remapped.
/// Returns original → copy.
fn copy_blocks<'ctx>(f: Value<'ctx>, blocks: &[Block<'ctx>]) -> HashMap<Block<'ctx>, Block<'ctx>> {
    let b = Builder::new(f.function_type().context());
    let copies: HashMap<Block, Block> =
        blocks.iter().map(|o| (*o, f.append_block(&format!("{}.split", o.name())))).collect();
    for o in blocks {
        b.position_at_end(copies[o]);
        let mut map: HashMap<Value, Value> = HashMap::new();
        for i in o.instructions() {
            let c = i.clone_instruction();
            b.insert(c);
            for k in 0..c.num_operands() {
                let op = c.operand(k);
                if let Some(new) = map.get(&op) {
                    c.set_operand(k, *new);
                }
            }
            map.insert(i, c);
        }
        if let Some(t) = copies[o].terminator() {
            for (k, s) in t.successors().into_iter().enumerate() {
                if let Some(c) = copies.get(&s) {
                    t.set_successor(k as u32, *c);
                }
            }
        }
    }
    copies
}

/// Makes every edge from `from` to `old` go to `new`.
fn retarget<'ctx>(from: Block<'ctx>, old: Block<'ctx>, new: Block<'ctx>) {
    let Some(t) = from.terminator() else { return };
    for (k, s) in t.successors().into_iter().enumerate() {
        if s == old {
            t.set_successor(k as u32, new);
        }
    }
}

/// Deletes the blocks that the entry does not reach (their values are used
/// only by each other: after demotion, values cross blocks through memory).
fn remove_unreachable(f: Value) {
    let reachable: std::collections::HashSet<Block> = Graph::of(f).blocks.into_iter().collect();
    let dead: Vec<Block> = f.blocks().into_iter().filter(|b| !reachable.contains(b)).collect();
    for b in &dead {
        for i in b.instructions().into_iter().rev() {
            if !i.ty().is_void() {
                i.replace_all_uses_with(crate::llvm::constant::poison(i.ty()));
            }
            i.erase();
        }
    }
    for b in dead {
        b.delete();
    }
}

#[cfg(test)]
mod tests {
    use super::Graph;

    /// A graph of `n` nodes with `edges`, numbered in reverse post-order
    /// from node 0, keeping only the nodes node 0 reaches.
    fn graph(n: usize, edges: &[(usize, usize)]) -> Graph<'static> {
        let succ = |b: usize| edges.iter().filter(move |e| e.0 == b).map(|e| e.1);
        let mut seen = vec![false; n];
        let mut post = Vec::new();
        let mut stack = vec![(0usize, 0usize)];
        seen[0] = true;
        while let Some((b, k)) = stack.pop() {
            let ss: Vec<usize> = succ(b).collect();
            if k < ss.len() {
                stack.push((b, k + 1));
                if !seen[ss[k]] {
                    seen[ss[k]] = true;
                    stack.push((ss[k], 0));
                }
            } else {
                post.push(b);
            }
        }
        post.reverse();
        let mut index = vec![usize::MAX; n];
        for (i, b) in post.iter().enumerate() {
            index[*b] = i;
        }
        let succs: Vec<Vec<usize>> = post.iter().map(|b| succ(*b).map(|s| index[s]).collect()).collect();
        let mut preds = vec![Vec::new(); post.len()];
        for (i, ss) in succs.iter().enumerate() {
            for &s in ss {
                if !preds[s].contains(&i) {
                    preds[s].push(i);
                }
            }
        }
        Graph { blocks: Vec::new(), succs, preds }
    }

    #[test]
    fn the_dominance_test_agrees_with_the_cycle_search() {
        // Small random CFGs (xorshift), many of them irreducible.
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = |m: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % m as u64) as usize
        };
        let mut irreducible = 0;
        for _ in 0..5000 {
            let n = 1 + next(9);
            // No edge into node 0: an LLVM entry block has no predecessors.
            let edges: Vec<(usize, usize)> =
                (0..next(3 * n + 1)).map(|_| (next(n), next(n))).filter(|e| e.1 != 0).collect();
            let g = graph(n, &edges);
            let found = g.find_irreducible().is_some();
            assert_eq!(g.has_irreducible_edge(), found, "edges {edges:?}");
            irreducible += found as usize;
        }
        assert!(irreducible > 200, "only {irreducible} irreducible graphs: the test says little");
    }

    #[test]
    fn two_entries_into_a_cycle_are_irreducible() {
        // 0 -> 1, 0 -> 2, 1 <-> 2
        assert!(graph(3, &[(0, 1), (0, 2), (1, 2), (2, 1)]).has_irreducible_edge());
        // A loop with one entry: 0 -> 1 -> 2 -> 1
        assert!(!graph(3, &[(0, 1), (1, 2), (2, 1)]).has_irreducible_edge());
    }
}
