//! Interleaved integer add reductions over vectors, merged into one.
//!
//! clang's loop vectorizer interleaves a reduction: `count_below`'s
//! `c += a[j] < x` becomes four `<8 x i32>` accumulators, each updated
//! with `add` every trip and summed after the loop. Batched at `N` lanes
//! each accumulator is `N` registers (element-major `<N·8 x i32>`), so the
//! four need 32 AVX2 registers at 8 lanes and the clone's loop spills and
//! reloads most of them every trip. Wrapping integer `add` is associative
//! and commutative, so the sum after the loop is the same when the trip's
//! `k` increments are added first and then to one accumulator:
//!
//! ```text
//!   %p1 = phi [0, %pre], [%a1, %latch] ... %pk = phi [0, %pre], [%ak, %latch]
//!   %a1 = add %p1, %x1  ...  %ak = add %pk, %xk
//!   exit: %r = add (add %a2, %a1), ... %ak      ; every a_i once
//! ```
//!
//! becomes `%p1 = phi [0, %pre], [%a, %latch]`, `%a = add %p1, (%x1 + ... + %xk)`
//! and `%r` replaced by `%a`. Only on the scratch copy that is batched;
//! only for vector phis (scalar accumulators are one register each once
//! batched); only where each phi starts at zero and feeds only its `add`,
//! each `add` feeds only its phi and a tree of `add`s that sums all `k`,
//! the tree sits in the loop's only exit block, whose only predecessor is
//! the latch. The result is bit for bit the same (no `nsw`/`nuw` on the
//! new `add`s).

use crate::llvm::LLVMOpcode::*;
use crate::llvm::{constant, Block, Builder, Value};
use std::collections::HashSet;

/// How many times `v` is an operand of `user`.
fn uses_in(user: Value, v: Value) -> usize {
    user.operands().iter().filter(|o| **o == v).count()
}

/// The blocks of `f` that branch to `b`.
fn predecessors<'ctx>(f: Value<'ctx>, b: Block<'ctx>) -> Vec<Block<'ctx>> {
    f.blocks().into_iter().filter(|p| p.terminator().is_some_and(|t| t.successors().contains(&b))).collect()
}

/// One accumulator: the header phi and its update.
struct Acc<'ctx> {
    phi: Value<'ctx>,
    add: Value<'ctx>,
    x: Value<'ctx>,
}

/// The accumulator of phi `p` (in a block with the two incoming blocks
/// `pre` and `latch`), if it has the shape above.
fn accumulator<'ctx>(p: Value<'ctx>) -> Option<(Acc<'ctx>, Block<'ctx>, Block<'ctx>)> {
    let ty = p.ty();
    if !(ty.is_vector() && ty.element().kind() == crate::llvm::LLVMTypeKind::LLVMIntegerTypeKind) {
        return None;
    }
    let inc = p.incoming();
    if inc.len() != 2 {
        return None;
    }
    let zero = constant::null(ty);
    let ((init, pre), (add, latch)) = if inc[0].0 == zero { (inc[0], inc[1]) } else { (inc[1], inc[0]) };
    if init != zero || !add.is_instruction() || add.opcode() != LLVMAdd {
        return None;
    }
    let users = p.users();
    if users.len() != 1 || users[0] != add || uses_in(add, p) != 1 {
        return None;
    }
    let x = if add.operand(0) == p { add.operand(1) } else { add.operand(0) };
    Some((Acc { phi: p, add, x }, pre, latch))
}

/// Merges the interleaved add reductions of `f` (see the module comment);
/// returns how many groups were merged.
pub fn merge_interleaved_adds(f: Value<'_>) -> usize {
    let mut merged = 0;
    for h in f.blocks() {
        let phis: Vec<Value> = h.instructions().into_iter().take_while(|i| i.opcode() == LLVMPHI).collect();
        let mut accs = Vec::new();
        let mut edges = None;
        for p in phis {
            if let Some((a, pre, latch)) = accumulator(p) {
                // One group per header: the first accumulator's edges and type.
                if edges.is_none() {
                    edges = Some((pre, latch, p.ty()));
                }
                if edges == Some((pre, latch, p.ty())) {
                    accs.push(a);
                }
            }
        }
        let Some((_, latch, _)) = edges else { continue };
        if accs.len() >= 2 && merge_group(f, h, latch, &accs) {
            merged += 1;
        }
    }
    merged
}

