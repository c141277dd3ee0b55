//! Varying integer division of 32 bits or fewer through floating-point
//! division: the x86 backend turns a vector `udiv`/`sdiv`/`urem`/`srem` into
//! one `div`/`idiv` per lane, while a vector `divpd`/`divps` divides four or
//! eight lanes at once.
//!
//! Why the quotient is exact. Let `a` and `b != 0` be the operands, both
//! exactly representable in the floating-point type `F` with a `p`-bit
//! significand, and `|a| < 2^p` (`i32` in `double`: `|a| <= 2^32 < 2^53`;
//! `i8`/`i16` in `float`: `|a| <= 2^16 < 2^24`). Let `Q = a/b` and
//! `k = trunc(Q)`. If `Q` is an integer, `fl(Q) = Q`. Otherwise the distance
//! from `|Q|` to the next integer away from zero is at least `1/|b|`, while
//! the rounding error is at most `|Q| * 2^-p = |a| / (|b| * 2^p) < 1/|b|`.
//! Rounding is monotonic and `k` is representable, so `fl(Q)` lies between
//! `k` (inclusive) and the next integer (exclusive): truncating `fl(Q)`
//! gives `k`, the C/LLVM quotient. The remainder is `a - k*b` in the
//! integer type (wrapping arithmetic gives the exact value, which fits).
//!
//! Lanes the scalar code never divides in (inactive) divide by 1, as in
//! `recipes::guarded_division`, so they compute defined values; no
//! floating-point operation traps anyway. `sdiv INT_MIN, -1` (undefined in
//! the scalar code) gives whatever the conversion gives, without trapping.
//! Division by a constant stays integer division (the backend multiplies by
//! a magic number), and 64-bit division too (a `double` quotient is not
//! exact there).
//!
//! Unsigned 32-bit division inside a loop by a divisor set up before it
//! (a parameter: `modpow`'s `% m`) multiplies by the divisor's reciprocal,
//! computed once in the entry block, instead of dividing every trip
//! ([`reciprocal_division`]): `vdivpd` is several times the latency and a
//! fraction of the throughput of `vmulpd`. Why it is exact: let `a < 2^32`,
//! `1 <= b < 2^32`, `Q = a/b = k + f` (`k` an integer, `0 <= f < 1`). The
//! estimate `fl(a * fl(1/b))` is within `Q * 2^-52 * (1 + 2^-53) < 2^-19/b`
//! of `Q` (two roundings of relative error `2^-53`; `Q < 2^32/b`). A
//! non-integer `Q` is at least `1/b` from both neighbouring integers, so the
//! estimate's integer part is `k`; an integer `Q = k` may come out just
//! below it, giving `k - 1`. So `q = trunc(estimate)` is `k` or `k - 1`,
//! `r = a - q*b` (wrapping `i32`, exact) is in `[0, 2b)`, and one step
//! (`r >= b`: `q += 1`, `r -= b`) gives the exact quotient and remainder.

use super::state::Widener;
use crate::llvm::LLVMOpcode::{self, *};
use crate::llvm::LLVMRealPredicate::LLVMRealOGT;
use crate::llvm::{constant, Type, Value};

/// The vector form of a varying `udiv`/`sdiv`/`urem`/`srem` of 2 to 32 bits
/// with a non-constant divisor, through floating-point division.
pub(crate) fn float_division<'ctx>(w: &mut Widener<'_, 'ctx>, i: Value<'ctx>) -> Option<Value<'ctx>> {
    let op = i.opcode();
    let ty = i.ty();
    let bits = ty.int_width();
    if !(2..=32).contains(&bits) || i.operand(1).const_int_value().is_some() {
        return None;
    }
    if let Some(r) = reciprocal_division(w, i) {
        return Some(r);
    }
    let signed = matches!(op, LLVMSDiv | LLVMSRem);
    let n = w.n;
    let vty = ty.vector_of(n);
    let mut a = w.varying_value(i.operand(0));
    let mut d = w.varying_value(i.operand(1));
    if !w.flow.full {
        a = w.b.freeze(a);
        let frozen = w.b.freeze(d);
        d = w.b.select(w.flow.mask, frozen, constant::one(vty));
    }
    let ctx = w.ctx();
    let fty = if bits <= 16 { Type::float(ctx) } else { Type::double(ctx) }.vector_of(n);
    let to_fp: LLVMOpcode = if signed { LLVMSIToFP } else { LLVMUIToFP };
    let af = w.b.cast(to_fp, a, fty);
    let df = w.b.cast(to_fp, d, fty);
    let qf = w.b.binop(LLVMFDiv, af, df);
    let q = if bits <= 16 || signed {
        // |q| < 2^31 except for the undefined INT_MIN / -1: fptosi to i32
        // is one instruction (cvttps2dq / cvttpd2dq).
        let i32v = Type::int(ctx, 32).vector_of(n);
        let q32 = w.b.cast(LLVMFPToSI, qf, i32v);
        if bits < 32 {
            w.b.cast(LLVMTrunc, q32, vty)
        } else {
            q32
        }
    } else {
        unsigned_trunc(w, qf)
    };
    let r = match op {
        LLVMUDiv | LLVMSDiv => q,
        _ => {
            let prod = w.b.binop(LLVMMul, q, d);
            w.b.binop(LLVMSub, a, prod)
        }
    };
    Some(r)
}

