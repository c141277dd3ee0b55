//! Promotion of the emitter's stack slots (masks, phi values, the return
//! value) to SSA values, in time linear in the clone's size.
//!
//! The emitter keeps every block's mask and every phi's value in an entry
//! block `alloca` and leaves SSA construction to this step. LLVM's `mem2reg`
//! would do it too, but it finds where a slot needs phis by walking the
//! dominator subtree of every block that stores to it: slots written in a
//! long chain of loops (each loop's exit masks, its header's phis) make that
//! quadratic in the number of loops (1,000 sequential divergent loops:
//! 9.5 s). Here the dominance frontiers are computed once, and each slot's
//! phis are the closure of its stores' frontiers (Cytron et al., "Efficiently
//! computing static single assignment form", 1991), which stays local to
//! the loops that write the slot. Phis that turn out unused or trivial are
//! removed afterwards, so the result is what `mem2reg` gives.
//!
//! Touches only the clone's body: the promotable entry-block allocas, their
//! loads and stores, and the phis it inserts.

use crate::analysis::cfg::Cfg;
use crate::analysis::dominance::Dominators;
use crate::analysis::loops::{LoopId, Loops};
use crate::llvm::LLVMOpcode::{LLVMAlloca, LLVMLoad, LLVMStore, LLVMPHI};
use crate::llvm::{constant, Block, Builder, Value};
use std::collections::{HashMap, HashSet};

/// Promotes every entry-block `alloca` of `f` that is only loaded and
/// stored whole (same type, not volatile or atomic) to SSA values.
/// Returns how many allocas were promoted.
pub fn promote_slots(f: Value) -> usize {
    let Some(entry) = f.blocks().first().copied() else { return 0 };
    let slots: Vec<Value> =
        entry.instructions().into_iter().filter(|i| i.opcode() == LLVMAlloca && is_promotable(*i)).collect();
    if slots.is_empty() {
        return 0;
    }
    let cfg = Cfg::new(f);
    let dom = Dominators::new(&cfg);
    let reachable: HashSet<Block> = cfg.rpo.iter().copied().collect();
    let rpo_index: HashMap<Block, usize> = cfg.rpo.iter().enumerate().map(|(k, b)| (*b, k)).collect();
    let b = Builder::new(f.function_type().context());
    let index: HashMap<Value, usize> = slots.iter().enumerate().map(|(k, s)| (*s, k)).collect();

    // Accesses in unreachable blocks never run: loads read poison.
    for slot in &slots {
        for u in slot.users() {
            if !reachable.contains(&u.parent_block()) {
                if u.opcode() == LLVMLoad {
                    u.replace_all_uses_with(constant::poison(u.ty()));
                }
                u.erase();
            }
        }
    }

    // Phis at the iterated dominance frontier of each slot's stores, where
    // the slot is live (pruned SSA: no phi for a value nobody reads). Blocks
    // are numbered in reverse post-order, and the per-slot sets are marks
    // in one array per kind (mark `k + 1` for slot `k`), so that a slot's
    // work is the size of its live range, without hashing or clearing.
    let frontiers = dominance_frontiers(&cfg, &dom, &rpo_index);
    let preds: Vec<Vec<usize>> =
        cfg.rpo.iter().map(|b| cfg.preds[b].iter().filter_map(|p| rpo_index.get(p).copied()).collect()).collect();
    let accesses = Accesses::of(&cfg, &index, &rpo_index, slots.len());
    let nest = Nest::of(&cfg, &dom, &rpo_index);
    let mut def_mark = vec![0usize; cfg.rpo.len()];
    let mut live_mark = vec![0usize; cfg.rpo.len()];
    let mut phi_mark = vec![0usize; cfg.rpo.len()];
    let mut phis_at: HashMap<Block, Vec<(usize, Value)>> = HashMap::new();
    let mut inserted: Vec<Value> = Vec::new();
    let mut first_original: HashMap<Block, Value> = HashMap::new();
    let mut live_work: Vec<usize> = Vec::new();
    for (k, slot) in slots.iter().enumerate() {
        let mark = k + 1;
        let defs = &accesses.defs[k];
        for &d in defs {
            def_mark[d] = mark;
        }
        // Live on entry: backwards from the exposed loads, up to the stores.
        for &u in &accesses.exposed_uses[k] {
            if live_mark[u] != mark {
                live_mark[u] = mark;
                live_work.push(u);
            }
        }
        let accessed = nest.accessed_spans(defs, &accesses.exposed_uses[k]);
        while let Some(b) = live_work.pop() {
            for &p in &preds[b] {
                // Out of a loop that never touches the slot: the whole loop
                // is live; only its header can be asked about (see `Nest`),
                // and the walk goes on from the header's entries.
                let reached: &[usize] = match nest.transparent_loop_left(p, b, &accessed) {
                    Some(l) if live_mark[nest.header[l]] == mark => &[],
                    Some(l) => {
                        live_mark[nest.header[l]] = mark;
                        &nest.entries[l]
                    }
                    None => std::slice::from_ref(&p),
                };
                for &q in reached {
                    if def_mark[q] != mark && live_mark[q] != mark {
                        live_mark[q] = mark;
                        live_work.push(q);
                    }
                }
            }
        }
        // In reverse post-order (popped from the end), so that the phis and
        // their names come out the same in every run.
        let mut work: Vec<usize> = defs.clone();
        work.sort_unstable_by_key(|&b| std::cmp::Reverse(b));
        while let Some(d) = work.pop() {
            for &join in &frontiers[d] {
                if live_mark[join] == mark && phi_mark[join] != mark {
                    phi_mark[join] = mark;
                    let block = cfg.rpo[join];
                    // Phis in slot order, before the block's own instructions.
                    let first = *first_original.entry(block).or_insert_with(|| block.instructions()[0]);
                    b.position_before(first);
                    let phi = b.phi(slot.allocated_type());
                    phi.set_name(&slot.name());
                    phis_at.entry(block).or_default().push((k, phi));
                    inserted.push(phi);
                    if def_mark[join] != mark {
                        work.push(join);
                    }
                }
            }
        }
    }

    rename(&cfg, &dom, &slots, &index, &phis_at);
    // Edges from unreachable blocks bring nothing.
    for block in f.blocks().into_iter().filter(|b| !reachable.contains(b)) {
        for s in block.terminator().map(|t| t.successors()).unwrap_or_default() {
            for &(_, phi) in phis_at.get(&s).into_iter().flatten() {
                phi.add_incoming(constant::poison(phi.ty()), block);
            }
        }
    }
    for slot in &slots {
        slot.erase();
    }
    remove_dead_and_trivial_phis(&inserted);
    slots.len()
}

