//! `fmod` as vector code: the exact remainder of `float` or `double` lanes,
//! bit-identical to glibc's `fmodf`/`fmod` (and to `frem`, which the x86
//! backend lowers to those calls, one per lane).
//!
//! The remainder is exact, so any exact algorithm gives glibc's result;
//! only NaNs need care. glibc returns `(x*y)/(x*y)` when `y` is zero or NaN
//! or `x` is infinite or NaN; the vector code computes the same expression
//! in those lanes, so the NaN's sign and payload follow the same hardware
//! rules (the first NaN operand, quietened, else the default NaN).
//!
//! Otherwise, with `|x| >= |y|`, both magnitudes are split into an integer
//! significand `m` in `[2^M, 2^(M+1))` (subnormals normalised) and an
//! exponent `e`, and `mx * 2^(ex-ey) mod my` is computed while any lane
//! has steps left, several steps per loop iteration: for `float` up to 28
//! through an exact `double` division (`float_chunk_step`, at most 10
//! iterations), for `double` up to 48 through a `double` quotient estimate
//! corrected in `i64` (`double_chunk_step`, at most 44 iterations). Every step leaves
//! `r < my` (the first starts from `mx < 2^(M+1)`). The result `r * 2^ey` is then
//! renormalised (or shifted into a subnormal, which loses no bits: it is a
//! multiple of `y`'s unit in the last place) and takes `x`'s sign. Lanes
//! with `|x| < |y|` return `x`. Inactive lanes take no loop steps.

use super::state::Widener;
use crate::llvm::LLVMIntPredicate::*;
use crate::llvm::LLVMOpcode::*;
use crate::llvm::{constant, Type, Value};

