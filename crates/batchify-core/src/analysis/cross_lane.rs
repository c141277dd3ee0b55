//! Cross-lane operations: calls that scalar code makes and that mean, in a
//! clone, an operation over the group of lanes active at the call
//! (`batchify.h`, `docs/cross-lane.md`). Recognized by the callee's name:
//! batchify's own (`batchify_any`, `batchify_reduce_add_f32`, ...), RV's
//! (`rv_any`, `rv_extract_f`, ...) and the internal ones of refill workers
//! ([`super::calls::ACTIVE_LANES`], [`super::calls::INDEX`],
//! [`super::calls::COUNT_TRUE`], [`super::calls::PACKED_LOAD_ACTIVE`]).
//!
//! In the scalar function the callee is an ordinary function (the
//! header's weak one-lane definition, or the `batchify` crate's); no lane
//! but lane 0 exists there. In a clone the emitter lowers each call inline
//! (`emit::cross_lane`); a clone that uses them has no per-lane fallback.
//!
//! Part of the analyses: reads calls, changes nothing.

use crate::llvm::LLVMOpcode::LLVMCall;
use crate::llvm::{LLVMTypeKind, Type, Value};
use std::collections::{HashMap, HashSet};

/// An operation on a group's values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Reduce {
    /// Sum (integers wrap; floats are added in lane order from `-0.0`).
    Add,
    /// Signed minimum (integers), IEEE `minimumNumber` (floats: NaN only
    /// if every value is NaN, `-0.0` below `+0.0`).
    Min,
    /// Signed maximum, IEEE `maximumNumber`.
    Max,
    /// Unsigned minimum.
    UMin,
    /// Unsigned maximum.
    UMax,
    /// Product (RV's `rv_reduce` op 1; floats multiplied in lane order).
    Mul,
}

/// A cross-lane operation. "Active" lanes are those active at the call;
/// a lane's own value of an argument is written `x[k]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Op {
    /// `lane_id()`: `k` in lane `k` (varying, stride 1).
    LaneId,
    /// `num_lanes()`: the clone's width `N`.
    NumLanes,
    /// `any(c)`: some active lane has `c`.
    Any,
    /// `all(c)`: every active lane has `c`.
    All,
    /// `ballot(c)`: bit `k` set where lane `k` is active and has `c`.
    Ballot,
    /// `popcount(c)` (RV): the number of active lanes with `c`.
    CountTrue,
    /// `popcount_active()`: the number of active lanes.
    CountActive,
    /// `reduce_<op>(x)` over the active lanes, in lane order.
    Reduce(Reduce),
    /// `exclusive_scan_add(x)`: in lane `k`, the sum of `x[j]` over the
    /// active lanes `j < k` (varying).
    ExclusiveScanAdd,
    /// `index(c)` (RV): in lane `k`, the number of active lanes `j < k`
    /// with `c` (varying).
    Index,
    /// `extract(x, lane)`: `x[lane]` if `lane` is an active lane, else 0
    /// (uniform when `lane` is; a varying `lane` reads as [`Op::Shuffle`]).
    Extract,
    /// `shuffle(x, src)`: in lane `k`, `x[src[k]]` if that is an active
    /// lane, else 0 (varying unless `src` is uniform).
    Shuffle,
    /// `insert(x, lane, y)` (RV): `y` in lane `lane`, `x[k]` in the others
    /// (varying).
    Insert,
    /// `broadcast_first(x)`: `x` of the lowest active lane.
    BroadcastFirst,
    /// `packed_store_active(ptr, x)`: stores the active lanes' `x` to
    /// `ptr[0..count)` in lane order, returns `count`.
    PackedStoreActive,
    /// `mask()` (RV): true in every active lane.
    Mask,
    /// `compact(x, c)` (RV): in lane `j`, `x` of the `j`-th active lane
    /// with `c` (for `j` below their count), `x[j]` in the lanes above
    /// (varying).
    Compact,
    /// `shuffle(x, s)` (RV): in lane `k`, `x` of lane `(k + s) mod N`
    /// (`s` a constant), zero where that lane is inactive (varying).
    Rotate,
    /// `load(p, lane)` (RV): `*p[lane]`, through lane `lane`'s pointer, if
    /// that is an active lane, else 0 and no load (uniform).
    LoadLane,
    /// `packed_load_active(p)` (internal, [`super::calls::PACKED_LOAD_ACTIVE`]):
    /// in the `j`-th active lane, `p[j]` (`p` the same in all lanes; the
    /// active lanes read `p[0..count)`; varying).
    PackedLoadActive,
}

