//! Private memory in the clone: the `N` copies of each `alloca`, laid out
//! as [`crate::analysis::private`] decided, and the accesses that depend on
//! the interleaved layout (addresses, `<k x T>` loads and stores, `memset`).
//! Loads and stores of single elements need nothing here: their addresses
//! are strided pointers, made by [`super::memory`] like any other.

use super::memory::{masked_load, masked_store};
use super::state::Widener;
use super::vector_input::broadcast_lanes;
use crate::analysis::private::{ElementIndex, Layout};
use crate::llvm::LLVMOpcode::*;
use crate::llvm::{constant, Type, Value};

/// The `N` copies of an `alloca`, allocated once in the clone's entry
/// block; the result is the vector of each lane's address.
pub(super) fn alloca<'ctx>(w: &mut Widener<'_, 'ctx>, i: Value<'ctx>) -> Option<Value<'ctx>> {
    let layout = w.analyses.private.layout(i)?;
    let ctx = w.ctx();
    let n = w.n;
    let i64t = Type::int(ctx, 64);
    w.position_aux_in_entry();
    let (all, elem, step) = match layout {
        Layout::Interleaved { elem, len, .. } => (w.aux.alloca(elem.array_of(n * len as u32)), elem, 1),
        Layout::PerLane { stride } => {
            let i8t = Type::int(ctx, 8);
            (w.aux.alloca(i8t.array_of(n * stride as u32)), i8t, stride)
        }
        Layout::Tape { .. } => return None,
    };
    all.set_alignment(i.alignment().max(1));
    all.set_name(&format!("{}.lanes", i.name()));
    let offsets: Vec<Value> = (0..n as u64).map(|j| constant::int(i64t, j * step)).collect();
    let ptrs = w.aux.gep(elem, all, &[constant::vector(&offsets)], Default::default());
    let what = match layout {
        Layout::Interleaved { .. } => "interleaved",
        Layout::PerLane { .. } | Layout::Tape { .. } => "per lane",
    };
    w.stats.memory_what.push(format!("private memory, {what}: `{}`", i.print().trim()));
    Some(ptrs)
}

/// The vector form of an instruction that works on interleaved private
/// memory in a way the general rules would get wrong: an address into it,
/// a `<k x T>` load or store, a `memset`. `None` for everything else.
pub(super) fn interleaved_form<'ctx>(w: &mut Widener<'_, 'ctx>, i: Value<'ctx>) -> Option<Value<'ctx>> {
    let private = w.analyses.private;
    match i.opcode() {
        LLVMGetElementPtr => {
            let (a, idx) = private.interleaved_address(i)?;
            if a == i {
                return None;
            }
            Some(address(w, a, idx))
        }
        LLVMLoad if i.ty().is_vector() => {
            let (a, idx) = private.interleaved_address(i.operand(0))?;
            let at = element_address(w, a, idx);
            let ty = i.ty().element().vector_of(w.n * i.ty().vector_len());
            Some(wide_load(w, ty, at, i.ty().vector_len(), i.alignment()))
        }
        LLVMStore if i.operand(0).ty().is_vector() => {
            let (a, idx) = private.interleaved_address(i.operand(1))?;
            let at = element_address(w, a, idx);
            let v = w.varying_value(i.operand(0));
            Some(wide_store(w, v, at, i.operand(0).ty().vector_len(), i.alignment()))
        }
        LLVMCall if crate::analysis::calls::called_intrinsic(i).as_deref() == Some("llvm.memset") => {
            let (a, idx) = private.interleaved_address(i.operand(0))?;
            Some(memset(w, i, a, idx))
        }
        _ => None,
    }
}

