//! Vector input: varying values whose scalar type is already a vector
//! `<k x T>` (code that clang or rustc vectorized before batchify saw it).
//!
//! Such a value is held as one `<N·k x T>` vector in **element-major**
//! order: element `e` of lane `j` is at position `e·N + j`, so element `e`
//! of all lanes is the `N`-lane subvector `e`. Lane-wise operations then
//! work on the whole vector as they are; `extractelement` with a constant
//! index is a subvector; a reduction over the `k` elements folds the `k`
//! subvectors with `k-1` vector operations in the scalar code's order; a
//! `shufflevector` is one shuffle with its mask spread over the lanes.
//! Bit casts that change the element count go through the lane-major order
//! (each lane's `k` elements side by side, `j·k + e`), where one lane's bits
//! are contiguous as in the scalar code.
//!
//! The ABI still passes and returns such values as lane arrays
//! `[N x <k x T>]` ([`crate::abi::varying_type`]); [`to_abi`] and
//! [`from_abi`] convert at the boundary. What has no rule here (a dynamic
//! `insertelement` index, reordering reductions, stores at varying
//! addresses, vector `getelementptr`) runs once per lane.

use super::state::Widener;
use crate::abi::varying_type;
use crate::analysis::calls;
use crate::llvm::LLVMOpcode::*;
use crate::llvm::{constant, copy_flags, Builder, LLVMIntPredicate, Type, Value};
pub(crate) use crate::plan::layout::{is_plain_vector, value_type};

fn shuffle_with<'ctx>(b: &Builder<'ctx>, a: Value<'ctx>, c: Value<'ctx>, picks: &[Option<u32>]) -> Value<'ctx> {
    let ctx = b.context();
    let mask: Vec<Value> = picks
        .iter()
        .map(|p| match p {
            Some(k) => constant::i32(ctx, *k),
            None => constant::poison(Type::int(ctx, 32)),
        })
        .collect();
    b.shuffle(a, c, constant::vector(&mask))
}

fn shuffle<'ctx>(b: &Builder<'ctx>, a: Value<'ctx>, picks: &[Option<u32>]) -> Value<'ctx> {
    shuffle_with(b, a, constant::poison(a.ty()), picks)
}

/// Lane `j`'s `<k x T>` of an element-major value.
pub(crate) fn lane_of<'ctx>(b: &Builder<'ctx>, wide: Value<'ctx>, n: u32, j: u32) -> Value<'ctx> {
    let k = wide.ty().vector_len() / n;
    shuffle(b, wide, &(0..k).map(|e| Some(e * n + j)).collect::<Vec<_>>())
}

/// `wide` with lane `j` replaced by `x` (`<k x T>`).
pub(crate) fn set_lane<'ctx>(b: &Builder<'ctx>, wide: Value<'ctx>, x: Value<'ctx>, n: u32, j: u32) -> Value<'ctx> {
    let total = wide.ty().vector_len();
    let k = total / n;
    // `x` widened to the full length (its elements first), then merged.
    let xw = shuffle(b, x, &(0..total).map(|p| (p < k).then_some(p)).collect::<Vec<_>>());
    let picks: Vec<Option<u32>> = (0..total).map(|p| Some(if p % n == j { total + p / n } else { p })).collect();
    shuffle_with(b, wide, xw, &picks)
}

/// A uniform `<k x T>` as an element-major value: every lane gets it.
pub(crate) fn splat_wide<'ctx>(b: &Builder<'ctx>, u: Value<'ctx>, n: u32) -> Value<'ctx> {
    let k = u.ty().vector_len();
    shuffle(b, u, &(0..n * k).map(|p| Some(p / n)).collect::<Vec<_>>())
}

/// A varying scalar (`<N x T>`) given to each of a lane's `k` elements.
pub(crate) fn broadcast_lanes<'ctx>(b: &Builder<'ctx>, v: Value<'ctx>, k: u32) -> Value<'ctx> {
    let n = v.ty().vector_len();
    shuffle(b, v, &(0..n * k).map(|p| Some(p % n)).collect::<Vec<_>>())
}

