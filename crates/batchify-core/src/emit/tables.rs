//! Loads from a small constant table at a varying index, as register
//! permutes instead of a gather.
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
//! A table of up to four registers is read with one permute per register
//! (AVX2) or per pair of registers (AVX-512's two-source `vpermi2var`, which
//! takes one more index bit), and the permutes' results are selected by the
//! next bits of the index: on AVX2 a 16-entry table is two `vpermps` and a
//! blend by bit 3. Lanes in several registers are read a register of
//! indices at a time; fewer lanes than a register are read through one
//! register, the extra indices 0.
//!
//! Exactness: a lane whose index is outside `[0, K)` would read outside the
//! table object in the scalar code, which is undefined, so every active
//! lane's index is in range and the permute returns its element. Inactive
//! lanes get some element of the table and touch no memory. Only tables
//! whose contents are known for good: constant globals with an initializer
//! that the linker cannot replace (not `weak`, `linkonce`, `common` or
//! `extern_weak`), not thread-local, of 32-bit `float` or integer elements
//! (or bytes read as those, as Rust lays out its statics; not NaNs then),
//! at most [`MAX_TABLE_REGISTERS`](crate::plan::memory::MAX_TABLE_REGISTERS)
//! registers of them; only for AVX2 and AVX-512 clones, the ISAs whose
//! permutes these are. The select between permutes tests index bits above
//! the permute's own; for an active lane they pick the register its index
//! is in.

use super::state::Widener;
use crate::llvm::LLVMOpcode::*;
use crate::llvm::{constant, Builder, LLVMIntPredicate, Type, Value};
use crate::plan::memory::table_and_index;
use crate::plan::Access;

/// A varying load from a small constant table as the permutes the plan
/// chose (`access` is an [`Access::TablePermute`]).
pub(super) fn table_load<'ctx>(w: &mut Widener<'_, 'ctx>, i: Value<'ctx>, access: Access) -> Value<'ctx> {
    let Access::TablePermute { intrinsic, sources, registers, width } = access else {
        unreachable!("a table load is planned as a table permute")
    };
    let (mut elements, index) = table_and_index(i).expect("the plan found the table");
    let permutes = registers.div_ceil(sources);
    elements.resize((permutes * sources * width) as usize, constant::null(i.ty()));
    let tables: Vec<Value> = elements.chunks(width as usize).map(constant::vector).collect();
    let ctx = w.ctx();
    let i32v = Type::int(ctx, 32).vector_of(w.n);
    let idx = w.varying_value(index);
    let idx = match idx.ty().element().int_width() {
        32 => idx,
        bits if bits > 32 => w.b.cast(LLVMTrunc, idx, i32v),
        _ => w.b.cast(LLVMSExt, idx, i32v),
    };
    let f = w.module.intrinsic(intrinsic, &[]).expect("the permute intrinsics exist");
    let n = w.n;
    let b = &w.b;
    let read = |idx: Value<'ctx>| -> Value<'ctx> {
        let parts: Vec<Value> = tables
            .chunks(sources as usize)
            .map(|t| match t {
                [t] => b.call(f.function_type(), f, &[*t, idx]),
                [t0, t1] => b.call(f.function_type(), f, &[*t0, idx, *t1]),
                _ => unreachable!("one or two sources"),
            })
            .collect();
        select_by_bits(b, parts, idx, (width * sources).trailing_zeros())
    };
    if n <= width {
        // One register of indices, the lanes past `n` reading element 0.
        let zeros = constant::null(idx.ty());
        let wide = b.shuffle(idx, zeros, picks(ctx, (0..width).map(|p| p.min(n))));
        let r = read(wide);
        if n == width {
            return r;
        }
        return b.shuffle(r, constant::poison(r.ty()), picks(ctx, 0..n));
    }
    let poison = constant::poison(idx.ty());
    let parts: Vec<Value> =
        (0..n / width).map(|c| read(b.shuffle(idx, poison, picks(ctx, c * width..(c + 1) * width)))).collect();
    super::vector_input::concat(b, &parts)
}

/// The permutes' results `parts` (part `p` holds the elements whose index
/// has `p` in its bits from `bit` up) merged into one by those bits.
fn select_by_bits<'ctx>(b: &Builder<'ctx>, mut parts: Vec<Value<'ctx>>, idx: Value<'ctx>, mut bit: u32) -> Value<'ctx> {
    let lanes = idx.ty().vector_len();
    let elem = idx.ty().element();
    while parts.len() > 1 {
        let mask = constant::vector(&vec![constant::int(elem, 1 << bit); lanes as usize]);
        let set = b.binop(LLVMAnd, idx, mask);
        let high = b.icmp(LLVMIntPredicate::LLVMIntNE, set, constant::null(idx.ty()));
        parts = parts
            .chunks(2)
            .map(|pair| match pair {
                [low, up] => b.select(high, *up, *low),
                [only] => *only,
                _ => unreachable!("chunks of two"),
            })
            .collect();
        bit += 1;
    }
    parts[0]
}

/// A shuffle mask of these picks.
fn picks<'ctx>(ctx: crate::llvm::Context<'ctx>, picks: impl Iterator<Item = u32>) -> Value<'ctx> {
    constant::vector(&picks.map(|p| constant::i32(ctx, p)).collect::<Vec<_>>())
}