/// Where each slot is stored, and the blocks whose first access to it is a
/// load (the slot is live into them), by reverse post-order number, from
/// one pass over the function.
struct Accesses {
    defs: Vec<Vec<usize>>,
    exposed_uses: Vec<Vec<usize>>,
}

impl Accesses {
    fn of(cfg: &Cfg, index: &HashMap<Value, usize>, rpo_index: &HashMap<Block, usize>, n: usize) -> Accesses {
        let mut defs = vec![Vec::new(); n];
        let mut exposed_uses = vec![Vec::new(); n];
        let mut seen: Vec<usize> = vec![usize::MAX; n];
        for &block in &cfg.rpo {
            let at = rpo_index[&block];
            for i in block.instructions() {
                let (k, is_store) = match i.opcode() {
                    LLVMLoad => match index.get(&i.operand(0)) {
                        Some(&k) => (k, false),
                        None => continue,
                    },
                    LLVMStore => match index.get(&i.operand(1)) {
                        Some(&k) => (k, true),
                        None => continue,
                    },
                    _ => continue,
                };
                let first = seen[k] != at;
                if first {
                    seen[k] = at;
                    if !is_store {
                        exposed_uses[k].push(at);
                    }
                }
                if is_store && defs[k].last() != Some(&at) {
                    defs[k].push(at);
                }
            }
        }
        Accesses { defs, exposed_uses }
    }
}

/// The clone's loop nest, for the liveness walk to step over loops that do
/// not touch a slot.
///
/// A mask slot of an outer loop is live through every loop nested inside
/// it; marking those blocks one by one costs a nest's depth squared
/// (issue 23: 1,900 loops deep, a third of batchify's time). A loop with no
/// access to the slot is live throughout as soon as one of its exits is,
/// and none of its blocks but its header can be a join of the slot's
/// iterated dominance frontier (its other blocks' predecessors are inside
/// it and dominated by the header), so the walk marks the header and goes
/// on from the header's predecessors outside the loop.
struct Nest {
    /// Innermost loop of each block, by reverse post-order number.
    innermost: Vec<Option<usize>>,
    /// Per loop: its span in the loop tree ([`Loops::tree_span`]), parent,
    /// header, and the header's predecessors outside the loop.
    span: Vec<std::ops::Range<usize>>,
    parent: Vec<Option<usize>>,
    header: Vec<usize>,
    entries: Vec<Vec<usize>>,
}