/// The operation a call performs, if its callee is one (by name; the
/// signature is checked by [`check_call`]).
pub fn op_of(call: Value) -> Option<Op> {
    if call.opcode() != LLVMCall {
        return None;
    }
    let callee = call.called_value();
    if !callee.is_function() || callee.intrinsic_id() != 0 {
        return None;
    }
    let name = callee.name();
    // RV's programs declare its intrinsics without bodies; a function of
    // the program's own that happens to be named `rv_...` is not one.
    if name.starts_with("rv_") && !callee.is_declaration() {
        return None;
    }
    op_named(&name)
}

/// The operation a function name stands for, if any. A suffix `.N` that
/// LLVM adds to a renamed symbol is ignored.
pub fn op_named(name: &str) -> Option<Op> {
    match name {
        super::calls::ACTIVE_LANES => return Some(Op::CountActive),
        super::calls::INDEX => return Some(Op::Index),
        super::calls::COUNT_TRUE => return Some(Op::CountTrue),
        _ => {}
    }
    if name
        .strip_prefix(super::calls::PACKED_LOAD_ACTIVE)
        .is_some_and(|t| super::calls::PACKED_LOAD_SUFFIXES.contains(&t))
    {
        return Some(Op::PackedLoadActive);
    }
    let base = match name.rsplit_once('.') {
        Some((b, digits)) if !digits.is_empty() && digits.bytes().all(|c| c.is_ascii_digit()) => b,
        _ => name,
    };
    if let Some(rest) = base.strip_prefix("batchify_") {
        return batchify_op(rest);
    }
    base.strip_prefix("rv_").and_then(rv_op)
}

/// `batchify_<rest>`: the header's names (`docs/cross-lane.md`).
fn batchify_op(rest: &str) -> Option<Op> {
    let typed = |prefix: &str| rest.strip_prefix(prefix).is_some_and(|t| TYPE_SUFFIXES.contains(&t));
    Some(match rest {
        "lane_id" => Op::LaneId,
        "num_lanes" => Op::NumLanes,
        "any" => Op::Any,
        "all" => Op::All,
        "ballot" => Op::Ballot,
        "popcount_active" => Op::CountActive,
        _ if typed("reduce_add_") => Op::Reduce(Reduce::Add),
        _ if typed("reduce_min_") => Op::Reduce(Reduce::Min),
        _ if typed("reduce_max_") => Op::Reduce(Reduce::Max),
        "reduce_min_u32" | "reduce_min_u64" => Op::Reduce(Reduce::UMin),
        "reduce_max_u32" | "reduce_max_u64" => Op::Reduce(Reduce::UMax),
        "exclusive_scan_add_i32" | "exclusive_scan_add_i64" => Op::ExclusiveScanAdd,
        _ if typed("extract_") => Op::Extract,
        _ if typed("broadcast_first_") => Op::BroadcastFirst,
        _ if typed("shuffle_") => Op::Shuffle,
        _ if typed("packed_store_active_") => Op::PackedStoreActive,
        _ => return None,
    })
}

/// The element types of the typed operations' names.
pub const TYPE_SUFFIXES: &[&str] = &["i32", "i64", "f32", "f64"];