/// Subvector `e` (element `e` of every lane).
fn subvector<'ctx>(b: &Builder<'ctx>, wide: Value<'ctx>, n: u32, e: u32) -> Value<'ctx> {
    shuffle(b, wide, &(0..n).map(|j| Some(e * n + j)).collect::<Vec<_>>())
}

/// Element-major to lane-major order.
fn to_lane_major<'ctx>(b: &Builder<'ctx>, wide: Value<'ctx>, n: u32) -> Value<'ctx> {
    let k = wide.ty().vector_len() / n;
    shuffle(b, wide, &(0..n * k).map(|p| Some((p % k) * n + p / k)).collect::<Vec<_>>())
}

/// Lane-major to element-major order.
fn from_lane_major<'ctx>(b: &Builder<'ctx>, lm: Value<'ctx>, n: u32) -> Value<'ctx> {
    let k = lm.ty().vector_len() / n;
    shuffle(b, lm, &(0..n * k).map(|p| Some((p % n) * k + p / n)).collect::<Vec<_>>())
}

/// An element-major value as the ABI's lane array `[N x <k x T>]`.
pub(crate) fn to_abi<'ctx>(b: &Builder<'ctx>, wide: Value<'ctx>, scalar: Type<'ctx>, n: u32) -> Value<'ctx> {
    let mut acc = constant::poison(varying_type(scalar, n));
    for j in 0..n {
        let l = lane_of(b, wide, n, j);
        acc = b.insert_value(acc, l, j);
    }
    acc
}

/// The ABI's lane array `[N x <k x T>]` as an element-major value.
pub(crate) fn from_abi<'ctx>(b: &Builder<'ctx>, arr: Value<'ctx>, scalar: Type<'ctx>, n: u32) -> Value<'ctx> {
    let mut acc = constant::poison(value_type(scalar, n));
    for j in 0..n {
        let l = b.extract_value(arr, j);
        acc = set_lane(b, acc, l, n, j);
    }
    acc
}

