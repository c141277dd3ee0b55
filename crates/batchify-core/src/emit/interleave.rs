//! Interleave groups (`plan/interleave.rs`): the fields of an array of
//! `m`-element structures read by one wide load at the group's first load
//! and split by one shuffle per field.
//!
//! ```text
//!   %x = load float, ptr %p                ; p steps 12 bytes a lane
//!   %y = load float, ptr (gep i8, %p, 4)
//!   ; becomes, at the first load (8 lanes):
//!   %s = call <24 x float> @llvm.masked.load(ptr %p.lane0, <24 x i1> %spread, ...)
//!   %x = shufflevector %s, poison, <0, 3, 6, ..., 21>
//!   %y = shufflevector %s, poison, <1, 4, 7, ..., 22>
//! ```
//!
//! The mask holds element `k·m + f` when lane `k` is active and the group
//! reads field `f`, so the load touches only what the scalar loads of the
//! active lanes touch; under a full mask with every field read it is a
//! plain load. Where the stride holds only after a run-time test (an index
//! extended from 32 bits), a failed test gathers each field instead.

use super::memory::{
    base_address, describe, field_of, gather_at, masked_load, no_wrap_between_lanes, short, spread_mask, vector_align,
};
use super::state::Widener;
use crate::llvm::{constant, Type, Value};
use crate::plan::{Access, MemoryRecipe};

/// Load `i`, planned as a field of an interleave group
/// ([`Access::Interleaved`]): the group's wide load, made at its first
/// load, shuffled.
pub(super) fn load<'ctx>(w: &mut Widener<'_, 'ctx>, i: Value<'ctx>, recipe: MemoryRecipe) -> Value<'ctx> {
    let Access::Interleaved { m, field, fields } = recipe.access else {
        unreachable!("an interleaved load is planned as one")
    };
    let lanewise = recipe.lanewise;
    w.stats.memory_what.push(format!("{}: `{}`", describe(recipe), short(i)));
    let member = w.analyses.recipes.interleave_member(i).expect("the plan made the group");
    let wide = if member.leader == i {
        let group = Group { m, leader_field: member.leader_field, fields, lanewise };
        let check = w.analyses.shapes.stride(i.operand(0)).and_then(|s| s.check);
        let wide = match check {
            None => group_load(w, i, group),
            Some(check) => {
                let ok = no_wrap_between_lanes(w, check);
                w.if_else(ok, |w| group_load(w, i, group), |w| group_gather(w, i, group))
            }
        };
        w.values.interleaved.insert(i, wide);
        wide
    } else {
        match w.values.interleaved.get(&member.leader) {
            Some(&wide) => wide,
            // The group's first load is emitted first; should it not have
            // been, this field alone is still exact as a gather.
            None => return super::memory::gather(w, i, lanewise),
        }
    };
    field_of(w, wide, m, field)
}

/// What the group's first load knows of its group.
#[derive(Clone, Copy)]
struct Group {
    /// Elements a structure.
    m: u32,
    /// The first load's field.
    leader_field: u32,
    /// The fields read, one bit each.
    fields: u32,
    /// Without masked intrinsics (`--for-autodiff`).
    lanewise: bool,
}

/// The wide load of the structures of the active lanes, made at the
/// group's first load `i`.
fn group_load<'ctx>(w: &mut Widener<'_, 'ctx>, i: Value<'ctx>, g: Group) -> Value<'ctx> {
    let Group { m, leader_field, fields, lanewise } = g;
    let ptr = i.operand(0);
    let stride = w.analyses.shapes.stride(ptr).expect("the plan found the stride");
    let ptrs = w.varying_value(ptr);
    let at = base_address(w, ptr, ptrs, stride.step, Access::Strided { m });
    let back = leader_field as u64 * w.module.abi_size_of(i.ty());
    let mut align = vector_align(i.alignment(), stride.step);
    let base = if back == 0 {
        at
    } else {
        align = align.min(1 << back.trailing_zeros().min(31));
        let i64t = Type::int(w.ctx(), 64);
        w.b.gep(Type::int(w.ctx(), 8), at, &[constant::int(i64t, back.wrapping_neg())], Default::default())
    };
    let wide = i.ty().vector_of(w.n * m);
    let every = (1u32 << m) - 1;
    let mask = (!w.flow.full || fields != every).then(|| spread_mask(w, m, fields));
    masked_load(w, wide, base, mask, align, lanewise)
}

/// The group's wide value from one gather per field it reads, at the first
/// load's addresses moved by the field's offset, interleaved.
fn group_gather<'ctx>(w: &mut Widener<'_, 'ctx>, i: Value<'ctx>, g: Group) -> Value<'ctx> {
    let ptrs = w.varying_value(i.operand(0));
    let vty = i.ty().vector_of(w.n);
    let size = w.module.abi_size_of(i.ty()) as i64;
    let i64t = Type::int(w.ctx(), 64);
    let parts: Vec<Value> = (0..g.m)
        .map(|f| {
            if g.fields >> f & 1 == 0 {
                return constant::poison(vty);
            }
            let offset = (f as i64 - g.leader_field as i64) * size;
            let at = if offset == 0 {
                ptrs
            } else {
                w.b.gep(Type::int(w.ctx(), 8), ptrs, &[constant::int(i64t, offset as u64)], Default::default())
            };
            gather_at(w, at, vty, i.alignment(), g.lanewise)
        })
        .collect();
    let joined = super::vector_input::concat(&w.b, &parts);
    let n = w.n;
    let picks: Vec<Value> = (0..n * g.m).map(|p| constant::i32(w.ctx(), (p % g.m) * n + p / g.m)).collect();
    w.b.shuffle(joined, constant::poison(joined.ty()), constant::vector(&picks))
}