/// `rv_<rest>`: RV's names (`include/rv/intrinsics.h`), with their
/// type-suffixed forms (`rv_extract_f`: a suffix of at most three letters
/// or digits).
fn rv_op(rest: &str) -> Option<Op> {
    let (head, suffix) = match rest.split_once('_') {
        Some((h, s)) if matches!(h, "extract" | "insert" | "compact" | "load" | "shuffle") => (h, s),
        _ => (rest, ""),
    };
    if suffix.len() > 3 || !suffix.bytes().all(|c| c.is_ascii_alphanumeric()) {
        return None;
    }
    Some(match head {
        "any" => Op::Any,
        "all" => Op::All,
        "ballot" => Op::Ballot,
        "popcount" => Op::CountTrue,
        "mask" => Op::Mask,
        "lane_id" => Op::LaneId,
        "num_lanes" => Op::NumLanes,
        "extract" => Op::Extract,
        "insert" => Op::Insert,
        "compact" => Op::Compact,
        "load" => Op::LoadLane,
        "shuffle" => Op::Rotate,
        "index" => Op::Index,
        // `rv_reduce` (an operation chosen by a runtime argument) is not
        // accepted yet: it stays an ordinary call.
        _ => return None,
    })
}

impl Op {
    /// Whether the result differs between lanes, given which arguments do.
    pub fn result_varies(self, arg_varies: impl Fn(u32) -> bool) -> bool {
        match self {
            Op::LaneId
            | Op::ExclusiveScanAdd
            | Op::Index
            | Op::Insert
            | Op::Compact
            | Op::Rotate
            | Op::PackedLoadActive => true,
            Op::Extract | Op::Shuffle => arg_varies(1),
            _ => false,
        }
    }

    /// Whether `--for-autodiff` clones may hold it: Enzyme sees its inline
    /// form (vector shuffles, reductions, a compress store); only those
    /// whose results carry no derivative are accepted.
    pub fn differentiable_free(self) -> bool {
        matches!(
            self,
            Op::LaneId
                | Op::NumLanes
                | Op::Any
                | Op::All
                | Op::Ballot
                | Op::CountTrue
                | Op::CountActive
                | Op::Index
                | Op::Mask
        )
    }
}

/// Whether `t` is an element type the typed operations take: an integer
/// of 8 to 64 bits, `float` or `double`.
fn is_element(t: Type) -> bool {
    is_float(t) || matches!(t.int_width(), 8 | 16 | 32 | 64)
}

fn is_int(t: Type) -> bool {
    (1..=64).contains(&t.int_width())
}

fn is_float(t: Type) -> bool {
    matches!(t.kind(), LLVMTypeKind::LLVMFloatTypeKind | LLVMTypeKind::LLVMDoubleTypeKind)
}

