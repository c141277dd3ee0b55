//! Divergence: which branches and loops lanes disagree about, and the
//! control plan the emitter follows.
//!
//! The function and each loop body form a *level*: a DAG whose nodes are
//! the level's own blocks and its immediate child loops (a child loop is one
//! node, entered at its header, left through its exit blocks). A node
//! *splits* when lanes may take different targets: a branch or switch on a
//! varying condition with two or more distinct targets, or a divergent child
//! loop with two or more exit targets. A level without splits is emitted
//! with its real control flow ("real" level); a level with a split is
//! linearized ("linear" level): its nodes run in topological order under
//! masks. A loop whose level is linear is a *divergent loop*: it runs while
//! any lane is active.
//!
//! Uniformity and the plan depend on each other (a split makes join phis
//! varying, which can make more branches varying), so both are computed to
//! a fixed point. The result is conservative: it may linearize more than
//! necessary, never less.

use super::cfg::Cfg;
use super::loops::{LoopId, Loops};
use super::uniformity::Uniformity;
use crate::llvm::LLVMOpcode;
use crate::llvm::{Block, Value};
use crate::vfabi::ParamKind;
use std::collections::{HashMap, HashSet};

/// A node of a level's DAG.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Node<'ctx> {
    /// A block of the level itself.
    Block(Block<'ctx>),
    /// A child loop.
    Loop(LoopId),
}

/// Where an edge out of a node goes, seen from the node's level.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Target<'ctx> {
    /// A node of the same level.
    Node(Node<'ctx>),
    /// The level's loop header (a back edge).
    Back,
    /// A block outside the level's loop.
    Exit(Block<'ctx>),
}

/// A uniform branch inside a linear level whose region can keep real
/// control flow: every lane active at `head` takes the same way through
/// `blocks` (single entry `head`, single exit `join`, no divergent branch,
/// no loop, no edge leaving the level), so no lane needs masking apart.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UniformRegion<'ctx> {
    /// The blocks strictly between the branch and the join, in topological order.
    pub blocks: Vec<Block<'ctx>>,
    /// Where the paths meet again.
    pub join: Block<'ctx>,
}

/// How one level is emitted.
#[derive(Debug, Clone)]
pub struct LevelPlan<'ctx> {
    /// Linearized (true) or real control flow (false).
    pub linear: bool,
    /// The level's nodes in topological order, entry first.
    pub nodes: Vec<Node<'ctx>>,
    /// Linear levels: uniform branches that keep real control flow, by branch block.
    pub regions: HashMap<Block<'ctx>, UniformRegion<'ctx>>,
}

/// The control plan of a function.
#[derive(Debug, Clone)]
pub struct ControlPlan<'ctx> {
    /// Plan per level (`None`: the function body).
    pub levels: HashMap<Option<LoopId>, LevelPlan<'ctx>>,
}

impl<'ctx> ControlPlan<'ctx> {
    /// Whether a loop is divergent (its level is linear).
    pub fn is_divergent(&self, l: LoopId) -> bool {
        self.levels[&Some(l)].linear
    }
}

/// Uniformity and control plan of a function.
pub struct Divergence<'ctx> {
    /// Value uniformity, sync dependence included.
    pub uniformity: Uniformity<'ctx>,
    /// The control plan.
    pub plan: ControlPlan<'ctx>,
}

/// The condition a terminator branches on, if it is a two-way branch or a switch.
pub fn branch_condition(term: Value) -> Option<Value> {
    match term.opcode() {
        LLVMOpcode::LLVMBr if term.is_conditional() => Some(term.operand(0)),
        LLVMOpcode::LLVMSwitch => Some(term.operand(0)),
        _ => None,
    }
}