/// `k` values of `<N x T>` joined into one `<k·N x T>`, in order.
pub(super) fn concat<'ctx>(b: &Builder<'ctx>, parts: &[Value<'ctx>]) -> Value<'ctx> {
    let mut parts: Vec<Value> = parts.to_vec();
    while parts.len() > 1 {
        let mut next = Vec::new();
        for pair in parts.chunks(2) {
            if let [a, c] = pair {
                let (la, lc) = (a.ty().vector_len(), c.ty().vector_len());
                // Pad the shorter second part to the first's length.
                let c = if la == lc {
                    *c
                } else {
                    shuffle(b, *c, &(0..la).map(|p| (p < lc).then_some(p)).collect::<Vec<_>>())
                };
                next.push(shuffle_with(b, *a, c, &(0..la + lc).map(Some).collect::<Vec<_>>()));
            } else {
                next.push(pair[0]);
            }
        }
        parts = next;
    }
    parts[0]
}

/// The rule for a varying instruction that involves plain vectors, or
/// `None` to run it once per lane.
pub(super) fn recipe<'ctx>(w: &mut Widener<'_, 'ctx>, i: Value<'ctx>) -> Option<Value<'ctx>> {
    let n = w.n;
    let ty = i.ty();
    let lane_wise = is_plain_vector(ty)
        && i.operands().iter().all(|o| is_plain_vector(o.ty()) && o.ty().vector_len() == ty.vector_len());
    let r = match i.opcode() {
        LLVMAdd | LLVMFAdd | LLVMSub | LLVMFSub | LLVMMul | LLVMFMul | LLVMFDiv | LLVMFRem | LLVMShl | LLVMLShr
        | LLVMAShr | LLVMAnd | LLVMOr | LLVMXor
            if lane_wise =>
        {
            let a = w.varying_value(i.operand(0));
            let c = w.varying_value(i.operand(1));
            w.b.binop(i.opcode(), a, c)
        }
        LLVMUDiv | LLVMSDiv | LLVMURem | LLVMSRem if lane_wise => {
            let mut a = w.varying_value(i.operand(0));
            let mut d = w.varying_value(i.operand(1));
            if !w.flow.full {
                let k = ty.vector_len();
                let ones = constant::vector(&vec![constant::int(ty.element(), 1); (n * k) as usize]);
                let m = broadcast_lanes(&w.b, w.flow.mask, k);
                a = w.b.freeze(a);
                let frozen = w.b.freeze(d);
                d = w.b.select(m, frozen, ones);
            }
            w.b.binop(i.opcode(), a, d)
        }
        LLVMFNeg if lane_wise => {
            let a = w.varying_value(i.operand(0));
            w.b.fneg(a)
        }
        LLVMFreeze if lane_wise => {
            let a = w.varying_value(i.operand(0));
            w.b.freeze(a)
        }
        LLVMICmp | LLVMFCmp if is_plain_vector(i.operand(0).ty()) => {
            let a = w.varying_value(i.operand(0));
            let c = w.varying_value(i.operand(1));
            if i.opcode() == LLVMICmp {
                w.b.icmp(i.icmp_predicate(), a, c)
            } else {
                w.b.fcmp(i.fcmp_predicate(), a, c)
            }
        }
        LLVMTrunc | LLVMZExt | LLVMSExt | LLVMFPToUI | LLVMFPToSI | LLVMUIToFP | LLVMSIToFP | LLVMFPTrunc
        | LLVMFPExt | LLVMPtrToInt | LLVMIntToPtr | LLVMAddrSpaceCast
            if lane_wise =>
        {
            let a = w.varying_value(i.operand(0));
            w.b.cast(i.opcode(), a, value_type(ty, n))
        }
        LLVMBitCast => bit_cast(w, i)?,
        LLVMSelect if is_plain_vector(ty) => {
            let c = i.operand(0);
            let cond = if is_plain_vector(c.ty()) {
                w.varying_value(c)
            } else if w.analyses.uniformity.is_varying(c) {
                let cv = w.varying_value(c);
                broadcast_lanes(&w.b, cv, ty.vector_len())
            } else {
                w.uniform_value(c)
            };
            let a = w.varying_value(i.operand(1));
            let d = w.varying_value(i.operand(2));
            w.b.select(cond, a, d)
        }
        LLVMExtractElement => extract_element(w, i)?,
        LLVMInsertElement => insert_element(w, i)?,
        LLVMShuffleVector => shuffle_vector(w, i)?,
        LLVMCall => call(w, i)?,
        LLVMLoad if is_plain_vector(ty) => load(w, i)?,
        LLVMStore if !w.analyses.uniformity.is_varying(i.operand(1)) => store_last_lane(w, i),
        _ => return None,
    };
    copy_flags(i, r);
    Some(r)
}

/// A bit cast that keeps each lane's bits: through the lane-major order
/// where the element count changes.
fn bit_cast<'ctx>(w: &mut Widener<'_, 'ctx>, i: Value<'ctx>) -> Option<Value<'ctx>> {
    let n = w.n;
    let (from, to) = (i.operand(0).ty(), i.ty());
    let plain = |t: Type| is_plain_vector(t) || (t.is_vector_element() && t.int_width() > 0 || is_float(t));
    if !plain(from) || !plain(to) || from.kind() == crate::llvm::LLVMTypeKind::LLVMPointerTypeKind {
        return None;
    }
    let a = w.varying_value(i.operand(0));
    if is_plain_vector(from) && is_plain_vector(to) && from.vector_len() == to.vector_len() {
        return Some(w.b.cast(LLVMBitCast, a, value_type(to, n)));
    }
    let lm = if is_plain_vector(from) { to_lane_major(&w.b, a, n) } else { a };
    let total_to = if is_plain_vector(to) { to.element().vector_of(n * to.vector_len()) } else { to.vector_of(n) };
    let cast = w.b.cast(LLVMBitCast, lm, total_to);
    Some(if is_plain_vector(to) { from_lane_major(&w.b, cast, n) } else { cast })
}

