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
use crate::llvm::LLVMOpcode::*;
use crate::llvm::{constant, Type, Value};
use crate::plan::memory::table_and_index;

/// A varying load from a small constant table as a permute (`intrinsic`,
/// which the plan chose) of the table's register by the lanes' indices.
pub(super) fn table_load<'ctx>(w: &mut Widener<'_, 'ctx>, i: Value<'ctx>, intrinsic: &str) -> Value<'ctx> {
    let (elements, index) = table_and_index(i).expect("the plan found the table");
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
    let f = w.module.intrinsic(intrinsic, &[]).expect("the permute intrinsics exist");
    w.b.call(f.function_type(), f, &[table, idx])
}
