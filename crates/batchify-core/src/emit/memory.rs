//! Memory by shape: builds the varying loads and stores in the form the
//! plan chose for them ([`crate::plan::memory`], which has the table).
//!
//! `--for-autodiff` clones' memory recipes are lane-wise
//! ([`crate::plan::MemoryRecipe::lanewise`], built by [`super::lanewise`]):
//! a plain vector access under a full mask, else one scalar access per
//! element whose mask bit is set, never a masked intrinsic.
//!
//! Under a partial mask the vector accesses are masked (`llvm.masked.load`
//! and `llvm.masked.store`), and the wide ones enable only the elements the
//! active lanes access, so no access touches memory a lane would not touch.
//! The vector's base address is computed from the first *active* lane
//! (inactive lanes' addresses may be poison), without wrap flags; a linear
//! parameter's (or a uniform offset from one) is lane 0's directly. Where the
//! stride is [`checked`](crate::analysis::shape::Stride::checked), the first
//! and last active lanes' addresses decide at run time between the vector
//! access and the gather or scatter.

use super::lane_scalar::lane_scalar;
use super::state::Widener;
use crate::analysis::shape::Check;
use crate::llvm::LLVMOpcode::*;
use crate::llvm::{constant, LLVMIntPredicate, Type, Value};
use crate::plan::{Access, MemoryRecipe};

/// A varying `load` in the form the plan chose.
pub(super) fn load<'ctx>(w: &mut Widener<'_, 'ctx>, i: Value<'ctx>, recipe: MemoryRecipe) -> Value<'ctx> {
    let ptr = i.operand(0);
    let access = recipe.access;
    let vty = i.ty().vector_of(w.n);
    match access {
        Access::TablePermute { .. } => {
            w.stats.memory_what.push(format!("{}: `{}`", access.name(true), short(i)));
            return super::tables::table_load(w, i, access);
        }
        Access::Gather(why) => {
            let what = if crate::plan::memory::is_sparse(i) { "sparse gather" } else { "gather" };
            w.stats.memory_what.push(format!("{what}: `{}` ({why})", short(i)));
            return gather(w, i, recipe.lanewise);
        }
        _ => {}
    }
    let stride = w.analyses.shapes.stride(ptr).expect("the plan chose a vector access by the stride");
    let ptrs = w.varying_value(ptr);
    let fast = |w: &mut Widener<'_, 'ctx>| -> Value<'ctx> {
        let base = base_address(w, ptr, ptrs, stride.step, access);
        let align = vector_align(i.alignment(), stride.step);
        match access {
            Access::Contiguous { reverse } => {
                let mask = lane_mask(w).map(|m| if reverse { reversed(w, m) } else { m });
                let v = masked_load(w, vty, base, mask, align, recipe.lanewise);
                if reverse {
                    reversed(w, v)
                } else {
                    v
                }
            }
            Access::Strided { m } => {
                let wide = i.ty().vector_of(w.n * m);
                let mask = spread_mask(w, m, 1);
                let v = masked_load(w, wide, base, Some(mask), align, recipe.lanewise);
                field_of(w, v, m, 0)
            }
            _ => unreachable!("handled above"),
        }
    };
    w.stats.memory_what.push(format!("{}: `{}`", describe(recipe), short(i)));
    let Some(check) = stride.check else { return fast(w) };
    let ok = no_wrap_between_lanes(w, check);
    w.if_else(ok, fast, |w| gather(w, i, recipe.lanewise))
}