fn is_float(t: Type) -> bool {
    use crate::llvm::LLVMTypeKind::*;
    matches!(t.kind(), LLVMHalfTypeKind | LLVMBFloatTypeKind | LLVMFloatTypeKind | LLVMDoubleTypeKind)
}

/// `extractelement`: a subvector for a constant index; a chain of selects
/// over the `k` subvectors for a computed one.
fn extract_element<'ctx>(w: &mut Widener<'_, 'ctx>, i: Value<'ctx>) -> Option<Value<'ctx>> {
    let n = w.n;
    let src = i.operand(0);
    let k = src.ty().vector_len();
    let v = w.varying_value(src);
    let idx = i.operand(1);
    if let Some(e) = idx.const_int_value() {
        if e >= k as u64 {
            return Some(constant::poison(i.ty().vector_of(n)));
        }
        return Some(subvector(&w.b, v, n, e as u32));
    }
    if k > 16 {
        return None;
    }
    let iv = w.varying_value(idx);
    let mut r = subvector(&w.b, v, n, 0);
    for e in 1..k {
        let here = w.b.icmp(
            LLVMIntPredicate::LLVMIntEQ,
            iv,
            constant::vector(&vec![constant::int(idx.ty(), e as u64); n as usize]),
        );
        let part = subvector(&w.b, v, n, e);
        r = w.b.select(here, part, r);
    }
    Some(r)
}

/// `insertelement` at a constant index: subvector `e` replaced.
fn insert_element<'ctx>(w: &mut Widener<'_, 'ctx>, i: Value<'ctx>) -> Option<Value<'ctx>> {
    let n = w.n;
    let e = i.operand(2).const_int_value()?;
    let k = i.ty().vector_len();
    let v = w.varying_value(i.operand(0));
    if e >= k as u64 {
        return Some(constant::poison(v.ty()));
    }
    let x = w.varying_value(i.operand(1));
    let total = n * k;
    let xw = shuffle(&w.b, x, &(0..total).map(|p| (p < n).then_some(p)).collect::<Vec<_>>());
    let picks: Vec<Option<u32>> = (0..total).map(|p| Some(if p / n == e as u32 { total + p % n } else { p })).collect();
    Some(shuffle_with(&w.b, v, xw, &picks))
}

/// `shufflevector` with a constant mask: one shuffle of the element-major
/// values, the mask spread over the lanes.
fn shuffle_vector<'ctx>(w: &mut Widener<'_, 'ctx>, i: Value<'ctx>) -> Option<Value<'ctx>> {
    let n = w.n;
    let mask = i.shuffle_mask()?;
    let ka = i.operand(0).ty().vector_len();
    let a = w.varying_value(i.operand(0));
    let c = w.varying_value(i.operand(1));
    let picks: Vec<Option<u32>> = mask
        .iter()
        .flat_map(|m| (0..n).map(move |j| m.map(|m| if m < ka { m * n + j } else { ka * n + (m - ka) * n + j })))
        .collect();
    Some(shuffle_with(&w.b, a, c, &picks))
}