impl Nest {
    fn of(cfg: &Cfg, dom: &Dominators, rpo_index: &HashMap<Block, usize>) -> Nest {
        let Ok(loops) = Loops::new(cfg, dom) else {
            // Irreducible: no loop to step over; the walk goes block by block.
            return Nest {
                innermost: vec![None; cfg.rpo.len()],
                span: Vec::new(),
                parent: Vec::new(),
                header: Vec::new(),
                entries: Vec::new(),
            };
        };
        let ids = (0..loops.loops.len()).map(LoopId);
        Nest {
            innermost: cfg.rpo.iter().map(|b| loops.innermost.get(b).map(|l| l.0)).collect(),
            span: ids.clone().map(|l| loops.tree_span(l)).collect(),
            parent: loops.loops.iter().map(|l| l.parent.map(|p| p.0)).collect(),
            header: loops.loops.iter().map(|l| rpo_index[&l.header]).collect(),
            entries: ids
                .map(|l| {
                    cfg.preds[&loops.loops[l.0].header]
                        .iter()
                        .filter(|p| !loops.contains(l, **p))
                        .filter_map(|p| rpo_index.get(p).copied())
                        .collect()
                })
                .collect(),
        }
    }

    /// The tree positions of the innermost loops of the blocks that touch
    /// a slot (its stores and exposed loads; every other load follows one
    /// of them in its block), sorted.
    fn accessed_spans(&self, defs: &[usize], uses: &[usize]) -> Vec<usize> {
        let mut at: Vec<usize> =
            defs.iter().chain(uses).filter_map(|&b| self.innermost[b]).map(|l| self.span[l].start).collect();
        at.sort_unstable();
        at
    }

    /// The outermost loop that edge `from -> to` leaves and that holds no
    /// access to the slot (`accessed`: [`Nest::accessed_spans`]), if any.
    fn transparent_loop_left(&self, from: usize, to: usize, accessed: &[usize]) -> Option<usize> {
        let to_at = self.innermost[to].map(|l| self.span[l].start);
        let mut best = None;
        let mut l = self.innermost[from];
        while let Some(id) = l {
            let span = &self.span[id];
            if to_at.is_some_and(|t| span.contains(&t)) {
                break;
            }
            let first = accessed.partition_point(|&a| a < span.start);
            if accessed.get(first).is_some_and(|&a| a < span.end) {
                break;
            }
            best = Some(id);
            l = self.parent[id];
        }
        best
    }
}

/// Whether every use of `alloca` is a plain load or store of its whole type.
fn is_promotable(alloca: Value) -> bool {
    let ty = alloca.allocated_type();
    alloca.users().into_iter().all(|u| match u.opcode() {
        LLVMLoad => u.ty() == ty && !u.is_volatile() && !u.is_atomic(),
        LLVMStore => {
            u.operand(1) == alloca
                && u.operand(0) != alloca
                && u.operand(0).ty() == ty
                && !u.is_volatile()
                && !u.is_atomic()
        }
        _ => false,
    })
}

/// Dominance frontier of every reachable block (Cooper, Harvey & Kennedy),
/// by reverse post-order number.
fn dominance_frontiers(cfg: &Cfg, dom: &Dominators, rpo_index: &HashMap<Block, usize>) -> Vec<Vec<usize>> {
    let mut df: Vec<Vec<usize>> = vec![Vec::new(); cfg.rpo.len()];
    for (j, &join) in cfg.rpo.iter().enumerate() {
        let preds = &cfg.preds[&join];
        if preds.len() < 2 {
            continue;
        }
        let Some(stop) = dom.idom(join) else { continue };
        for &p in preds {
            let mut runner = p;
            while runner != stop {
                let Some(&r) = rpo_index.get(&runner) else { break };
                if df[r].last() == Some(&j) {
                    break;
                }
                df[r].push(j);
                match dom.idom(runner) {
                    Some(up) => runner = up,
                    None => break,
                }
            }
        }
    }
    df
}

