//! Aggregates as structs of vectors: a varying struct or array value (a
//! Rust tuple, a C struct returned by value, the `{iN, i1}` of an overflow
//! intrinsic) is held as the same aggregate with each leaf widened: a leaf
//! `T` becomes `<N x T>`, a leaf `<k x T>` the element-major `<N·k x T>` of
//! [`super::vector_input`]. `{float, float}` is `{<N x float>, <N x float>}`
//! and `[4 x i32]` is `[4 x <N x i32>]`, one LLVM value, so the value map,
//! the phi slots and the return slot hold it as they hold a vector.
//!
//! * `extractvalue` and `insertvalue` (constant indices, by definition)
//!   are the same instruction on the widened value: the member at an index
//!   path of a struct of vectors is the struct of vectors (or vector) of
//!   that member;
//! * `select` blends leaf by leaf under a varying condition (one `select`
//!   of the whole value under a uniform one); `freeze` freezes each leaf;
//!   phis blend leaf by leaf ([`blend`], from [`super::control`]);
//! * `llvm.{s,u}{add,sub,mul}.with.overflow` is the same intrinsic on
//!   vectors, whose result `{<N x iN>, <N x i1>}` is already this form;
//! * everything else that produces or takes such a value (loads and stores
//!   of whole aggregates, calls that stay per lane) runs once per lane,
//!   reading and writing single lanes through [`lane_of`] and [`set_lane`].
//!
//! Aggregates of element types are structs of vectors at the ABI too
//! ([`crate::abi::varying_type`]): a clone returns `{<N x float>, <N x
//! float>}` for a scalar `{float, float}`. Aggregates with vector leaves
//! stay lane arrays at the ABI, like the vectors themselves; [`to_abi`] and
//! [`from_abi`] convert at returns and at calls of clones. Larger
//! aggregates (more than [`crate::abi::MAX_AGGREGATE_LEAVES`] leaves) and
//! empty ones are lane arrays throughout.

use super::state::Widener;
use super::vector_input;
use crate::abi::{self, varying_type, zip_leaves};
use crate::analysis::calls;
use crate::llvm::LLVMOpcode::*;
use crate::llvm::{constant, copy_flags, Builder, Type, Value};
pub(crate) use crate::plan::layout::is_split;
use crate::plan::layout::{is_plain_vector, value_type};

/// Lane `k` of one widened leaf of scalar type `leaf`.
fn leaf_lane<'ctx>(b: &Builder<'ctx>, v: Value<'ctx>, leaf: Type<'ctx>, n: u32, k: u32) -> Value<'ctx> {
    if is_plain_vector(leaf) {
        vector_input::lane_of(b, v, n, k)
    } else {
        b.extract_element(v, k)
    }
}

/// Lane `k` of a struct of vectors of scalar type `t`, as a scalar aggregate.
pub(crate) fn lane_of<'ctx>(b: &Builder<'ctx>, v: Value<'ctx>, t: Type<'ctx>, n: u32, k: u32) -> Value<'ctx> {
    zip_leaves(b, t, &|t| t, &[v], &mut |leaf, p| leaf_lane(b, p[0], leaf, n, k))
}

/// `acc` (a struct of vectors of scalar type `t`) with lane `k` set to the
/// scalar aggregate `x`.
pub(crate) fn set_lane<'ctx>(
    b: &Builder<'ctx>,
    acc: Value<'ctx>,
    t: Type<'ctx>,
    x: Value<'ctx>,
    n: u32,
    k: u32,
) -> Value<'ctx> {
    zip_leaves(b, t, &|t| value_type(t, n), &[acc, x], &mut |leaf, p| {
        if is_plain_vector(leaf) {
            vector_input::set_lane(b, p[0], p[1], n, k)
        } else {
            b.insert_element(p[0], p[1], k)
        }
    })
}

/// A uniform aggregate `u` given to every lane.
pub(crate) fn splat<'ctx>(b: &Builder<'ctx>, u: Value<'ctx>, n: u32) -> Value<'ctx> {
    zip_leaves(b, u.ty(), &|t| value_type(t, n), &[u], &mut |leaf, p| {
        if is_plain_vector(leaf) {
            vector_input::splat_wide(b, p[0], n)
        } else {
            abi::splat(b, p[0], n)
        }
    })
}

/// `select(em, a, c)` lane by lane for structs of vectors of scalar type `t`.
pub(crate) fn blend<'ctx>(
    b: &Builder<'ctx>,
    em: Value<'ctx>,
    a: Value<'ctx>,
    c: Value<'ctx>,
    t: Type<'ctx>,
    n: u32,
) -> Value<'ctx> {
    zip_leaves(b, t, &|t| value_type(t, n), &[a, c], &mut |leaf, p| {
        let m = if is_plain_vector(leaf) { vector_input::broadcast_lanes(b, em, leaf.vector_len()) } else { em };
        b.select(m, p[0], p[1])
    })
}