/// `fmod(x, y)` lane by lane, for `<N x float>` or `<N x double>` values.
pub(crate) fn emit_fmod<'ctx>(w: &mut Widener<'_, 'ctx>, x: Value<'ctx>, y: Value<'ctx>) -> Value<'ctx> {
    let vty = x.ty();
    let n = vty.vector_len();
    let double = vty.element().kind() == crate::llvm::LLVMTypeKind::LLVMDoubleTypeKind;
    let (k, m): (u32, u64) = if double { (64, 52) } else { (32, 23) };
    let ity = Type::int(w.ctx(), k).vector_of(n);
    let c = |v: u64| constant::vector(&vec![constant::int(Type::int(w.ctx(), k), v); n as usize]);
    let sign_bit = 1u64 << (k - 1);
    let inf_bits = ((1u64 << (k - 1 - m as u32)) - 1) << m;
    let implicit = 1u64 << m;

    // Inactive lanes may hold poison; the loop branches on every lane.
    let x = w.b.freeze(x);
    let y = w.b.freeze(y);
    let active = if w.flow.full { w.all_true() } else { w.flow.mask };
    let b = &w.b;
    let ux = b.cast(LLVMBitCast, x, ity);
    let uy = b.cast(LLVMBitCast, y, ity);
    let sign = b.binop(LLVMAnd, ux, c(sign_bit));
    let ax = b.binop(LLVMAnd, ux, c(sign_bit - 1));
    let ay = b.binop(LLVMAnd, uy, c(sign_bit - 1));
    let y_zero = b.icmp(LLVMIntEQ, ay, c(0));
    let x_inf_nan = b.icmp(LLVMIntUGE, ax, c(inf_bits));
    let y_nan = b.icmp(LLVMIntUGT, ay, c(inf_bits));
    let special = b.binop(LLVMOr, b.binop(LLVMOr, y_zero, x_inf_nan), y_nan);
    let small = b.icmp(LLVMIntULT, ax, ay);
    let skip = b.binop(LLVMOr, special, small);
    let all_true = constant::all_ones(skip.ty());
    let work = b.binop(LLVMAnd, active, b.binop(LLVMXor, skip, all_true));

    let ctlz = w.module.intrinsic("llvm.ctlz", &[ity]).expect("llvm.ctlz exists");
    let false_i1 = constant::int(Type::int(w.ctx(), 1), 0);
    let lz = |v: Value<'ctx>| w.b.call(ctlz.function_type(), ctlz, &[v, false_i1]);
    // The significand (implicit bit set) and exponent of a nonzero magnitude.
    let split = |a: Value<'ctx>| {
        let b = &w.b;
        let e = b.binop(LLVMLShr, a, c(m));
        let is_sub = b.icmp(LLVMIntEQ, e, c(0));
        let sh = b.binop(LLVMSub, lz(a), c(k as u64 - 1 - m));
        let sub_m = b.binop(LLVMShl, a, sh);
        let norm_m = b.binop(LLVMOr, b.binop(LLVMAnd, a, c(implicit - 1)), c(implicit));
        let sub_e = b.binop(LLVMSub, c(1), sh);
        (b.select(is_sub, sub_m, norm_m), b.select(is_sub, sub_e, e))
    };
    let (mx, ex) = split(ax);
    let (my, ey) = split(ay);
    let steps = w.b.select(work, w.b.binop(LLVMSub, ex, ey), c(0));

    // The divisor's significand as a double (exact: below 2^53), for the steps.
    let my_d = w.b.cast(LLVMUIToFP, my, Type::double(w.ctx()).vector_of(n));
    let from = w.b.current_block();
    let head = w.clone.append_block("fmod.loop");
    let body = w.clone.append_block("fmod.step");
    let done = w.clone.append_block("fmod.done");
    w.b.br(head);
    w.b.position_at_end(head);
    let r = w.b.phi(ity);
    let left = w.b.phi(ity);
    let going = w.b.icmp(LLVMIntSGT, left, c(0));
    let any = w.any(going);
    w.b.cond_br(any, body, done);
    w.b.position_at_end(body);
    let (next, next_left) =
        if double { double_chunk_step(w, r, my, my_d, left) } else { float_chunk_step(w, r, my_d, left) };
    w.b.br(head);
    r.add_incoming(mx, from);
    r.add_incoming(next, body);
    left.add_incoming(steps, from);
    left.add_incoming(next_left, body);

    w.b.position_at_end(done);
    let b = &w.b;
    let ge = b.icmp(LLVMIntUGE, r, my);
    let rem = b.select(ge, b.binop(LLVMSub, r, my), r);
    // Renormalise: rem < 2^(M+1); shift its top bit to bit M.
    let sh = b.binop(LLVMSub, lz(rem), c(k as u64 - 1 - m));
    let b = &w.b;
    let rn = b.binop(LLVMShl, rem, b.select(b.icmp(LLVMIntEQ, rem, c(0)), c(0), sh));
    let e = b.binop(LLVMSub, ey, sh);
    let normal = b.binop(LLVMAdd, b.binop(LLVMShl, b.binop(LLVMSub, e, c(1)), c(m)), rn);
    // A subnormal result: shift right by 1 - e (at most M here; clamped so
    // that the unused arms never shift by the width or more).
    let right = b.binop(LLVMSub, c(1), e);
    let right = b.select(b.icmp(LLVMIntULT, right, c(k as u64)), right, c(k as u64 - 1));
    let subnormal = b.binop(LLVMLShr, rn, right);
    let mag = b.select(b.icmp(LLVMIntSGE, e, c(1)), normal, subnormal);
    let mag = b.select(b.icmp(LLVMIntEQ, rem, c(0)), c(0), mag);
    let bits = b.binop(LLVMOr, mag, sign);
    let exact = b.cast(LLVMBitCast, bits, vty);
    let xy = b.binop(LLVMFMul, x, y);
    let nan = b.binop(LLVMFDiv, xy, xy);
    let r = b.select(small, x, exact);
    b.select(special, nan, r)
}