/// Calls: reductions, `cttz.elts` and lane-wise intrinsics on vectors.
fn call<'ctx>(w: &mut Widener<'_, 'ctx>, i: Value<'ctx>) -> Option<Value<'ctx>> {
    let base = calls::called_intrinsic(i)?;
    let n = w.n;
    if let Some(op) = reduction_op(&base) {
        let v = w.varying_value(i.operand(0));
        let k = i.operand(0).ty().vector_len();
        let mut acc = subvector(&w.b, v, n, 0);
        for e in 1..k {
            let part = subvector(&w.b, v, n, e);
            acc = match op {
                Fold::Bin(o) => w.b.binop(o, acc, part),
                Fold::Intrinsic(name) => {
                    let f = w.module.intrinsic(name, &[acc.ty()])?;
                    w.b.call(f.function_type(), f, &[acc, part])
                }
            };
        }
        return Some(acc);
    }
    if matches!(base.as_str(), "llvm.vector.reduce.fadd" | "llvm.vector.reduce.fmul") {
        // Ordered (no `reassoc`): the start value, then each element in turn.
        if crate::llvm::fast_math_flags(i) != 0 {
            return None;
        }
        let o = if base.ends_with("fadd") { LLVMFAdd } else { LLVMFMul };
        let mut acc = w.varying_value(i.operand(0));
        let v = w.varying_value(i.operand(1));
        let k = i.operand(1).ty().vector_len();
        for e in 0..k {
            let part = subvector(&w.b, v, n, e);
            acc = w.b.binop(o, acc, part);
        }
        return Some(acc);
    }
    if base == "llvm.experimental.cttz.elts" && i.operand(0).ty().element().int_width() == 1 {
        let k = i.operand(0).ty().vector_len();
        let v = w.varying_value(i.operand(0));
        let lm = to_lane_major(&w.b, v, n);
        let lanes_ty = Type::int(w.ctx(), k).vector_of(n);
        let bits = w.b.cast(LLVMBitCast, lm, lanes_ty);
        let f = w.module.intrinsic("llvm.cttz", &[lanes_ty])?;
        let no = constant::int(Type::int(w.ctx(), 1), 0);
        let count = w.b.call(f.function_type(), f, &[bits, no]);
        let rty = i.ty().vector_of(n);
        let width = i.ty().int_width();
        return Some(match width.cmp(&k) {
            std::cmp::Ordering::Equal => count,
            std::cmp::Ordering::Greater => w.b.cast(LLVMZExt, count, rty),
            std::cmp::Ordering::Less => w.b.cast(LLVMTrunc, count, rty),
        });
    }
    // A lane-wise intrinsic over vectors: the same intrinsic over the
    // element-major values.
    let lw = calls::lane_wise_intrinsic(&base)?;
    if !is_plain_vector(i.ty()) {
        return None;
    }
    let k = i.ty().vector_len();
    let mut vargs = Vec::new();
    for a in 0..i.num_arg_operands() {
        let arg = i.operand(a);
        if lw.scalar_args.contains(&a) {
            if w.analyses.uniformity.is_varying(arg) {
                return None;
            }
            vargs.push(w.uniform_value(arg));
        } else if is_plain_vector(arg.ty()) && arg.ty().vector_len() == k {
            vargs.push(w.varying_value(arg));
        } else {
            return None;
        }
    }
    let ret = value_type(i.ty(), n);
    let arg_tys: Vec<Type> = vargs.iter().map(|v| v.ty()).collect();
    let overloads = calls::vector_overloads(lw, ret, &arg_tys);
    let decl = w.module.intrinsic(&base, &overloads)?;
    Some(w.b.call(decl.function_type(), decl, &vargs))
}