/// Merges one group if its adds are summed by one tree in the loop's exit.
fn merge_group<'ctx>(f: Value<'ctx>, header: Block<'ctx>, latch: Block<'ctx>, accs: &[Acc<'ctx>]) -> bool {
    let Some(term) = latch.terminator() else { return false };
    let succ = term.successors();
    if succ.len() != 2 || !succ.contains(&header) {
        return false;
    }
    let exit = if succ[0] == header { succ[1] } else { succ[0] };
    if exit == header || predecessors(f, exit) != vec![latch] {
        return false;
    }
    if accs.iter().any(|a| a.add.parent_block() != latch && a.add.parent_block() != header) {
        return false;
    }
    // Each add: its phi and exactly one `add` in the exit block.
    let leaves: HashSet<Value> = accs.iter().map(|a| a.add).collect();
    let mut tree: Vec<Value> = Vec::new();
    let mut in_tree: HashSet<Value> = HashSet::new();
    for a in accs {
        let users = a.add.users();
        if users.len() != 2 || uses_in(a.phi, a.add) != 1 {
            return false;
        }
        let t = if users[0] == a.phi { users[1] } else { users[0] };
        if t.opcode() != LLVMAdd || t.parent_block() != exit || uses_in(t, a.add) != 1 {
            return false;
        }
        // Walk up from `t` while the node feeds one tree add.
        let mut node = t;
        loop {
            if in_tree.insert(node) {
                tree.push(node);
            }
            let us = node.users();
            if us.len() == 1 && us[0].opcode() == LLVMAdd && us[0].parent_block() == exit && uses_in(us[0], node) == 1 {
                let up = us[0];
                let ops_in = up
                    .operands()
                    .iter()
                    .all(|o| leaves.contains(o) || in_tree.contains(o) || is_tree_add(*o, &leaves, exit));
                if ops_in {
                    node = up;
                    continue;
                }
            }
            break;
        }
    }
    // Exactly one root, whose operands (transitively) are every leaf once.
    let roots: Vec<Value> = tree.iter().copied().filter(|t| !t.users().iter().any(|u| in_tree.contains(u))).collect();
    if roots.len() != 1 {
        return false;
    }
    let root = roots[0];
    if tree.iter().any(|t| *t != root && (t.users().len() != 1 || !in_tree.contains(&t.users()[0]))) {
        return false;
    }
    let mut seen_leaves = Vec::new();
    if !collect_leaves(root, &leaves, &in_tree, &mut seen_leaves) {
        return false;
    }
    if seen_leaves.len() != leaves.len() || seen_leaves.iter().collect::<HashSet<_>>().len() != leaves.len() {
        return false;
    }
    // Build the merged update at the end of the latch.
    let b = Builder::new(term.ty().context());
    b.position_before(term);
    let mut s = accs[0].x;
    for a in &accs[1..] {
        s = b.binop(LLVMAdd, s, a.x);
    }
    let first = &accs[0];
    let acc = b.binop(LLVMAdd, first.phi, s);
    acc.set_name("acc.merged");
    for (k, (_, blk)) in first.phi.incoming().iter().enumerate() {
        if *blk == latch {
            first.phi.set_operand(k as u32, acc);
        }
    }
    root.replace_all_uses_with(acc);
    // The old tree and accumulators are dead now: the tree's nodes go
    // once unused (the root first), then the other phis and the adds.
    let mut left = tree;
    while let Some(k) = left.iter().position(|t| t.users().is_empty()) {
        left.swap_remove(k).erase();
    }
    debug_assert!(left.is_empty(), "every tree node had one use inside the tree");
    for a in accs {
        if a.phi != first.phi {
            a.phi.replace_all_uses_with(constant::poison(a.phi.ty()));
            a.phi.erase();
        }
        a.add.replace_all_uses_with(constant::poison(a.add.ty()));
        a.add.erase();
    }
    true
}

/// Whether `v` is an `add` in `exit` whose operands are leaves or such adds.
fn is_tree_add(v: Value, leaves: &HashSet<Value>, exit: Block) -> bool {
    v.is_instruction()
        && v.opcode() == LLVMAdd
        && v.parent_block() == exit
        && v.operands().iter().all(|o| leaves.contains(o) || is_tree_add(*o, leaves, exit))
}

/// The leaves under tree node `v`, each occurrence once; false if some
/// operand is neither a leaf nor a tree node.
fn collect_leaves<'ctx>(
    v: Value<'ctx>,
    leaves: &HashSet<Value<'ctx>>,
    tree: &HashSet<Value<'ctx>>,
    out: &mut Vec<Value<'ctx>>,
) -> bool {
    for o in v.operands() {
        if leaves.contains(&o) {
            out.push(o);
        } else if tree.contains(&o) {
            if !collect_leaves(o, leaves, tree, out) {
                return false;
            }
        } else {
            return false;
        }
    }
    true
}