/// Up to [`FLOAT_CHUNK`] exponent steps of a `float` remainder at once, in
/// `double`: `r' = (r * 2^s) mod my` with `s = min(left, 28)`. Exact:
/// `r < 2^24` (it is `mx` or an earlier remainder, below `my`) so
/// `a = r * 2^s < 2^52` is exact; `fl(a / my)` lies in
/// `[floor(Q), floor(Q) + 1)` for `a < 2^53` (the proof in `division.rs`),
/// so its nearest integer `q` is `floor(Q)` or `floor(Q) + 1`; `q * my < 2^53`
/// is exact, `a - q * my` lies in `(-my, my)` and is exact, and adding
/// `my` where it is negative gives the remainder.
/// A lane with no steps left (`s = 0`) reduces `r` once more, which the
/// final reduction would do anyway.
fn float_chunk_step<'ctx>(
    w: &Widener<'_, 'ctx>,
    r: Value<'ctx>,
    my: Value<'ctx>,
    left: Value<'ctx>,
) -> (Value<'ctx>, Value<'ctx>) {
    let b = &w.b;
    let ity = r.ty();
    let n = ity.vector_len();
    let ctx = w.ctx();
    let splat = |t: Type<'ctx>, v: u64| constant::vector(&vec![constant::int(t, v); n as usize]);
    let (i32t, i64t) = (Type::int(ctx, 32), Type::int(ctx, 64));
    let dty = Type::double(ctx).vector_of(n);
    let chunk = splat(i32t, FLOAT_CHUNK);
    let s = b.select(b.icmp(LLVMIntULT, left, chunk), left, chunk);
    let s64 = b.cast(LLVMZExt, s, i64t.vector_of(n));
    let biased = b.binop(LLVMAdd, s64, splat(i64t, 1023));
    let scale = b.cast(LLVMBitCast, b.binop(LLVMShl, biased, splat(i64t, 52)), dty);
    let a = b.binop(LLVMFMul, b.cast(LLVMUIToFP, r, dty), scale);
    // q: the quotient rounded to the nearest integer by adding and
    // subtracting 2^52 (no `llvm.trunc`, which is a libm call per lane on
    // x86 without SSE4.1): floor(Q) or floor(Q) + 1.
    let two52 = b.cast(LLVMBitCast, splat(i64t, 0x4330_0000_0000_0000), dty);
    let q = b.binop(LLVMFSub, b.binop(LLVMFAdd, b.binop(LLVMFDiv, a, my), two52), two52);
    let rem = b.binop(LLVMFSub, a, b.binop(LLVMFMul, q, my));
    let negative = b.fcmp(crate::llvm::LLVMRealPredicate::LLVMRealOLT, rem, constant::null(dty));
    let rem = b.select(negative, b.binop(LLVMFAdd, rem, my), rem);
    (b.cast(LLVMFPToSI, rem, ity), b.binop(LLVMSub, left, s))
}

/// Exponent steps per iteration of the `float` loop.
const FLOAT_CHUNK: u64 = 28;

/// Up to [`DOUBLE_CHUNK`] exponent steps of a `double` remainder at once:
/// `r' = (r * 2^s) mod my` with `s = min(left, 48)`, `r, my < 2^53`.
/// `a = r * 2^s` is exact in `double` (a power-of-two scaling), and
/// `Q = a / my < 2^50`, so `fl(Q)` is within `Q * 2^-53 < 1/8` of `Q` and
/// at least `floor(Q)` (rounding is monotonic): its nearest integer `q` is
/// `floor(Q)` or `floor(Q) + 1`, read from the low bits of `fl(Q) + 2^52`. The
/// true `r * 2^s - q * my` then lies in `(-my, my)`, so computing it in
/// wrapping `i64` arithmetic (where `r << s` may wrap) gives it exactly,
/// and adding `my` once if it is negative gives the remainder.
fn double_chunk_step<'ctx>(
    w: &Widener<'_, 'ctx>,
    r: Value<'ctx>,
    my: Value<'ctx>,
    my_d: Value<'ctx>,
    left: Value<'ctx>,
) -> (Value<'ctx>, Value<'ctx>) {
    let b = &w.b;
    let ity = r.ty();
    let n = ity.vector_len();
    let i64t = Type::int(w.ctx(), 64);
    let splat = |v: u64| constant::vector(&vec![constant::int(i64t, v); n as usize]);
    let dty = Type::double(w.ctx()).vector_of(n);
    let chunk = splat(DOUBLE_CHUNK);
    let s = b.select(b.icmp(LLVMIntULT, left, chunk), left, chunk);
    let scale = b.cast(LLVMBitCast, b.binop(LLVMShl, b.binop(LLVMAdd, s, splat(1023)), splat(52)), dty);
    let a = b.binop(LLVMFMul, b.cast(LLVMUIToFP, r, dty), scale);
    let qf = b.binop(LLVMFDiv, a, my_d);
    let two52 = b.cast(LLVMBitCast, splat(0x4330_0000_0000_0000), dty);
    let q_bits = b.cast(LLVMBitCast, b.binop(LLVMFAdd, qf, two52), ity);
    let q = b.binop(LLVMAnd, q_bits, splat((1 << 52) - 1));
    let rem = b.binop(LLVMSub, b.binop(LLVMShl, r, s), b.binop(LLVMMul, q, my));
    let negative = b.icmp(LLVMIntSLT, rem, splat(0));
    let rem = b.select(negative, b.binop(LLVMAdd, rem, my), rem);
    (rem, b.binop(LLVMSub, left, s))
}

/// Exponent steps per iteration of the `double` loop.
const DOUBLE_CHUNK: u64 = 48;