/// Checks that `call` of `op` has a signature the operation takes, and
/// (`width` lanes) that its result fits; the message names what is wrong.
pub fn check_call(call: Value, op: Op, width: u32, arg_varies: impl Fn(u32) -> bool) -> Result<(), String> {
    let fty = call.called_function_type();
    let (ret, params) = (fty.return_type(), fty.param_types());
    let shape_ok = match (op, params.as_slice()) {
        (Op::LaneId | Op::NumLanes | Op::CountActive, []) => is_int(ret),
        (Op::Mask, []) => is_int(ret),
        (Op::Any | Op::All | Op::CountTrue | Op::Index | Op::Ballot, [c]) => is_int(*c) && is_int(ret),
        (Op::Reduce(r), [x]) => {
            *x == ret
                && is_element(ret)
                && (!is_float(ret) || matches!(r, Reduce::Add | Reduce::Min | Reduce::Max | Reduce::Mul))
        }
        (Op::ExclusiveScanAdd, [x]) => *x == ret && is_int(ret) && ret.int_width() >= 8,
        (Op::BroadcastFirst, [x]) => *x == ret && is_element(ret),
        (Op::Extract | Op::Shuffle, [x, lane]) => *x == ret && is_element(ret) && is_int(*lane),
        (Op::Insert, [x, lane, y]) => *x == ret && *y == ret && is_element(ret) && is_int(*lane),
        (Op::PackedStoreActive, [p, x]) => p.is_pointer() && is_element(*x) && is_int(ret),
        (Op::Rotate, [x, s]) => *x == ret && is_element(ret) && is_int(*s),
        (Op::Compact, [x, c]) => *x == ret && is_element(ret) && is_int(*c),
        (Op::LoadLane, [p, lane]) => p.is_pointer() && is_element(ret) && is_int(*lane),
        (Op::PackedLoadActive, [p]) => p.is_pointer() && is_element(ret),
        _ => false,
    };
    if !shape_ok {
        return Err(format!("is called as `{}`, which does not fit the operation", fty.print()));
    }
    if op == Op::Ballot && ret.int_width() < width {
        return Err(format!("returns `{}`, too narrow for the {width} lanes' bits", ret.print()));
    }
    if matches!(op, Op::LaneId | Op::NumLanes | Op::CountActive | Op::CountTrue | Op::Index | Op::PackedStoreActive)
        && ret.int_width() < 64
        && u64::from(width) >= 1u64 << (ret.int_width() - 1).min(63)
    {
        return Err(format!("returns `{}`, too narrow for {width} lanes", ret.print()));
    }
    if op == Op::PackedStoreActive && arg_varies(0) {
        return Err("stores through a pointer that differs between lanes (it must be the same in all)".into());
    }
    if op == Op::PackedLoadActive && arg_varies(0) {
        return Err("loads through a pointer that differs between lanes (it must be the same in all)".into());
    }
    if op == Op::Rotate && call.operand(1).const_int_value().is_none() {
        return Err("rotates by an amount that is not a constant".into());
    }
    if op == Op::LoadLane && arg_varies(1) {
        return Err("loads through a lane whose index differs between lanes (it must be the same in all)".into());
    }
    if op == Op::Insert && arg_varies(1) {
        return Err("inserts at a lane index that differs between lanes (it must be the same in all)".into());
    }
    Ok(())
}

/// Marks every cross-lane operation the module declares or defines
/// `convergent`, so that LLVM's passes neither hoist a call out of a branch
/// nor merge the calls of two branches into one (either would change which
/// lanes it sees). C gets this from `batchify.h`; Rust cannot say it, so
/// the plugin calls this at the pipeline's start. Returns how many it marked.
pub fn mark_convergent(module: crate::llvm::Module) -> usize {
    let mut marked = 0;
    for f in module.functions() {
        let is_op = op_named(&f.name()).is_some() && (f.is_declaration() || !f.name().starts_with("rv_"));
        if is_op && f.intrinsic_id() == 0 && !f.has_fn_attribute("convergent") {
            let ctx = f.function_type().context();
            f.add_attribute(crate::llvm::FUNCTION_INDEX, crate::llvm::create_enum_attribute(ctx, "convergent", 0));
            marked += 1;
        }
    }
    marked
}

/// The first cross-lane operation `f` calls, directly or through the
/// module functions it calls (their name, and the operation's): what makes
/// `f`'s clones need their vector form.
pub fn first_use(f: Value<'_>) -> Option<(String, String)> {
    uses_from(f).remove(&f).flatten()
}

/// The module functions `f` calls that use cross-lane operations (directly
/// or through their callees), found in one walk.
pub fn group_callees<'ctx>(f: Value<'ctx>) -> HashSet<Value<'ctx>> {
    let uses = uses_from(f);
    defined_callees(f).into_iter().filter(|c| matches!(uses.get(c), Some(Some(_)))).collect()
}