/// Classifies a successor block as seen from `level`.
pub fn classify<'ctx>(loops: &Loops<'ctx>, level: Option<LoopId>, s: Block<'ctx>) -> Target<'ctx> {
    if let Some(l) = level {
        if loops.loops[l.0].header == s {
            return Target::Back;
        }
        if !loops.contains(l, s) {
            return Target::Exit(s);
        }
    }
    if loops.innermost.get(&s).copied() == level {
        Target::Node(Node::Block(s))
    } else {
        let child = loops.child_containing(level, s).expect("a block below the level is in a child loop");
        Target::Node(Node::Loop(child))
    }
}

/// Exit blocks of a loop: blocks outside it with a predecessor inside, in
/// a deterministic order.
pub fn exit_blocks<'ctx>(_cfg: &Cfg<'ctx>, loops: &Loops<'ctx>, l: LoopId) -> Vec<Block<'ctx>> {
    loops.loops[l.0].exits.clone()
}

/// Distinct targets of a node, in a deterministic order.
pub fn node_targets<'ctx>(
    cfg: &Cfg<'ctx>,
    loops: &Loops<'ctx>,
    level: Option<LoopId>,
    n: Node<'ctx>,
) -> Vec<Target<'ctx>> {
    let succs: Vec<Block> = match n {
        Node::Block(b) => cfg.succs[&b].clone(),
        Node::Loop(l) => exit_blocks(cfg, loops, l),
    };
    let mut out = Vec::new();
    let mut seen = HashSet::new();
    for s in succs {
        let t = classify(loops, level, s);
        if seen.insert(t) {
            out.push(t);
        }
    }
    out
}

/// One level's nodes, in the function's reverse post-order (which orders a
/// reducible level's nodes topologically), with each node's distinct
/// targets ([`node_targets`]), computed once for every analysis of the level.
struct LevelGraph<'ctx> {
    nodes: Vec<Node<'ctx>>,
    targets: HashMap<Node<'ctx>, Vec<Target<'ctx>>>,
    /// The same DAG by node index (position in `nodes`, a topological
    /// order): successors in the level, and the dominator and
    /// post-dominator trees, which the join search uses to step over
    /// single-entry single-exit regions.
    dag: IndexDag,
}

/// A level's DAG on node indices `0..n` (topological order, entry 0), with
/// a virtual sink `n` after every node that leaves the level (an exit, the
/// back edge, a return).
struct IndexDag {
    succs: Vec<Vec<usize>>,
    /// Immediate post-dominator of each node (`n`: the sink).
    ipdom: Vec<usize>,
    /// Entry and exit times of each node in a walk of the dominator tree:
    /// `a` dominates `b` iff `b`'s interval lies in `a`'s.
    dom_in: Vec<usize>,
    dom_out: Vec<usize>,
}