/// `trunc(qf)` as `<N x i32>`, for `0 <= qf < 2^32`: adding 2^52 rounds it
/// to the nearest integer, which the low 32 bits of the sum's encoding
/// hold; one less where that rounded up. (`llvm.trunc` would be one libm
/// call per lane on x86 without SSE4.1.)
fn unsigned_trunc<'ctx>(w: &Widener<'_, 'ctx>, qf: Value<'ctx>) -> Value<'ctx> {
    let ctx = w.ctx();
    let n = w.n;
    let two52 = constant::int(Type::int(ctx, 64), 0x4330_0000_0000_0000);
    let two52 = w.b.cast(LLVMBitCast, two52, Type::double(ctx));
    let two52 = constant::vector(&vec![two52; n as usize]);
    let biased = w.b.binop(LLVMFAdd, qf, two52);
    let rounded_up = w.b.fcmp(LLVMRealOGT, w.b.binop(LLVMFSub, biased, two52), qf);
    let i64v = Type::int(ctx, 64).vector_of(n);
    let enc = w.b.cast(LLVMBitCast, biased, i64v);
    let i32v = Type::int(ctx, 32).vector_of(n);
    let nearest = w.b.cast(LLVMTrunc, enc, i32v);
    let minus_one = w.b.cast(LLVMSExt, rounded_up, i32v);
    w.b.binop(LLVMAdd, nearest, minus_one)
}

/// An unsigned 32-bit `udiv`/`urem` in a loop whose divisor's vector is set
/// up in the entry block, as a multiplication by its reciprocal and one
/// correction step (module docs); `None` elsewhere. Inactive lanes divide
/// by what their divisor holds: a `0` gives an infinite reciprocal and a
/// meaningless but defined result, with no trap.
fn reciprocal_division<'ctx>(w: &mut Widener<'_, 'ctx>, i: Value<'ctx>) -> Option<Value<'ctx>> {
    let op = i.opcode();
    if !matches!(op, LLVMUDiv | LLVMURem) || i.ty().int_width() != 32 {
        return None;
    }
    if !w.analyses.loops.innermost.contains_key(&i.parent_block()) {
        return None;
    }
    let d = w.varying_value(i.operand(1));
    let entry = w.entry?;
    let set_up_before = (!d.is_instruction() && !d.is_constant()) || (d.is_instruction() && d.parent_block() == entry);
    if !set_up_before {
        return None;
    }
    let ctx = w.ctx();
    let fty = Type::double(ctx).vector_of(w.n);
    let inv = match w.values.reciprocals.get(&d) {
        Some(inv) => *inv,
        None => {
            w.position_aux_in_entry();
            let df = w.aux.cast(LLVMUIToFP, d, fty);
            let one = constant::real(Type::double(ctx), 1.0);
            let ones = constant::vector(&vec![one; w.n as usize]);
            let inv = w.aux.binop(LLVMFDiv, ones, df);
            w.values.reciprocals.insert(d, inv);
            inv
        }
    };
    let mut a = w.varying_value(i.operand(0));
    if !w.flow.full {
        a = w.b.freeze(a);
    }
    let af = w.b.cast(LLVMUIToFP, a, fty);
    let q = unsigned_trunc(w, w.b.binop(LLVMFMul, af, inv));
    let r = w.b.binop(LLVMSub, a, w.b.binop(LLVMMul, q, d));
    let short = w.b.icmp(crate::llvm::LLVMIntPredicate::LLVMIntUGE, r, d);
    Some(match op {
        LLVMUDiv => w.b.binop(LLVMSub, q, w.b.cast(LLVMSExt, short, q.ty())),
        _ => w.b.binop(LLVMSub, r, w.b.select(short, d, constant::null(d.ty()))),
    })
}