/// The module functions a function calls (not the operations themselves).
fn defined_callees(f: Value<'_>) -> Vec<Value<'_>> {
    let mut out = Vec::new();
    for b in f.blocks() {
        for i in b.instructions() {
            if i.is_call() && op_of(i).is_none() {
                let c = i.called_value();
                if c.is_function() && c.intrinsic_id() == 0 && !c.is_declaration() && !out.contains(&c) {
                    out.push(c);
                }
            }
        }
    }
    out
}

/// For every function reachable from `root` through calls: the
/// operation it uses first (the function holding the call, and the
/// operation's name), or `None`. A fixed point over the call graph, so
/// that recursion is seen through.
fn uses_from<'ctx>(root: Value<'ctx>) -> HashMap<Value<'ctx>, Option<(String, String)>> {
    let mut order = vec![root];
    let mut queued: HashSet<Value> = HashSet::from([root]);
    let mut callees: HashMap<Value, Vec<Value>> = HashMap::new();
    let mut k = 0;
    while k < order.len() {
        let f = order[k];
        k += 1;
        if f.is_declaration() {
            callees.insert(f, Vec::new());
            continue;
        }
        let cs = defined_callees(f);
        for c in &cs {
            if queued.insert(*c) {
                order.push(*c);
            }
        }
        callees.insert(f, cs);
    }
    let direct = |f: Value<'ctx>| -> Option<(String, String)> {
        if f.is_declaration() {
            return None;
        }
        f.blocks()
            .into_iter()
            .flat_map(|b| b.instructions())
            .find(|i| op_of(*i).is_some())
            .map(|i| (f.name(), i.called_value().name()))
    };
    let mut state: HashMap<Value, Option<(String, String)>> = order.iter().map(|f| (*f, direct(*f))).collect();
    loop {
        let mut changed = false;
        for f in &order {
            if state[f].is_some() {
                continue;
            }
            if let Some(found) = callees[f].iter().find_map(|c| state[c].clone()) {
                state.insert(*f, Some(found));
                changed = true;
            }
        }
        if !changed {
            return state;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert_eq!(op_named("batchify_any"), Some(Op::Any));
        assert_eq!(op_named("batchify_any.3"), Some(Op::Any));
        assert_eq!(op_named("batchify_reduce_add_f64"), Some(Op::Reduce(Reduce::Add)));
        assert_eq!(op_named("batchify_reduce_min_u32"), Some(Op::Reduce(Reduce::UMin)));
        assert_eq!(op_named("batchify_reduce_add_f16"), None);
        assert_eq!(op_named("batchify_exclusive_scan_add_f32"), None);
        assert_eq!(op_named("batchify_packed_store_active_i64"), Some(Op::PackedStoreActive));
        assert_eq!(op_named("rv_extract_f"), Some(Op::Extract));
        assert_eq!(op_named("rv_popcount"), Some(Op::CountTrue));
        assert_eq!(op_named("rv_insert_node"), None);
        assert_eq!(op_named("rv_compact"), Some(Op::Compact));
        assert_eq!(op_named("rv_load"), Some(Op::LoadLane));
        assert_eq!(op_named("rv_shuffle"), Some(Op::Rotate));
        assert_eq!(op_named("rv_index"), Some(Op::Index));
        assert_eq!(op_named("rv_lane_id"), Some(Op::LaneId));
        assert_eq!(op_named("__batchify.active_lanes"), Some(Op::CountActive));
        assert_eq!(op_named("__batchify.index"), Some(Op::Index));
        assert_eq!(op_named("__batchify.count_true"), Some(Op::CountTrue));
        assert_eq!(op_named("__batchify.packed_load_active.f32"), Some(Op::PackedLoadActive));
        assert_eq!(op_named("__batchify.packed_load_active.i64"), Some(Op::PackedLoadActive));
        assert_eq!(op_named("__batchify.packed_load_active.f16"), None);
        assert_eq!(op_named("batchify_anything"), None);
        assert_eq!(op_named("any"), None);
    }
}