impl IndexDag {
    fn new<'ctx>(nodes: &[Node<'ctx>], targets: &HashMap<Node<'ctx>, Vec<Target<'ctx>>>) -> IndexDag {
        let index: HashMap<Node, usize> = nodes.iter().enumerate().map(|(i, m)| (*m, i)).collect();
        let mut succs = vec![Vec::new(); nodes.len()];
        let mut leaves = vec![false; nodes.len()];
        for (i, m) in nodes.iter().enumerate() {
            for t in &targets[m] {
                match t {
                    Target::Node(x) => succs[i].push(index[x]),
                    _ => leaves[i] = true,
                }
            }
        }
        IndexDag::from_succs(succs, leaves)
    }

    /// The DAG with these successors (each later in the order than its
    /// node; distinct), where `leaves[i]` says node `i` also leaves the
    /// level.
    fn from_succs(succs: Vec<Vec<usize>>, mut leaves: Vec<bool>) -> IndexDag {
        let n = succs.len();
        let mut preds = vec![Vec::new(); n];
        for (i, ss) in succs.iter().enumerate() {
            for &j in ss {
                preds[j].push(i);
            }
            if ss.is_empty() {
                leaves[i] = true;
            }
        }
        // Post-dominators, from the sink back (successors come later in
        // the order, so each is final before its predecessors).
        let mut ipdom = vec![n; n];
        for i in (0..n).rev() {
            let mut acc: Option<usize> = leaves[i].then_some(n);
            for &j in &succs[i] {
                acc = Some(match acc {
                    None => j,
                    Some(a) => intersect_later(&ipdom, a, j, n),
                });
            }
            ipdom[i] = acc.unwrap_or(n);
        }
        // Dominators, from the entry on.
        let mut idom = vec![0; n];
        for i in 1..n {
            let mut acc: Option<usize> = None;
            for &p in &preds[i] {
                acc = Some(match acc {
                    None => p,
                    Some(a) => intersect_earlier(&idom, a, p),
                });
            }
            idom[i] = acc.unwrap_or(0);
        }
        let mut children = vec![Vec::new(); n];
        for i in 1..n {
            children[idom[i]].push(i);
        }
        let (mut dom_in, mut dom_out) = (vec![0; n], vec![0; n]);
        let mut clock = 0;
        let mut stack: Vec<(usize, usize)> = if n > 0 { vec![(0, 0)] } else { Vec::new() };
        while let Some((v, k)) = stack.pop() {
            if k == 0 {
                dom_in[v] = clock;
                clock += 1;
            }
            if let Some(&c) = children[v].get(k) {
                stack.push((v, k + 1));
                stack.push((c, 0));
            } else {
                dom_out[v] = clock;
                clock += 1;
            }
        }
        IndexDag { succs, ipdom, dom_in, dom_out }
    }

    fn dominates(&self, a: usize, b: usize) -> bool {
        self.dom_in[a] <= self.dom_in[b] && self.dom_out[b] <= self.dom_out[a]
    }

    /// Where every path from node `m` goes through next, if `m` heads a
    /// single-entry single-exit region ending there: `m`'s immediate
    /// post-dominator, when it is a node `m` dominates. Every node on a
    /// path between the two is then entered only through `m`.
    fn region_exit(&self, m: usize) -> Option<usize> {
        let p = self.ipdom[m];
        (p < self.succs.len() && self.dominates(m, p)).then_some(p)
    }
}

/// The nearest common post-dominator of `a` and `b` (`sink`: none in the level).
fn intersect_later(ipdom: &[usize], mut a: usize, mut b: usize, sink: usize) -> usize {
    while a != b {
        if a == sink || b == sink {
            return sink;
        }
        if a < b {
            a = ipdom[a];
        } else {
            b = ipdom[b];
        }
    }
    a
}

/// The nearest common dominator of `a` and `b`.
fn intersect_earlier(idom: &[usize], mut a: usize, mut b: usize) -> usize {
    while a != b {
        if a > b {
            a = idom[a];
        } else {
            b = idom[b];
        }
    }
    a
}

impl<'ctx> LevelGraph<'ctx> {
    /// The nodes a node leads to in the level (its targets other than
    /// exits and the back edge).
    fn node_successors(&self, n: Node<'ctx>) -> impl Iterator<Item = Node<'ctx>> + '_ {
        self.targets[&n].iter().filter_map(|t| match t {
            Target::Node(m) => Some(*m),
            _ => None,
        })
    }
}

/// The graph of every level, in one pass over the blocks.
fn level_graphs<'ctx>(cfg: &Cfg<'ctx>, loops: &Loops<'ctx>) -> HashMap<Option<LoopId>, LevelGraph<'ctx>> {
    let mut nodes: HashMap<Option<LoopId>, Vec<Node>> = HashMap::from([(None, Vec::new())]);
    for l in 0..loops.loops.len() {
        nodes.insert(Some(LoopId(l)), Vec::new());
    }
    for b in &cfg.rpo {
        let inner = loops.innermost.get(b).copied();
        nodes.get_mut(&inner).expect("every level has a list").push(Node::Block(*b));
        if let Some(l) = inner {
            if loops.loops[l.0].header == *b {
                let parent = loops.loops[l.0].parent;
                nodes.get_mut(&parent).expect("every level has a list").push(Node::Loop(l));
            }
        }
    }
    nodes
        .into_iter()
        .map(|(level, nodes)| {
            let targets = nodes.iter().map(|n| (*n, node_targets(cfg, loops, level, *n))).collect();
            let dag = IndexDag::new(&nodes, &targets);
            (level, LevelGraph { nodes, targets, dag })
        })
        .collect()
}

