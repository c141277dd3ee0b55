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
//! The function is first demoted to memory (LLVM's `reg2mem`: no phis, no
//! value used outside its block except through a stack slot), so a block
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
    let g = Graph::of(f);
    g.find_irreducible().is_some()
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
        while let Some((b, k)) = stack.pop() {
            let succs = successors(b);
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
            post.iter().map(|b| successors(*b).iter().filter_map(|s| index.get(s).copied()).collect()).collect();
        let mut preds = vec![Vec::new(); post.len()];
        for (i, ss) in succs.iter().enumerate() {
            for &s in ss {
                if !preds[s].contains(&i) {
                    preds[s].push(i);
                }
            }
        }
        Graph { blocks: post, succs, preds }
    }

    /// The first cycle found (outermost first) with several entries: its
    /// blocks and its entries in reverse post-order.
    fn find_irreducible(&self) -> Option<(Vec<usize>, Vec<usize>)> {
        let mut work: Vec<Vec<usize>> = vec![(0..self.blocks.len()).collect()];
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
        let n = self.blocks.len();
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
/// only by each other: after `reg2mem`, values cross blocks through memory).
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