/// A varying `store` in the form the plan chose.
pub(super) fn store<'ctx>(w: &mut Widener<'_, 'ctx>, i: Value<'ctx>, recipe: MemoryRecipe) -> Value<'ctx> {
    let (val, ptr) = (i.operand(0), i.operand(1));
    let access = recipe.access;
    match access {
        Access::LastLane => {
            w.stats.memory_what.push(format!("last active lane's value: `{}`", short(i)));
            return store_last_lane(w, i);
        }
        Access::Gather(why) => {
            let what = if crate::plan::memory::is_sparse(i) { "sparse scatter" } else { "scatter" };
            w.stats.memory_what.push(format!("{what}: `{}` ({why})", short(i)));
            return scatter(w, i, recipe.lanewise);
        }
        _ => {}
    }
    let stride = w.analyses.shapes.stride(ptr).expect("the plan chose a vector access by the stride");
    let vals = w.varying_value(val);
    let ptrs = w.varying_value(ptr);
    let fast = |w: &mut Widener<'_, 'ctx>| -> Value<'ctx> {
        let base = base_address(w, ptr, ptrs, stride.step, access);
        let align = vector_align(i.alignment(), stride.step);
        match access {
            Access::Contiguous { reverse } => {
                let v = if reverse { reversed(w, vals) } else { vals };
                let mask = lane_mask(w).map(|m| if reverse { reversed(w, m) } else { m });
                masked_store(w, v, base, mask, align, recipe.lanewise)
            }
            Access::Strided { m } => {
                let wide = val.ty().vector_of(w.n * m);
                let places: Vec<Value> = (0..w.n * m)
                    .map(|p| {
                        if p % m == 0 {
                            constant::i32(w.ctx(), p / m)
                        } else {
                            constant::poison(Type::int(w.ctx(), 32))
                        }
                    })
                    .collect();
                let spread = w.b.shuffle(vals, constant::poison(vals.ty()), constant::vector(&places));
                debug_assert_eq!(spread.ty(), wide);
                let mask = spread_mask(w, m, 1);
                masked_store(w, spread, base, Some(mask), align, recipe.lanewise)
            }
            _ => unreachable!("handled above"),
        }
    };
    w.stats.memory_what.push(format!("{}: `{}`", describe(recipe), short(i)));
    let Some(check) = stride.check else { return fast(w) };
    let ok = no_wrap_between_lanes(w, check);
    w.if_else(ok, fast, |w| scatter(w, i, recipe.lanewise))
}

/// The report's name of a vector or wide access.
pub(super) fn describe(recipe: MemoryRecipe) -> String {
    let checked = if recipe.checked { ", checked at run time" } else { "" };
    format!("{}{checked}", recipe.access.name(true))
}

/// An instruction's text for the report.
pub(super) fn short(i: Value) -> String {
    i.print().trim().to_string()
}

/// The alignment the vector access can promise: the scalar one, unless the
/// step between lanes is less aligned.
pub(super) fn vector_align(scalar: u32, step: i64) -> u32 {
    let step_align = 1u64 << step.unsigned_abs().trailing_zeros().min(31);
    (scalar as u64).min(step_align).max(1) as u32
}

/// The first and last active lanes, as `i64` (lane 0 and N-1 under a full
/// mask; both clamped into range when no lane is active).
pub(super) struct ActiveLanes<'ctx> {
    pub(super) first: Value<'ctx>,
    pub(super) last: Value<'ctx>,
}

pub(super) fn active_lanes<'ctx>(w: &mut Widener<'_, 'ctx>) -> ActiveLanes<'ctx> {
    let i64t = Type::int(w.ctx(), 64);
    if w.flow.full {
        return ActiveLanes { first: constant::int(i64t, 0), last: constant::int(i64t, (w.n - 1) as u64) };
    }
    let bits_ty = Type::int(w.ctx(), w.n);
    let bits = w.b.cast(LLVMBitCast, w.flow.mask, bits_ty);
    let no = constant::int(Type::int(w.ctx(), 1), 0);
    let count = |w: &mut Widener<'_, 'ctx>, name: &str| {
        let f = w.module.intrinsic(name, &[bits_ty]).expect("llvm.cttz and llvm.ctlz exist");
        w.b.call(f.function_type(), f, &[bits, no])
    };
    let umin = w.module.intrinsic("llvm.umin", &[bits_ty]).expect("llvm.umin exists");
    let top = constant::int(bits_ty, (w.n - 1) as u64);
    let trailing = count(w, "llvm.cttz");
    let first = w.b.call(umin.function_type(), umin, &[trailing, top]);
    let leading = count(w, "llvm.ctlz");
    let from_top = w.b.binop(LLVMSub, top, leading);
    let last = w.b.call(umin.function_type(), umin, &[from_top, top]);
    let widen = |w: &mut Widener<'_, 'ctx>, v: Value<'ctx>| {
        if w.n == 64 {
            v
        } else {
            w.b.cast(LLVMZExt, v, i64t)
        }
    };
    ActiveLanes { first: widen(w, first), last: widen(w, last) }
}

/// Lane `lane` (an `i64`) of a vector.
fn lane<'ctx>(w: &Widener<'_, 'ctx>, v: Value<'ctx>, lane: Value<'ctx>) -> Value<'ctx> {
    match lane.const_int_value() {
        Some(k) => w.b.extract_element(v, k as u32),
        None => w.b.extract_element_dyn(v, lane),
    }
}