/// Whether lanes active at node `n` may leave it different ways: a
/// divergent branch, or a divergent loop with several exits.
fn splits(graph: &LevelGraph, uniformity: &Uniformity, divergent: &HashSet<LoopId>, n: Node) -> bool {
    if graph.targets[&n].len() < 2 {
        return false;
    }
    match n {
        Node::Block(b) => {
            let term = b.terminator().expect("blocks have terminators");
            branch_condition(term).is_some_and(|c| uniformity.is_varying(c))
        }
        Node::Loop(l) => divergent.contains(&l),
    }
}

impl<'ctx> Divergence<'ctx> {
    /// Computes uniformity and the control plan to a fixed point.
    pub fn new(f: Value<'ctx>, cfg: &Cfg<'ctx>, loops: &Loops<'ctx>, params: &[ParamKind]) -> Divergence<'ctx> {
        let mut levels_list: Vec<Option<LoopId>> = vec![None];
        levels_list.extend((0..loops.loops.len()).map(|i| Some(LoopId(i))));
        let graphs = level_graphs(cfg, loops);
        let mut seeds: HashSet<Value> = HashSet::new();
        let group_callees = super::cross_lane::group_callees(f);
        loop {
            let uniformity = Uniformity::new(f, cfg, params, &seeds, &group_callees);
            // Innermost loops first, so a child's divergence is known to its parent.
            let mut divergent: HashSet<LoopId> = HashSet::new();
            let mut linear: HashMap<Option<LoopId>, bool> = HashMap::new();
            let mut order = levels_list.clone();
            order.sort_by_key(|l| std::cmp::Reverse(l.map_or(0, |l| loops.loops[l.0].depth)));
            for level in &order {
                let graph = &graphs[level];
                let lin = graph.nodes.iter().any(|n| splits(graph, &uniformity, &divergent, *n));
                if lin {
                    if let Some(l) = level {
                        divergent.insert(*l);
                    }
                }
                linear.insert(*level, lin);
            }
            let mut new_seeds = seeds.clone();
            for level in &levels_list {
                if linear[level] {
                    let graph = &graphs[level];
                    let joins = divergent_joins(graph, &uniformity, &divergent);
                    for &n in &graph.nodes {
                        if !joins.contains(&n) {
                            continue;
                        }
                        if let Node::Block(b) = n {
                            // A divergent loop's header is no join of lanes
                            // that went different ways: every lane still in
                            // the loop comes round the one back edge together,
                            // and lanes that left are inactive there. So a
                            // value computed in the loop from uniform values
                            // (a counter, an index into a uniform table) stays
                            // uniform in the loop; its uses after the loop
                            // read it through exit phis, which are varying.
                            let own_header = level.is_some_and(|l| loops.loops[l.0].header == b);
                            if cfg.preds[&b].len() >= 2 && !own_header {
                                for phi in
                                    b.instructions().into_iter().take_while(|i| i.opcode() == LLVMOpcode::LLVMPHI)
                                {
                                    let inc = phi.incoming();
                                    if inc.iter().any(|(v, _)| *v != inc[0].0) {
                                        new_seeds.insert(phi);
                                    }
                                }
                            }
                        }
                    }
                }
            }
            for l in &divergent {
                for x in exit_blocks(cfg, loops, *l) {
                    for phi in x.instructions().into_iter().take_while(|i| i.opcode() == LLVMOpcode::LLVMPHI) {
                        new_seeds.insert(phi);
                    }
                }
            }
            if new_seeds.len() == seeds.len() {
                let levels = levels_list
                    .iter()
                    .map(|l| {
                        let graph = &graphs[l];
                        let nodes = graph.nodes.clone();
                        let regions = if linear[l] { uniform_regions(cfg, &uniformity, graph) } else { HashMap::new() };
                        (*l, LevelPlan { linear: linear[l], nodes, regions })
                    })
                    .collect();
                return Divergence { uniformity, plan: ControlPlan { levels } };
            }
            seeds = new_seeds;
        }
    }
}

/// The nodes of a linear level where lanes that went different ways at a
/// divergent branch (or out of a divergent loop's different exits) meet
/// again: the joins of the sync-dependence rule of Moll & Hack. A phi
/// elsewhere in the level, where only paths from uniform branches meet,
/// sees one incoming edge for all active lanes and may stay uniform.
///
/// For each splitting node, every node downstream is labelled with the
/// successor its lanes came through, in topological order; a node reached
/// with two different labels is a join and labels what follows with
/// itself. Paths that met again before a node (a join upstream of it) carry
/// one label, so the node is no join of that branch.
///
/// Linear in the level for each branch's own region, not in the level: the
/// labels move through a queue in topological order; a labelled node that
/// heads a single-entry single-exit region hands its label straight to the
/// region's exit (no node inside can be reached another way, so none is a
/// join of this branch); and once one labelled node is left, everything
/// after it has one label, so the search stops.
fn divergent_joins<'ctx>(
    graph: &LevelGraph<'ctx>,
    uniformity: &Uniformity<'ctx>,
    divergent: &HashSet<LoopId>,
) -> HashSet<Node<'ctx>> {
    let split: Vec<bool> = graph.nodes.iter().map(|n| splits(graph, uniformity, divergent, *n)).collect();
    join_indices(&graph.dag, &split).into_iter().zip(&graph.nodes).filter(|(j, _)| *j).map(|(_, n)| *n).collect()
}