/// The clone's value `v` of scalar type `t` in the ABI's form: itself,
/// or a lane array for aggregates with vector leaves.
pub(crate) fn to_abi<'ctx>(b: &Builder<'ctx>, v: Value<'ctx>, t: Type<'ctx>, n: u32) -> Value<'ctx> {
    let abi_ty = varying_type(t, n);
    if v.ty() == abi_ty || !is_split(t) {
        return v;
    }
    let mut acc = constant::poison(abi_ty);
    for j in 0..n {
        let l = lane_of(b, v, t, n, j);
        acc = b.insert_value(acc, l, j);
    }
    acc
}

/// A value of scalar type `t` in the ABI's form (a call's result), in the
/// clone's form.
pub(crate) fn from_abi<'ctx>(b: &Builder<'ctx>, a: Value<'ctx>, t: Type<'ctx>, n: u32) -> Value<'ctx> {
    let ty = value_type(t, n);
    if a.ty() == ty || a.ty() != varying_type(t, n) {
        return a;
    }
    if is_plain_vector(t) {
        return vector_input::from_abi(b, a, t, n);
    }
    if !is_split(t) {
        return a;
    }
    let mut acc = constant::poison(ty);
    for j in 0..n {
        let l = b.extract_value(a, j);
        acc = set_lane(b, acc, t, l, n, j);
    }
    acc
}

/// The rule for a varying instruction on structs of vectors, or `None`
/// to run it once per lane.
pub(super) fn recipe<'ctx>(w: &mut Widener<'_, 'ctx>, i: Value<'ctx>) -> Option<Value<'ctx>> {
    let n = w.n;
    let ty = i.ty();
    if ty.is_aggregate() && !is_split(ty) {
        return None; // e.g. an empty struct inside a struct of vectors
    }
    match i.opcode() {
        LLVMExtractValue => {
            let mut v = w.varying_value(i.operand(0));
            for k in i.aggregate_indices() {
                v = w.b.extract_value(v, k);
            }
            Some(v)
        }
        LLVMInsertValue => {
            let agg = w.varying_value(i.operand(0));
            let x = w.varying_value(i.operand(1));
            Some(insert_at(&w.b, agg, x, &i.aggregate_indices()))
        }
        LLVMSelect => {
            let c = i.operand(0);
            let a = w.varying_value(i.operand(1));
            let d = w.varying_value(i.operand(2));
            if c.ty().is_vector() {
                return None;
            }
            let r = if w.analyses.uniformity.is_varying(c) {
                let cv = w.varying_value(c);
                blend(&w.b, cv, a, d, ty, n)
            } else {
                w.b.select(w.uniform_value(c), a, d)
            };
            Some(r)
        }
        LLVMFreeze => {
            let a = w.varying_value(i.operand(0));
            Some(zip_leaves(&w.b, ty, &|t| value_type(t, n), &[a], &mut |_, p| w.b.freeze(p[0])))
        }
        LLVMCall => overflow_intrinsic(w, i),
        _ => None,
    }
}

/// `agg` with the member at index path `path` replaced by `x`.
fn insert_at<'ctx>(b: &Builder<'ctx>, agg: Value<'ctx>, x: Value<'ctx>, path: &[u32]) -> Value<'ctx> {
    match path {
        [] => x,
        [k] => b.insert_value(agg, x, *k),
        [k, rest @ ..] => {
            let sub = b.extract_value(agg, *k);
            let sub = insert_at(b, sub, x, rest);
            b.insert_value(agg, sub, *k)
        }
    }
}

/// The intrinsics whose `{iN, i1}` result is lane-wise: the vector form
/// takes `<N x iN>` operands and returns `{<N x iN>, <N x i1>}`.
const OVERFLOW_INTRINSICS: &[&str] = &[
    "llvm.sadd.with.overflow",
    "llvm.uadd.with.overflow",
    "llvm.ssub.with.overflow",
    "llvm.usub.with.overflow",
    "llvm.smul.with.overflow",
    "llvm.umul.with.overflow",
];

/// A call of an overflow-checking intrinsic on integers: the same
/// intrinsic on vectors.
fn overflow_intrinsic<'ctx>(w: &mut Widener<'_, 'ctx>, i: Value<'ctx>) -> Option<Value<'ctx>> {
    let base = calls::called_intrinsic(i)?;
    if !OVERFLOW_INTRINSICS.contains(&base.as_str()) || i.num_arg_operands() != 2 {
        return None;
    }
    let (a, c) = (i.operand(0), i.operand(1));
    if a.ty().int_width() == 0 {
        return None;
    }
    let va = w.varying_value(a);
    let vc = w.varying_value(c);
    let decl = w.module.intrinsic(&base, &[va.ty()])?;
    let r = w.b.call(decl.function_type(), decl, &[va, vc]);
    copy_flags(i, r);
    (r.ty() == value_type(i.ty(), w.n)).then_some(r)
}