/// Lane `lane` (an `i64`) of `vector`, the clone's value of the scalar
/// code's `v`: recomputed in scalar code where the lane is a constant and
/// `v` is linear arithmetic ([`lane_scalar`]), else extracted.
pub(super) fn known_lane<'ctx>(
    w: &Widener<'_, 'ctx>,
    v: Value<'ctx>,
    vector: Value<'ctx>,
    lane_index: Value<'ctx>,
) -> Value<'ctx> {
    lane_index
        .const_int_value()
        .and_then(|k| lane_scalar(w, v, k as u32))
        .unwrap_or_else(|| lane(w, vector, lane_index))
}

/// The address of the vector access: lane 0's (lane N-1's when reversed),
/// computed directly for a linear parameter ([`linear_param_lane`]), else
/// from the first active lane's address (`ptrs`, the clone's vector of the
/// scalar code's address `ptr`; recomputed in scalar code where the first
/// active lane is known, see [`lane_scalar`]).
pub(super) fn base_address<'ctx>(
    w: &mut Widener<'_, 'ctx>,
    ptr: Value<'ctx>,
    ptrs: Value<'ctx>,
    step: i64,
    access: Access,
) -> Value<'ctx> {
    let i64t = Type::int(w.ctx(), 64);
    let base_lane = if matches!(access, Access::Contiguous { reverse: true }) { w.n - 1 } else { 0 };
    if let Some(at) = linear_param_lane(w, ptr, base_lane) {
        return at;
    }
    let first = active_lanes(w).first;
    let at = known_lane(w, ptr, ptrs, first);
    let lanes_away = w.b.binop(LLVMSub, constant::int(i64t, base_lane as u64), first);
    let offset = w.b.binop(LLVMMul, lanes_away, constant::int(i64t, step as u64));
    if offset.const_int_value() == Some(0) {
        return at;
    }
    w.b.gep(Type::int(w.ctx(), 8), at, &[offset], Default::default())
}

/// Lane `k`'s value of `ptr`, computed directly, when `ptr` is a linear
/// parameter or a `getelementptr` of one with uniform indices: that lane's
/// address is the parameter's plus `k` steps by the ABI, whether or not the
/// lane is active, and [`lane_scalar`] recomputes it without wrap flags, so
/// it is never poison (the address of an inactive lane computed from
/// other values may be). A linear pointer's access then needs no search
/// for its first active lane.
fn linear_param_lane<'ctx>(w: &Widener<'_, 'ctx>, ptr: Value<'ctx>, k: u32) -> Option<Value<'ctx>> {
    let is_param = |v: Value<'ctx>| w.values.linear_params.contains_key(&v);
    let uniform_gep = ptr.is_instruction()
        && ptr.opcode() == LLVMGetElementPtr
        && is_param(ptr.operand(0))
        && (1..ptr.num_operands()).all(|i| !w.analyses.uniformity.is_varying(ptr.operand(i)));
    (is_param(ptr) || uniform_gep).then(|| lane_scalar(w, ptr, k)).flatten()
}

/// Whether the first and last active lanes of the checked value are
/// `check.step` apart per lane: then no extension wrapped between them
/// (see [`crate::analysis::shape`]).
pub(super) fn no_wrap_between_lanes<'ctx>(w: &mut Widener<'_, 'ctx>, check: Check<'ctx>) -> Value<'ctx> {
    let i64t = Type::int(w.ctx(), 64);
    let lanes = active_lanes(w);
    let v = w.varying_value(check.value);
    let mut a = known_lane(w, check.value, v, lanes.first);
    let mut z = known_lane(w, check.value, v, lanes.last);
    // The narrow values whose sign extensions are compared: `a` and `z`
    // themselves, or what they extend where the checked value is a `sext`.
    let narrow = if check.widen {
        Some((a, z))
    } else if a.opcode() == LLVMSExt && z.opcode() == LLVMSExt && a.operand(0).ty() == z.operand(0).ty() {
        Some((a.operand(0), z.operand(0)))
    } else {
        None
    };
    let (first, last) = (lanes.first.const_int_value(), lanes.last.const_int_value());
    if let Some(c) = narrow.and_then(|(a, z)| no_signed_overflow(w, a, z, last, first, check.step)) {
        return c;
    }
    let ty = if check.widen {
        a = w.b.cast(LLVMSExt, a, i64t);
        z = w.b.cast(LLVMSExt, z, i64t);
        i64t
    } else {
        check.value.ty()
    };
    let apart = w.b.binop(LLVMSub, z, a);
    let mut lanes_apart = w.b.binop(LLVMSub, lanes.last, lanes.first);
    if ty.int_width() < 64 {
        lanes_apart = w.b.cast(LLVMTrunc, lanes_apart, ty);
    }
    let expected = w.b.binop(LLVMMul, lanes_apart, constant::int(ty, check.step as u64));
    w.b.icmp(LLVMIntPredicate::LLVMIntEQ, apart, expected)
}