/// [`divergent_joins`] on node indices: which nodes are joins of the
/// splitting nodes `split`.
fn join_indices(dag: &IndexDag, split: &[bool]) -> Vec<bool> {
    let edges: usize = dag.succs.iter().map(Vec::len).sum();
    join_indices_within(dag, split, JOIN_SEARCH_STEPS_PER_NODE * (split.len() + edges) + 4096)
}

/// How many label steps per node and edge of a level the exact join search
/// may take before [`join_indices_within`] answers with a superset. Code
/// people write stays far below it (a branch's search ends where its lanes
/// meet again); a chain of branches whose paths keep crossing without a
/// common post-dominator (the irreducible state machines of issue 23's
/// compile-time family, after node splitting) makes every search run to
/// the level's end, the square of the level in all.
const JOIN_SEARCH_STEPS_PER_NODE: usize = 64;

/// [`join_indices`] with at most `budget` label steps; past them, every
/// node with two or more predecessors that a splitting node reaches. That
/// is a superset of the joins (a join is reached by two paths from its
/// branch, so through two predecessors), and a superset is safe: it only
/// makes more phis varying.
fn join_indices_within(dag: &IndexDag, split: &[bool], budget: usize) -> Vec<bool> {
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;
    let n = split.len();
    let mut steps = 0usize;
    let mut joins = vec![false; n];
    // Labels by node index; `stamp` tells this branch's from stale ones.
    let mut label = vec![usize::MAX; n];
    let mut stamp = vec![usize::MAX; n];
    let mut queue: BinaryHeap<Reverse<usize>> = BinaryHeap::new();
    for k in (0..n).filter(|k| split[*k]) {
        queue.clear();
        let mut meet = |queue: &mut BinaryHeap<Reverse<usize>>, label: &mut [usize], s: usize, from: usize| {
            if stamp[s] != k {
                stamp[s] = k;
                label[s] = from;
                queue.push(Reverse(s));
            } else if label[s] != from {
                joins[s] = true;
                label[s] = s;
            }
        };
        for &m in &dag.succs[k] {
            meet(&mut queue, &mut label, m, m);
        }
        while let Some(Reverse(m)) = queue.pop() {
            if queue.is_empty() {
                break; // every path left goes through `m`, with one label
            }
            steps += 1;
            if steps > budget {
                return joins_superset(dag, split);
            }
            let from = label[m];
            match dag.region_exit(m) {
                Some(p) => meet(&mut queue, &mut label, p, from),
                None => {
                    for &s in &dag.succs[m] {
                        meet(&mut queue, &mut label, s, from);
                    }
                }
            }
        }
    }
    joins
}