/// Each lane's address of element `idx`: lane `j` of the allocation plus
/// `idx·N` elements.
fn address<'ctx>(w: &mut Widener<'_, 'ctx>, a: Value<'ctx>, idx: ElementIndex<'ctx>) -> Value<'ctx> {
    let (elem, base) = match w.analyses.private.layout(a) {
        Some(Layout::Interleaved { elem, .. }) => (elem, w.varying_value(a)),
        Some(Layout::Tape { elem, .. }) => (elem, super::tape::lane_base(w, a, elem)),
        _ => unreachable!("interleaved addresses are into interleaved allocations or tapes"),
    };
    let i64t = Type::int(w.ctx(), 64);
    let n = w.n as u64;
    let scaled = match idx {
        ElementIndex::Constant(c) => constant::int(i64t, c * n),
        ElementIndex::Value(v) => {
            let x = w.mapped_value(v);
            let wide_ty = if x.ty().is_vector() { i64t.vector_of(w.n) } else { i64t };
            // `getelementptr` sign-extends a narrower index.
            let x64 = if v.ty().int_width() < 64 { w.b.cast(LLVMSExt, x, wide_ty) } else { x };
            let times = if x.ty().is_vector() {
                constant::vector(&vec![constant::int(i64t, n); w.n as usize])
            } else {
                constant::int(i64t, n)
            };
            w.b.binop(LLVMMul, x64, times)
        }
    };
    w.b.gep(elem, base, &[scaled], Default::default())
}

/// The scalar address of element `idx` of lane 0 (a constant index).
fn element_address<'ctx>(w: &mut Widener<'_, 'ctx>, a: Value<'ctx>, idx: ElementIndex<'ctx>) -> Value<'ctx> {
    let Some(Layout::Interleaved { elem, .. }) = w.analyses.private.layout(a) else {
        unreachable!("interleaved addresses are into interleaved allocations")
    };
    let ElementIndex::Constant(c) = idx else { unreachable!("vector accesses and memsets have constant offsets") };
    let base = w.varying_value(a);
    let lane0 = w.b.extract_element(base, 0);
    let i64t = Type::int(w.ctx(), 64);
    w.b.gep(elem, lane0, &[constant::int(i64t, c * w.n as u64)], Default::default())
}

/// The mask of `k` elements per lane, element-major.
fn element_mask<'ctx>(w: &Widener<'_, 'ctx>, k: u32) -> Value<'ctx> {
    broadcast_lanes(&w.b, w.flow.mask, k)
}

/// A `<k x T>` load of every lane: `N·k` consecutive elements.
fn wide_load<'ctx>(w: &mut Widener<'_, 'ctx>, ty: Type<'ctx>, at: Value<'ctx>, k: u32, align: u32) -> Value<'ctx> {
    let align = align.min(w.module.abi_size_of(ty.element()) as u32).max(1);
    let mask = (!w.flow.full).then(|| element_mask(w, k));
    masked_load(w, ty, at, mask, align, w.for_autodiff)
}

/// A `<k x T>` store of every active lane: `N·k` consecutive elements.
fn wide_store<'ctx>(w: &mut Widener<'_, 'ctx>, v: Value<'ctx>, at: Value<'ctx>, k: u32, align: u32) -> Value<'ctx> {
    let align = align.min(w.module.abi_size_of(v.ty().element()) as u32).max(1);
    let mask = (!w.flow.full).then(|| element_mask(w, k));
    masked_store(w, v, at, mask, align, w.for_autodiff)
}

/// `memset` of whole elements of every active lane: one `memset` of the
/// interleaved span when all lanes are active, else a masked store of the
/// byte pattern.
fn memset<'ctx>(w: &mut Widener<'_, 'ctx>, i: Value<'ctx>, a: Value<'ctx>, idx: ElementIndex<'ctx>) -> Value<'ctx> {
    let Some(Layout::Interleaved { size, .. }) = w.analyses.private.layout(a) else {
        unreachable!("interleaved addresses are into interleaved allocations")
    };
    let at = element_address(w, a, idx);
    let byte = i.operand(1).const_int_value().unwrap_or(0) & 0xff;
    let len = i.operand(2).const_int_value().unwrap_or(0);
    let n = w.n as u64;
    let i64t = Type::int(w.ctx(), 64);
    if w.flow.full {
        let f = w.module.intrinsic("llvm.memset", &[at.ty(), i64t]).expect("llvm.memset exists");
        let args = [
            at,
            constant::int(Type::int(w.ctx(), 8), byte),
            constant::int(i64t, len * n),
            constant::int(Type::int(w.ctx(), 1), 0),
        ];
        return w.b.call(f.function_type(), f, &args);
    }
    let k = (len / size) as u32;
    let word = Type::int(w.ctx(), (size * 8) as u32);
    let pattern = (0..size).fold(0u64, |acc, _| (acc << 8) | byte);
    let v = constant::vector(&vec![constant::int(word, pattern); (k as u64 * n) as usize]);
    wide_store(w, v, at, k, size as u32)
}