/// Replaces loads by the reaching value and removes stores, walking the
/// dominator tree in preorder with one stack of values per slot; fills the
/// inserted phis' incoming values at each edge.
fn rename(
    cfg: &Cfg,
    dom: &Dominators,
    slots: &[Value],
    index: &HashMap<Value, usize>,
    phis_at: &HashMap<Block, Vec<(usize, Value)>>,
) {
    let mut children: HashMap<Block, Vec<Block>> = HashMap::new();
    for &b in cfg.rpo.iter().skip(1) {
        if let Some(d) = dom.idom(b) {
            children.entry(d).or_default().push(b);
        }
    }
    // A slot read before any store reads poison.
    let mut current: Vec<Vec<Value>> = slots.iter().map(|s| vec![constant::poison(s.allocated_type())]).collect();
    enum Step<'ctx> {
        Enter(Block<'ctx>),
        Leave(Vec<usize>),
    }
    let mut stack = vec![Step::Enter(cfg.rpo[0])];
    while let Some(step) = stack.pop() {
        let block = match step {
            Step::Leave(pushed) => {
                for k in pushed {
                    current[k].pop();
                }
                continue;
            }
            Step::Enter(block) => block,
        };
        let mut pushed = Vec::new();
        for &(k, phi) in phis_at.get(&block).into_iter().flatten() {
            current[k].push(phi);
            pushed.push(k);
        }
        for i in block.instructions() {
            match i.opcode() {
                LLVMLoad => {
                    if let Some(&k) = index.get(&i.operand(0)) {
                        i.replace_all_uses_with(*current[k].last().expect("a reaching value"));
                        i.erase();
                    }
                }
                LLVMStore => {
                    if let Some(&k) = index.get(&i.operand(1)) {
                        current[k].push(i.operand(0));
                        pushed.push(k);
                        i.erase();
                    }
                }
                _ => {}
            }
        }
        // One incoming value per edge (a switch may have several to one block).
        if let Some(term) = block.terminator() {
            for s in term.successors() {
                for &(k, phi) in phis_at.get(&s).into_iter().flatten() {
                    phi.add_incoming(*current[k].last().expect("a reaching value"), block);
                }
            }
        }
        stack.push(Step::Leave(pushed));
        for &c in children.get(&block).into_iter().flatten().rev() {
            stack.push(Step::Enter(c));
        }
    }
}