/// The check of [`no_wrap_between_lanes`] in one compare where the last
/// lane's value is the first's plus a constant, as recomputed in scalar
/// code under a full mask (`z = a + C` with `C = (last - first) * step`,
/// both `add`s of constants to one value):
/// the two are `C` apart after sign extension exactly when `a + C` does not
/// overflow, that is `a <= MAX - C` (`a >= MIN - C` for `C < 0`). One
/// `cmp` and a branch instead of two extensions, a subtraction and a
/// compare (which LLVM does not fold, the `add` having no `nsw`).
fn no_signed_overflow<'ctx>(
    w: &Widener<'_, 'ctx>,
    a: Value<'ctx>,
    z: Value<'ctx>,
    last: Option<u64>,
    first: Option<u64>,
    step: i64,
) -> Option<Value<'ctx>> {
    let (last, first) = (last?, first?);
    let ty = a.ty();
    let bits = ty.int_width();
    if !(2..64).contains(&bits) {
        return None;
    }
    // `a = x + C1` and `z = x + C2` (chains of `add`s of constants, wrapping),
    // so `z` is `a + (C2 - C1)` wrapped.
    let ((xa, ca), (xz, cz)) = (constant_offset(a), constant_offset(z));
    if xa != xz {
        return None;
    }
    let added = cz.wrapping_sub(ca);
    // The constant as a signed `bits`-wide number.
    let added = ((added << (64 - bits)) as i64) >> (64 - bits);
    let expected = (last as i64 - first as i64).checked_mul(step)?;
    let (min, max) = (-(1i64 << (bits - 1)), (1i64 << (bits - 1)) - 1);
    if added != expected || expected < min || expected > max {
        return None;
    }
    Some(if expected >= 0 {
        w.b.icmp(LLVMIntPredicate::LLVMIntSLE, a, constant::int(ty, (max - expected) as u64))
    } else {
        w.b.icmp(LLVMIntPredicate::LLVMIntSGE, a, constant::int(ty, (min - expected) as u64))
    })
}

/// `v` as `x + C`: the value under a chain of `add`s of integer constants
/// (a few deep), and their wrapping sum.
fn constant_offset(v: Value) -> (Value, u64) {
    let (mut x, mut c) = (v, 0u64);
    for _ in 0..4 {
        match (x.opcode() == LLVMAdd).then(|| x.operand(1).const_int_value()).flatten() {
            Some(k) => {
                c = c.wrapping_add(k);
                x = x.operand(0);
            }
            None => break,
        }
    }
    (x, c)
}

/// Field `field` of every lane from the lanes' `m`-element structures
/// `wide` (`<N·m x T>`): elements `k·m + field`.
pub(super) fn field_of<'ctx>(w: &Widener<'_, 'ctx>, wide: Value<'ctx>, m: u32, field: u32) -> Value<'ctx> {
    let picks: Vec<Value> = (0..w.n).map(|k| constant::i32(w.ctx(), k * m + field)).collect();
    w.b.shuffle(wide, constant::poison(wide.ty()), constant::vector(&picks))
}

/// `v` with its lanes in reverse order.
fn reversed<'ctx>(w: &Widener<'_, 'ctx>, v: Value<'ctx>) -> Value<'ctx> {
    let n = v.ty().vector_len();
    let idx: Vec<Value> = (0..n).rev().map(|k| constant::i32(w.ctx(), k)).collect();
    w.b.shuffle(v, constant::poison(v.ty()), constant::vector(&idx))
}

