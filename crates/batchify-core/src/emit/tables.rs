//! Loads from a small constant table at a varying index, as one register
//! permute instead of a gather.
//!
//! `static const float w[8] = {...}; ... w[k]` with `k` varying reads a
//! global constant whose whole contents fit in one vector register. AVX2's
//! `vpermps`/`vpermd` (AVX-512's `vpermps`/`vpermd` on 16 lanes) pick lane
//! `i`'s element from a register by the low bits of index `i`, so the clone
//! keeps the table in a register and permutes it by the index vector:
//!
//! ```text
//!   %r = load float, ptr (getelementptr [8 x float], ptr @w, i64 0, i64 %k)
//!   ; becomes
//!   %r = call <8 x float> @llvm.x86.avx2.permps(<8 x float> <w0, ..., w7>, <8 x i32> %k.lanes)
//! ```
//!
//! Exactness: a lane whose index is outside `[0, K)` would read outside the
//! table object in the scalar code, which is undefined, so every active
//! lane's index is in range and the permute returns its element. Inactive
//! lanes get some element of the table and touch no memory. Only tables
//! whose contents are known for good: constant globals with an initializer
//! that the linker cannot replace (not `weak`, `linkonce`, `common` or
//! `extern_weak`), not thread-local, of 32-bit `float` or integer elements
//! (or bytes read as those, as Rust lays out its statics; not NaNs then),
//! at most as many as the clone has lanes; only for AVX2 clones of 8 lanes
//! and AVX-512 clones of 16, the ISAs whose permutes these are.

use super::state::Widener;
use crate::analysis::callees::is_interposable;
use crate::llvm::LLVMOpcode::*;
use crate::llvm::{constant, LLVMTypeKind, Type, Value};
use crate::vfabi::Isa;

/// The table a load reads and the index it reads at: `(elements, index)`.
fn table_and_index<'ctx>(i: Value<'ctx>) -> Option<(Vec<Value<'ctx>>, Value<'ctx>)> {
    let gep = i.operand(0);
    if !gep.is_instruction() || !gep.is_gep_instruction() {
        return None;
    }
    let g = gep.operand(0);
    if !g.is_global_variable() || !g.is_global_constant() || g.is_thread_local() || is_interposable(g) {
        return None;
    }
    let init = g.initializer()?;
    let table_ty = g.global_value_type();
    if table_ty.kind() != LLVMTypeKind::LLVMArrayTypeKind {
        return None;
    }
    let source = gep.gep_source_type();
    let index = match gep.num_operands() {
        // getelementptr T, ptr @g, idx
        2 if source == i.ty() => gep.operand(1),
        // getelementptr [K x T], ptr @g, 0, idx
        3 if source == table_ty && gep.operand(1).const_int_value() == Some(0) => gep.operand(2),
        _ => return None,
    };
    let len = table_ty.members().len() as u32;
    if table_ty.element() == i.ty() {
        let elements: Option<Vec<Value>> = (0..len).map(|k| init.aggregate_element(k)).collect();
        return Some((elements?, index));
    }
    // Rust's statics are byte arrays: `[32 x i8]` read as 8 `float`s.
    let byte = table_ty.element().kind() == LLVMTypeKind::LLVMIntegerTypeKind && table_ty.element().int_width() == 8;
    if !byte || !len.is_multiple_of(4) {
        return None;
    }
    let bytes: Option<Vec<u64>> = (0..len).map(|k| init.aggregate_element(k)?.const_int_value()).collect();
    let bytes = bytes?;
    let elements: Option<Vec<Value>> = bytes
        .chunks(4)
        .map(|b| {
            // Little-endian: the ISAs of the permutes are x86's.
            let bits = (b[0] | b[1] << 8 | b[2] << 16 | b[3] << 24) as u32;
            match i.ty().kind() {
                LLVMTypeKind::LLVMFloatTypeKind => {
                    let x = f32::from_bits(bits);
                    // A NaN's payload might not survive the trip through `double`.
                    (!x.is_nan()).then(|| constant::real(i.ty(), x as f64))
                }
                _ => Some(constant::int(i.ty(), bits as u64)),
            }
        })
        .collect();
    Some((elements?, index))
}

/// The permute for `N` lanes of `ty` on `isa`, if it has one.
fn permute_intrinsic(isa: Isa, n: u32, ty: Type) -> Option<&'static str> {
    let float = ty.kind() == LLVMTypeKind::LLVMFloatTypeKind;
    let int32 = ty.kind() == LLVMTypeKind::LLVMIntegerTypeKind && ty.int_width() == 32;
    match (isa, n, float, int32) {
        (Isa::Avx2, 8, true, _) => Some("llvm.x86.avx2.permps"),
        (Isa::Avx2, 8, _, true) => Some("llvm.x86.avx2.permd"),
        (Isa::Avx512, 16, true, _) => Some("llvm.x86.avx512.permvar.sf.512"),
        (Isa::Avx512, 16, _, true) => Some("llvm.x86.avx512.permvar.si.512"),
        _ => None,
    }
}

/// A varying load from a small constant table as a permute of the table's
/// register by the lanes' indices, or `None` where it is not one (the
/// caller then gathers).
pub(super) fn table_load<'ctx>(w: &mut Widener<'_, 'ctx>, i: Value<'ctx>) -> Option<Value<'ctx>> {
    if i.is_volatile() || i.is_atomic() {
        return None;
    }
    let name = permute_intrinsic(w.spec.isa, w.n, i.ty())?;
    let (elements, index) = table_and_index(i)?;
    if elements.is_empty() || elements.len() > w.n as usize {
        return None;
    }
    let mut lanes = elements;
    lanes.resize(w.n as usize, constant::null(i.ty()));
    let table = constant::vector(&lanes);
    let i32v = Type::int(w.ctx(), 32).vector_of(w.n);
    let idx = w.varying_value(index);
    let idx = match idx.ty().element().int_width() {
        32 => idx,
        bits if bits > 32 => w.b.cast(LLVMTrunc, idx, i32v),
        _ => w.b.cast(LLVMSExt, idx, i32v),
    };
    let f = w.module.intrinsic(name, &[])?;
    Some(w.b.call(f.function_type(), f, &[table, idx]))
}