/// Removes inserted phis whose only users are inserted phis that are
/// themselves unused (cycles included), then replaces phis whose incoming
/// values are all one value (or the phi itself) by that value.
fn remove_dead_and_trivial_phis(inserted: &[Value]) {
    let ours: HashSet<Value> = inserted.iter().copied().collect();
    // Live: used by something other than one of our phis, or by a live phi.
    let mut live: HashSet<Value> = HashSet::new();
    let mut work: Vec<Value> =
        inserted.iter().copied().filter(|p| p.users().iter().any(|u| !ours.contains(u))).collect();
    while let Some(p) = work.pop() {
        if !live.insert(p) {
            continue;
        }
        for (v, _) in p.incoming() {
            if ours.contains(&v) && !live.contains(&v) {
                work.push(v);
            }
        }
    }
    for p in inserted.iter().filter(|p| !live.contains(p)) {
        p.replace_all_uses_with(constant::poison(p.ty()));
    }
    for p in inserted.iter().filter(|p| !live.contains(p)) {
        p.erase();
    }
    let mut work: Vec<Value> = inserted.iter().copied().filter(|p| live.contains(p)).collect();
    let mut gone: HashSet<Value> = HashSet::new();
    while let Some(p) = work.pop() {
        if gone.contains(&p) {
            continue;
        }
        let mut same: Option<Value> = None;
        let mut trivial = true;
        for (v, _) in p.incoming() {
            if v == p || Some(v) == same {
                continue;
            }
            if same.is_some() {
                trivial = false;
                break;
            }
            same = Some(v);
        }
        if !trivial {
            continue;
        }
        let Some(v) = same else { continue };
        let users: Vec<Value> = p.users().into_iter().filter(|u| *u != p && u.opcode() == LLVMPHI).collect();
        p.replace_all_uses_with(v);
        p.erase();
        gone.insert(p);
        work.extend(users.into_iter().filter(|u| ours.contains(u) && !gone.contains(u)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llvm::{parse_ir, Module};
    // Links libLLVM into the test binary.
    use batchify_llvm_link as _;

    /// A diamond whose sides store different values in a slot the join
    /// reads, and a slot stored but never read again after its block.
    const DIAMOND: &str = r#"
define i32 @f(i1 %c, i32 %x) {
entry:
  %s = alloca i32
  %dead = alloca i32
  store i32 0, ptr %dead
  br i1 %c, label %a, label %b
a:
  store i32 %x, ptr %s
  store i32 1, ptr %dead
  br label %j
b:
  store i32 7, ptr %s
  %t = load i32, ptr %dead
  br label %j
j:
  %v = load i32, ptr %s
  ret i32 %v
}
"#;

    #[test]
    fn slots_become_ssa_with_one_phi_where_values_meet() {
        let ctx = inkwell::context::Context::create();
        let m = parse_ir(&ctx, DIAMOND, "t").unwrap();
        let module = Module::from_inkwell(&m);
        let f = module.function("f").unwrap();
        assert_eq!(promote_slots(f), 2);
        module.verify().unwrap();
        let all: Vec<Value> = f.blocks().iter().flat_map(|b| b.instructions()).collect();
        assert!(!all.iter().any(|i| matches!(i.opcode(), LLVMAlloca | LLVMLoad | LLVMStore)));
        let phis: Vec<&Value> = all.iter().filter(|i| i.opcode() == LLVMPHI).collect();
        // `%s` meets at `j`; `%dead` is not read there, so it gets no phi.
        assert_eq!(phis.len(), 1, "{}", f.print());
        let mut incoming: Vec<String> = phis[0].incoming().iter().map(|(v, _)| v.print()).collect();
        incoming.sort();
        assert!(incoming.iter().any(|v| v.contains("%x")) && incoming.iter().any(|v| v.contains('7')), "{incoming:?}");
    }

    #[test]
    fn a_slot_read_before_any_store_reads_poison() {
        let ir = "define i32 @f() {\n  %s = alloca i32\n  %v = load i32, ptr %s\n  ret i32 %v\n}";
        let ctx = inkwell::context::Context::create();
        let m = parse_ir(&ctx, ir, "t").unwrap();
        let module = Module::from_inkwell(&m);
        let f = module.function("f").unwrap();
        assert_eq!(promote_slots(f), 1);
        module.verify().unwrap();
        assert!(f.print().contains("ret i32 poison"), "{}", f.print());
    }

    /// A slot stored before an inner loop that never touches it, from two
    /// blocks, and read after the loop: the liveness walk steps over the
    /// loop, and the loop's header still gets the one phi it needs (as
    /// LLVM's `mem2reg` gives it).
    #[test]
    fn a_slot_live_through_a_loop_that_never_touches_it_gets_its_phi() {
        let ir = "define i32 @f(i32 %n, i1 %c) {
entry:
  %s = alloca i32
  br i1 %c, label %a, label %b
a:
  store i32 1, ptr %s
  br label %g
b:
  store i32 %n, ptr %s
  br label %g
g:
  %j = phi i32 [ 0, %a ], [ 0, %b ], [ %j1, %g ]
  %j1 = add i32 %j, 1
  %e = icmp ult i32 %j1, %n
  br i1 %e, label %g, label %y
y:
  br label %l
l:
  %v = load i32, ptr %s
  %r = add i32 %v, %j1
  ret i32 %r
}";
        let count_phis =
            |f: Value| f.blocks().iter().flat_map(|b| b.instructions()).filter(|i| i.opcode() == LLVMPHI).count();
        let ctx = inkwell::context::Context::create();
        let m = parse_ir(&ctx, ir, "t").unwrap();
        let module = Module::from_inkwell(&m);
        let f = module.function("f").unwrap();
        assert_eq!(promote_slots(f), 1);
        module.verify().unwrap();
        let theirs = parse_ir(&ctx, ir, "u").unwrap();
        let theirs = Module::from_inkwell(&theirs);
        let g = theirs.function("f").unwrap();
        crate::llvm::run_function_passes(g, "mem2reg").unwrap();
        assert_eq!(count_phis(f), count_phis(g), "ours:\n{}\nmem2reg:\n{}", f.print_function(), g.print_function());
        assert_eq!(count_phis(f), 2, "{}", f.print_function());
    }
}