/// Every node with two or more predecessors that a splitting node reaches
/// (in one pass in topological order): the superset [`join_indices_within`]
/// falls back to.
fn joins_superset(dag: &IndexDag, split: &[bool]) -> Vec<bool> {
    let n = split.len();
    let mut preds = vec![0usize; n];
    let mut reached = vec![false; n];
    for i in 0..n {
        for &j in &dag.succs[i] {
            preds[j] += 1;
            if split[i] || reached[i] {
                reached[j] = true;
            }
        }
    }
    (0..n).map(|j| reached[j] && preds[j] >= 2).collect()
}

/// Finds the uniform branches of a linear level whose regions can keep
/// real control flow (see [`UniformRegion`]). Regions do not overlap: a
/// block inside one region does not head another (it is emitted as real
/// control flow anyway).
fn uniform_regions<'ctx>(
    cfg: &Cfg<'ctx>,
    uniformity: &Uniformity<'ctx>,
    graph: &LevelGraph<'ctx>,
) -> HashMap<Block<'ctx>, UniformRegion<'ctx>> {
    let nodes = &graph.nodes;
    let order: HashMap<Node, usize> = nodes.iter().enumerate().map(|(i, n)| (*n, i)).collect();
    let succs = |n: Node<'ctx>| -> &[Target<'ctx>] { &graph.targets[&n] };
    let reach = |start: Node<'ctx>| -> HashSet<Node<'ctx>> {
        let mut seen = HashSet::from([start]);
        let mut work = vec![start];
        while let Some(n) = work.pop() {
            for m in graph.node_successors(n) {
                if seen.insert(m) {
                    work.push(m);
                }
            }
        }
        seen
    };
    let mut out: HashMap<Block, UniformRegion> = HashMap::new();
    let mut inside: HashSet<Block> = HashSet::new();
    for n in nodes {
        let Node::Block(head) = *n else { continue };
        if inside.contains(&head) {
            continue;
        }
        let term = head.terminator().expect("blocks have terminators");
        let Some(cond) = branch_condition(term) else { continue };
        let targets = succs(*n);
        if uniformity.is_varying(cond) || targets.len() < 2 {
            continue;
        }
        let mut tnodes = Vec::new();
        for t in targets {
            match t {
                Target::Node(m) => tnodes.push(*m),
                _ => break,
            }
        }
        if tnodes.len() != targets.len() {
            continue;
        }
        let reaches: Vec<HashSet<Node>> = tnodes.iter().map(|t| reach(*t)).collect();
        // The join: the first node (in topological order) every target reaches.
        let Some(join) = nodes.iter().copied().find(|m| order[m] > order[n] && reaches.iter().all(|r| r.contains(m)))
        else {
            continue;
        };
        let from_join = reach(join);
        let mut region: Vec<Node> =
            reaches.iter().flatten().copied().filter(|m| *m != join && !from_join.contains(m)).collect();
        region.sort_by_key(|m| order[m]);
        region.dedup();
        let members: HashSet<Node> = region.iter().copied().collect();
        let ok = region.iter().all(|m| {
            let Node::Block(b) = *m else { return false };
            let t = b.terminator().expect("blocks have terminators");
            let ts = succs(*m);
            !ts.is_empty()
                && matches!(t.opcode(), LLVMOpcode::LLVMBr | LLVMOpcode::LLVMSwitch)
                && ts.iter().all(|x| matches!(x, Target::Node(y) if members.contains(y) || *y == join))
                && (ts.len() < 2 || branch_condition(t).is_some_and(|c| !uniformity.is_varying(c)))
                && cfg.preds[&b].iter().all(|p| *p == head || members.contains(&Node::Block(*p)))
        }) && matches!(join, Node::Block(_));
        if !ok {
            continue;
        }
        let Node::Block(join) = join else { continue };
        let blocks: Vec<Block> = region
            .iter()
            .map(|m| match m {
                Node::Block(b) => *b,
                Node::Loop(_) => unreachable!("checked above"),
            })
            .collect();
        inside.extend(blocks.iter().copied());
        out.insert(head, UniformRegion { blocks, join });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{join_indices, join_indices_within, IndexDag};

    /// The joins by the definition: for each splitting node, every node
    /// after it labelled in order (no region steps, no early stop).
    fn joins_by_definition(succs: &[Vec<usize>], split: &[bool]) -> Vec<bool> {
        let n = split.len();
        let mut joins = vec![false; n];
        for k in (0..n).filter(|k| split[*k]) {
            let mut label: Vec<Option<usize>> = vec![None; n];
            let meet = |label: &mut Vec<Option<usize>>, joins: &mut Vec<bool>, s: usize, from: usize| match label[s] {
                None => label[s] = Some(from),
                Some(l) if l != from => {
                    joins[s] = true;
                    label[s] = Some(s);
                }
                Some(_) => {}
            };
            for &m in &succs[k] {
                meet(&mut label, &mut joins, m, m);
            }
            for m in k + 1..n {
                let Some(from) = label[m] else { continue };
                for &s in &succs[m] {
                    meet(&mut label, &mut joins, s, from);
                }
            }
        }
        joins
    }

    #[test]
    fn the_fast_join_search_finds_the_joins_of_the_definition() {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = |m: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % m as u64) as usize
        };
        let mut with_joins = 0;
        let mut within_budget_differs = false;
        for _ in 0..20_000 {
            // A random DAG in topological order whose nodes node 0 reaches
            // (each node gets an edge from an earlier one), some leaving
            // the level.
            let n = 2 + next(12);
            let mut succs: Vec<Vec<usize>> = vec![Vec::new(); n];
            for j in 1..n {
                let i = next(j);
                succs[i].push(j);
            }
            for _ in 0..next(2 * n) {
                let i = next(n - 1);
                let j = i + 1 + next(n - 1 - i);
                if !succs[i].contains(&j) {
                    succs[i].push(j);
                }
            }
            let leaves: Vec<bool> = (0..n).map(|_| next(4) == 0).collect();
            let split: Vec<bool> = (0..n).map(|_| next(3) == 0).collect();
            let want = joins_by_definition(&succs, &split);
            let dag = IndexDag::from_succs(succs.clone(), leaves);
            assert_eq!(join_indices(&dag, &split), want, "succs {succs:?}, split {split:?}");
            with_joins += want.contains(&true) as usize;
            // Out of steps at once, the search answers with a superset.
            let superset = join_indices_within(&dag, &split, 0);
            for (j, (w, s)) in want.iter().zip(&superset).enumerate() {
                assert!(!w || *s, "join {j} missing from the superset: succs {succs:?}, split {split:?}");
            }
            within_budget_differs |= superset != want;
        }
        assert!(with_joins > 2000, "only {with_joins} graphs with joins: the test says little");
        assert!(within_budget_differs, "the superset always equals the joins: the budget test says little");
    }
}