/// The mask of a wide access over `m`-element structures: element
/// `k·m + f` takes lane `k`'s bit where bit `f` of `fields` is set (a
/// strided access reads field 0 alone, an interleave group the fields it
/// reads), the others are off.
pub(super) fn spread_mask<'ctx>(w: &Widener<'_, 'ctx>, m: u32, fields: u32) -> Value<'ctx> {
    let ctx = w.ctx();
    let n = w.n;
    let read = |p: u32| fields >> (p % m) & 1 == 1;
    if w.flow.full {
        let bits: Vec<Value> = (0..n * m).map(|p| constant::int(Type::int(ctx, 1), read(p) as u64)).collect();
        return constant::vector(&bits);
    }
    let idx: Vec<Value> = (0..n * m).map(|p| constant::i32(ctx, if read(p) { p / m } else { n })).collect();
    w.b.shuffle(w.flow.mask, w.all_false(), constant::vector(&idx))
}

/// A load of `ty` (a vector) at `base` under `mask` (one bit per element);
/// a plain load for `None` (every element).
pub(super) fn masked_load<'ctx>(
    w: &Widener<'_, 'ctx>,
    ty: Type<'ctx>,
    base: Value<'ctx>,
    mask: Option<Value<'ctx>>,
    align: u32,
    lanewise: bool,
) -> Value<'ctx> {
    let Some(mask) = mask else { return w.b.load(ty, base, align) };
    if lanewise {
        let at = super::lanewise::Addresses::From(base);
        return super::lanewise::load(w, ty, at, Some(mask), align, constant::null(ty));
    }
    let f = w.module.intrinsic("llvm.masked.load", &[ty, base.ty()]).expect("llvm.masked.load exists");
    let r = w.b.call(f.function_type(), f, &[base, mask, constant::poison(ty)]);
    r.add_call_arg_attribute(0, "align", align as u64);
    r
}

/// A store of the vector `v` at `base` under `mask` (one bit per
/// element); a plain store for `None` (every element).
pub(super) fn masked_store<'ctx>(
    w: &Widener<'_, 'ctx>,
    v: Value<'ctx>,
    base: Value<'ctx>,
    mask: Option<Value<'ctx>>,
    align: u32,
    lanewise: bool,
) -> Value<'ctx> {
    let Some(mask) = mask else { return w.b.store(v, base, align) };
    if lanewise {
        return super::lanewise::store(w, v, super::lanewise::Addresses::From(base), Some(mask), align);
    }
    let f = w.module.intrinsic("llvm.masked.store", &[v.ty(), base.ty()]).expect("llvm.masked.store exists");
    let r = w.b.call(f.function_type(), f, &[v, base, mask]);
    r.add_call_arg_attribute(1, "align", align as u64);
    r
}

/// A store of a varying value at a uniform address: the lanes store one
/// after the other, so memory ends up with the last active lane's value.
fn store_last_lane<'ctx>(w: &mut Widener<'_, 'ctx>, i: Value<'ctx>) -> Value<'ctx> {
    let vals = w.varying_value(i.operand(0));
    let ptr = w.uniform_value(i.operand(1));
    let align = i.alignment();
    if w.flow.full {
        let v = w.b.extract_element(vals, w.n - 1);
        return w.b.store(v, ptr, align);
    }
    let any = w.any(w.flow.mask);
    let stored = w.guarded(any, |w| {
        let last = active_lanes(w).last;
        let v = lane(w, vals, last);
        w.b.store(v, ptr, align)
    });
    debug_assert!(stored.is_none(), "a store has no value");
    constant::poison(Type::int(w.ctx(), 1))
}

/// A load at varying addresses: a masked gather (inactive lanes read
/// nothing); a sparse one under a partial mask (`plan::memory::SPARSE_ACCESS`,
/// "sparse gather" in `--report`), a loop over the active lanes.
pub(super) fn gather<'ctx>(w: &mut Widener<'_, 'ctx>, i: Value<'ctx>, lanewise: bool) -> Value<'ctx> {
    if lane_mask(w).is_some() {
        if let Some(r) = w.call_lane_loop(i, true) {
            return r;
        }
    }
    let ptrs = w.varying_value(i.operand(0));
    gather_at(w, ptrs, i.ty().vector_of(w.n), i.alignment(), lanewise)
}