/// How a reduction folds two partial results.
enum Fold {
    Bin(crate::llvm::LLVMOpcode),
    Intrinsic(&'static str),
}

/// Reductions whose result does not depend on the order of the elements.
fn reduction_op(base: &str) -> Option<Fold> {
    Some(match base {
        "llvm.vector.reduce.add" => Fold::Bin(LLVMAdd),
        "llvm.vector.reduce.mul" => Fold::Bin(LLVMMul),
        "llvm.vector.reduce.and" => Fold::Bin(LLVMAnd),
        "llvm.vector.reduce.or" => Fold::Bin(LLVMOr),
        "llvm.vector.reduce.xor" => Fold::Bin(LLVMXor),
        "llvm.vector.reduce.smax" => Fold::Intrinsic("llvm.smax"),
        "llvm.vector.reduce.smin" => Fold::Intrinsic("llvm.smin"),
        "llvm.vector.reduce.umax" => Fold::Intrinsic("llvm.umax"),
        "llvm.vector.reduce.umin" => Fold::Intrinsic("llvm.umin"),
        _ => return None,
    })
}

/// A `<k x T>` load at varying addresses: one gather per element.
fn load<'ctx>(w: &mut Widener<'_, 'ctx>, i: Value<'ctx>) -> Option<Value<'ctx>> {
    let n = w.n;
    let ty = i.ty();
    let elem = ty.element();
    if !crate::plan::memory::is_plain_element(elem) {
        return None;
    }
    let size = w.module.abi_size_of(elem);
    let ptrs = w.varying_value(i.operand(0));
    let m = if w.flow.full { w.all_true() } else { w.flow.mask };
    let vty = elem.vector_of(n);
    let f = w.module.intrinsic("llvm.masked.gather", &[vty, ptrs.ty()])?;
    let i64t = Type::int(w.ctx(), 64);
    let align = (i.alignment() as u64).min(size).max(1);
    let mut parts = Vec::new();
    for e in 0..ty.vector_len() {
        let at = if e == 0 {
            ptrs
        } else {
            w.b.gep(Type::int(w.ctx(), 8), ptrs, &[constant::int(i64t, e as u64 * size)], Default::default())
        };
        if w.for_autodiff {
            let mask = (!w.flow.full).then_some(m);
            let each = super::lanewise::Addresses::Each(at);
            parts.push(super::lanewise::load(w, vty, each, mask, align as u32, constant::null(vty)));
            continue;
        }
        let g = w.b.call(f.function_type(), f, &[at, m, constant::poison(vty)]);
        g.add_call_arg_attribute(0, "align", align);
        parts.push(g);
    }
    w.stats
        .memory_what
        .push(format!("gather per element: `{}` (a vector load at varying addresses)", i.print().trim()));
    Some(concat(&w.b, &parts))
}

/// A varying `<k x T>` stored at a uniform address: the last active lane's.
fn store_last_lane<'ctx>(w: &mut Widener<'_, 'ctx>, i: Value<'ctx>) -> Value<'ctx> {
    let n = w.n;
    let vals = w.varying_value(i.operand(0));
    let ptr = w.uniform_value(i.operand(1));
    let align = i.alignment();
    w.stats.memory_what.push(format!("last active lane's value: `{}`", i.print().trim()));
    if w.flow.full {
        let v = lane_of(&w.b, vals, n, n - 1);
        return w.b.store(v, ptr, align);
    }
    let any = w.any(w.flow.mask);
    let _ = w.guarded(any, |w| {
        // The highest set bit of the mask, as a lane number.
        let bits_ty = Type::int(w.ctx(), n);
        let bits = w.b.cast(LLVMBitCast, w.flow.mask, bits_ty);
        let f = w.module.intrinsic("llvm.ctlz", &[bits_ty]).expect("llvm.ctlz exists");
        let lz = w.b.call(f.function_type(), f, &[bits, constant::int(Type::int(w.ctx(), 1), 1)]);
        let last = w.b.binop(LLVMSub, constant::int(bits_ty, (n - 1) as u64), lz);
        // Pick lane `last`'s elements with one select chain per lane.
        let mut pick = lane_of(&w.b, vals, n, 0);
        for j in 1..n {
            let is_j = w.b.icmp(LLVMIntPredicate::LLVMIntEQ, last, constant::int(bits_ty, j as u64));
            let lj = lane_of(&w.b, vals, n, j);
            pick = w.b.select(is_j, lj, pick);
        }
        w.b.store(pick, ptr, align)
    });
    constant::poison(Type::int(w.ctx(), 1))
}

#[cfg(test)]
mod tests {
    /// The element-major and lane-major index maps are inverse permutations.
    #[test]
    fn lane_major_round_trip() {
        for (n, k) in [(4u32, 4u32), (8, 4), (8, 2), (16, 8), (4, 3)] {
            let to = |p: u32| (p % k) * n + p / k; // lane-major position p reads element-major
            let from = |p: u32| (p % n) * k + p / n;
            for p in 0..n * k {
                assert_eq!(to(from(p)), p, "n={n} k={k} p={p}");
            }
        }
    }
}