/// A gather of `vty` from the lanes' addresses `ptrs` under the execution
/// mask (inactive lanes 0), one load per active lane where `lanewise`.
pub(super) fn gather_at<'ctx>(
    w: &mut Widener<'_, 'ctx>,
    ptrs: Value<'ctx>,
    vty: Type<'ctx>,
    align: u32,
    lanewise: bool,
) -> Value<'ctx> {
    if lanewise {
        let at = super::lanewise::Addresses::Each(ptrs);
        return super::lanewise::load(w, vty, at, lane_mask(w), align, constant::null(vty));
    }
    let f = w.module.intrinsic("llvm.masked.gather", &[vty, ptrs.ty()]).expect("llvm.masked.gather exists");
    let m = mask_or_true(w);
    let r = w.b.call(f.function_type(), f, &[ptrs, m, constant::null(vty)]);
    set_param_align(r, 0, align);
    r
}

/// A store of varying values or at varying addresses: a masked scatter
/// (lanes in lane order where addresses collide, as LLVM defines it).
pub(super) fn scatter<'ctx>(w: &mut Widener<'_, 'ctx>, i: Value<'ctx>, lanewise: bool) -> Value<'ctx> {
    if lane_mask(w).is_some() {
        if let Some(r) = w.call_lane_loop(i, true) {
            return r;
        }
    }
    let vals = w.varying_value(i.operand(0));
    let ptrs = w.varying_value(i.operand(1));
    if lanewise {
        return super::lanewise::store(w, vals, super::lanewise::Addresses::Each(ptrs), lane_mask(w), i.alignment());
    }
    let f = w.module.intrinsic("llvm.masked.scatter", &[vals.ty(), ptrs.ty()]).expect("llvm.masked.scatter exists");
    let m = mask_or_true(w);
    let r = w.b.call(f.function_type(), f, &[vals, ptrs, m]);
    set_param_align(r, 1, i.alignment());
    r
}

/// The execution mask, or `None` where every lane is known active.
fn lane_mask<'ctx>(w: &Widener<'_, 'ctx>) -> Option<Value<'ctx>> {
    (!w.flow.full).then_some(w.flow.mask)
}

/// The execution mask, or all lanes where the mask is known full.
fn mask_or_true<'ctx>(w: &Widener<'_, 'ctx>) -> Value<'ctx> {
    if w.flow.full {
        w.all_true()
    } else {
        w.flow.mask
    }
}

fn set_param_align(call: Value, arg: u32, align: u32) {
    if align > 0 {
        call.add_call_arg_attribute(arg, "align", align as u64);
    }
}

/// The branch weight of a shape check's fast path against 1 for its slow
/// path: what a compiler assumes of a `__builtin_expect`ed branch.
const FAST_PATH_WEIGHT: u32 = 2000;

impl<'ctx> Widener<'_, 'ctx> {
    /// Runs `then` when `cond` holds (the likely case) and `otherwise` when not, and joins
    /// their values (`poison` of `i1` for stores, which have none).
    pub(crate) fn if_else(
        &mut self,
        cond: Value<'ctx>,
        then: impl FnOnce(&mut Self) -> Value<'ctx>,
        otherwise: impl FnOnce(&mut Self) -> Value<'ctx>,
    ) -> Value<'ctx> {
        let then_b = self.clone.append_block("shape.fast");
        let else_b = self.clone.append_block("shape.slow");
        let cont = self.clone.append_block("shape.join");
        // The fast path is the one users write for: keep it straight.
        self.b.cond_br(cond, then_b, else_b).set_branch_weights(FAST_PATH_WEIGHT, 1);
        self.b.position_at_end(then_b);
        let a = then(self);
        let a_end = self.b.current_block();
        self.b.br(cont);
        self.b.position_at_end(else_b);
        let c = otherwise(self);
        let c_end = self.b.current_block();
        self.b.br(cont);
        self.b.position_at_end(cont);
        if a.ty().is_void() {
            return constant::poison(Type::int(self.ctx(), 1));
        }
        let p = self.b.phi(a.ty());
        p.add_incoming(a, a_end);
        p.add_incoming(c, c_end);
        p
    }
}

#[cfg(test)]
mod tests {
    use super::vector_align;

    #[test]
    fn vector_alignment_is_the_smaller_of_scalar_and_step() {
        assert_eq!(vector_align(4, 4), 4);
        assert_eq!(vector_align(16, 4), 4);
        assert_eq!(vector_align(4, 12), 4);
        assert_eq!(vector_align(8, 12), 4);
        assert_eq!(vector_align(4, -4), 4);
        assert_eq!(vector_align(1, 8), 1);
    }
}
