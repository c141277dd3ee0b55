//! Exact math as vector code: recipes for calls of the exactly defined C
//! math functions ([`calls::exact_libm_call`]), for `frem` ([`super::fmod`])
//! and for narrow integer division ([`super::division`]). Each result is
//! bit-identical to the scalar code's on the same host (glibc 2.36 on
//! x86-64), including NaN payloads and signed zeros.
//!
//! | scalar | vector form |
//! | --- | --- |
//! | `floor`, `ceil`, `trunc`, `round`, `roundeven`, `rint`, `nearbyint`, `fabs`, `sqrt`, `copysign` | the `llvm.*` intrinsic of that definition |
//! | `ldexp`, `scalbn` | multiplications by powers of two, see `scale_by_power_of_two` |
//! | `abs`, `labs`, `llabs` | `llvm.abs(x, false)` (`INT_MIN` stays `INT_MIN`) |
//! | `fmin(x, y)`, `fmax(x, y)` | glibc's x86-64 `minsd`/`maxsd` sequence, see `glibc_min_max`; on AArch64 `llvm.minnum`/`llvm.maxnum` (`fminnm`/`fmaxnm`, what glibc's AArch64 `fmin`/`fmax` run); per-lane calls on other targets (`calls::min_max_form`) |
//! | `fdim(x, y)` | `x <= y ? +0 : x - y` |
//! | `fmod`, `frem` | [`super::fmod`] |
//! | `udiv`/`sdiv`/`urem`/`srem` of 2 to 32 bits, non-constant divisor | [`super::division`] |
//!
//! Calls of the functions that are not correctly rounded (`exp`, `sin`,
//! ...) go to [`super::veclib`], which calls a vector math library only
//! when one was asked for; in `--for-autodiff` clones their libm calls
//! become vector intrinsics here (`autodiff_math_call`), with the real call
//! where it may set `errno`.
//!
//! `llvm.minnum` leaves the order of ±0 open and quietens NaNs differently,
//! so glibc's `fmin`/`fmax` are spelled out instead.

use super::state::{Rule, Widener};
use crate::analysis::calls::{self, min_max_form, ExactLibm, LaneWise, MinMaxForm, Overload};
use crate::llvm::LLVMOpcode::*;
use crate::llvm::LLVMRealPredicate::*;
use crate::llvm::{constant, Type, Value};
use crate::plan::Widen;

/// The rule for one of the exact-math forms the plan chose.
pub(crate) fn rule<'ctx>(w: Widen) -> Rule<'ctx> {
    match w {
        Widen::Frem => frem as Rule<'ctx>,
        Widen::NarrowDivision => super::division::float_division as Rule<'ctx>,
        Widen::ExactMath => exact_or_fmod as Rule<'ctx>,
        Widen::ErrnoMath => errno_call as Rule<'ctx>,
        Widen::AutodiffMath => autodiff_math_call as Rule<'ctx>,
        _ => super::veclib::vecmath_call as Rule<'ctx>,
    }
}

fn exact_or_fmod<'ctx>(w: &mut Widener<'_, 'ctx>, i: Value<'ctx>) -> Option<Value<'ctx>> {
    match calls::exact_libm_call(i) {
        Some(ExactLibm::Fmod) => libm_fmod(w, i),
        _ => exact_call(w, i),
    }
}

fn frem<'ctx>(w: &mut Widener<'_, 'ctx>, i: Value<'ctx>) -> Option<Value<'ctx>> {
    let x = w.varying_value(i.operand(0));
    let y = w.varying_value(i.operand(1));
    Some(super::fmod::emit_fmod(w, x, y))
}

fn libm_fmod<'ctx>(w: &mut Widener<'_, 'ctx>, i: Value<'ctx>) -> Option<Value<'ctx>> {
    frem(w, i)
}

/// The other exact calls: an intrinsic, or a few vector instructions.
fn exact_call<'ctx>(w: &mut Widener<'_, 'ctx>, i: Value<'ctx>) -> Option<Value<'ctx>> {
    let f = calls::exact_libm_call(i)?;
    let args: Vec<Value> = (0..i.num_arg_operands()).map(|k| w.varying_value(i.operand(k))).collect();
    let vty = i.ty().vector_of(w.n);
    let b = &w.b;
    let r = match f {
        ExactLibm::Intrinsic(base) => {
            let lw = calls::lane_wise_intrinsic(base).expect("exact libm intrinsics are lane-wise");
            let arg_tys: Vec<Type> = args.iter().map(|v| v.ty()).collect();
            let decl = w.module.intrinsic(base, &calls::vector_overloads(lw, vty, &arg_tys))?;
            let args: Vec<Value> = if super::inactive::restricted_domain(base) {
                args.iter().map(|a| super::inactive::one_in_inactive_lanes(w, *a)).collect()
            } else {
                args
            };
            w.b.call(decl.function_type(), decl, &args)
        }
        ExactLibm::Abs => {
            let lw = LaneWise { overload: Overload::Ret, scalar_args: &[1] };
            let decl = w.module.intrinsic("llvm.abs", &calls::vector_overloads(lw, vty, &[vty]))?;
            let keep_int_min = constant::int(Type::int(w.ctx(), 1), 0);
            b.call(decl.function_type(), decl, &[args[0], keep_int_min])
        }
        ExactLibm::Fmin | ExactLibm::Fmax => {
            let min = f == ExactLibm::Fmin;
            match min_max_form(&w.module.target_triple())? {
                MinMaxForm::GlibcX86 => glibc_min_max(w, min, args[0], args[1]),
                MinMaxForm::MinNum => {
                    let name = if min { "llvm.minnum" } else { "llvm.maxnum" };
                    let decl = w.module.intrinsic(name, &[vty])?;
                    w.b.call(decl.function_type(), decl, &args)
                }
            }
        }
        ExactLibm::Fdim => {
            let (x, y) = (args[0], args[1]);
            let le = b.fcmp(LLVMRealOLE, x, y);
            b.select(le, constant::null(vty), b.binop(LLVMFSub, x, y))
        }
        ExactLibm::Ldexp => scale_by_power_of_two(w, args[0], args[1]),
        ExactLibm::Fmod => return None,
    };
    Some(r)
}

/// `sqrt` or `fmod` that may set `errno`: the exact vector value for every
/// lane, and the real call, in lane order, for each active lane whose input
/// is in the domain-error set (`sqrt`: `x < 0`; `fmod`: `y == 0` or `x`
/// infinite), which sets `errno` as the scalar calls would and gives those
/// lanes the call's own result. Other inputs never set `errno`.
fn errno_call<'ctx>(w: &mut Widener<'_, 'ctx>, i: Value<'ctx>) -> Option<Value<'ctx>> {
    let f = calls::errno_libm_call(i)?;
    let n = w.n;
    let vty = i.ty().vector_of(n);
    let args: Vec<Value> = (0..i.num_arg_operands()).map(|k| w.varying_value(i.operand(k))).collect();
    let zero = constant::null(vty);
    let (value, domain) = match f {
        ExactLibm::Intrinsic(base) => {
            let decl = w.module.intrinsic(base, &[vty])?;
            let x = super::inactive::one_in_inactive_lanes(w, args[0]);
            let v = w.b.call(decl.function_type(), decl, &[x]);
            (v, w.b.fcmp(LLVMRealOLT, args[0], zero))
        }
        ExactLibm::Fmod => {
            let v = super::fmod::emit_fmod(w, args[0], args[1]);
            let fabs = w.module.intrinsic("llvm.fabs", &[vty])?;
            let ax = w.b.call(fabs.function_type(), fabs, &[args[0]]);
            let inf = constant::vector(&vec![constant::real_inf(i.ty()); n as usize]);
            let y0 = w.b.fcmp(LLVMRealOEQ, args[1], zero);
            let xinf = w.b.fcmp(LLVMRealOEQ, ax, inf);
            (v, w.b.binop(LLVMOr, y0, xinf))
        }
        _ => return None,
    };
    let calls = if w.flow.full { domain } else { w.b.binop(LLVMAnd, domain, w.flow.mask) };
    let r = real_calls_in(w, i, &args, value, calls);
    w.stats.per_lane_calls.push(format!(
        "call to `{}`: vector code; the call itself runs only in lanes whose input may set errno",
        i.called_value().name()
    ));
    Some(r)
}

/// `value` with lane `k` replaced, for each `k` (in lane order) whose bit of
/// the `<N x i1>` mask `calls` is set, by the real scalar call `i` on lane
/// `k` of `args` (behind a branch on the bit, all of it behind one any-lane
/// test), which sets `errno` as the scalar call does.
fn real_calls_in<'ctx>(
    w: &mut Widener<'_, 'ctx>,
    i: Value<'ctx>,
    args: &[Value<'ctx>],
    value: Value<'ctx>,
    calls: Value<'ctx>,
) -> Value<'ctx> {
    let n = w.n;
    let vty = value.ty();
    let any = w.any(calls);
    let from = w.b.current_block();
    let run = w.clone.append_block("errno.calls");
    let cont = w.clone.append_block("errno.done");
    w.b.cond_br(any, run, cont);
    w.b.position_at_end(run);
    let mut acc = value;
    for k in 0..n {
        let bit = w.b.extract_element(calls, k);
        let here = w.b.current_block();
        let call_b = w.clone.append_block("errno.call");
        let next = w.clone.append_block("errno.next");
        w.b.cond_br(bit, call_b, next);
        w.b.position_at_end(call_b);
        let c = i.clone_instruction();
        for (a, v) in args.iter().enumerate() {
            let lane = w.b.extract_element(*v, k);
            c.set_operand(a as u32, lane);
        }
        c.clear_debug_location();
        w.b.insert(c);
        let with = w.b.insert_element(acc, c, k);
        w.b.br(next);
        w.b.position_at_end(next);
        let p = w.b.phi(vty);
        p.add_incoming(with, call_b);
        p.add_incoming(acc, here);
        acc = p;
    }
    let run_end = w.b.current_block();
    w.b.br(cont);
    w.b.position_at_end(cont);
    let r = w.b.phi(vty);
    r.add_incoming(acc, run_end);
    r.add_incoming(value, from);
    r
}

/// A libm call in a `--for-autodiff` clone ([`calls::autodiff_math_call`]:
/// `log`, `exp`, `sin`, ...): one call of the vector intrinsic, which
/// Enzyme differentiates as a whole and LLVM's backend lowers to one call
/// of the same libm function per lane (bit-identical values).
///
/// `errno`: a call that writes no memory needs nothing more. A call that
/// may set `errno` (clang's default `-fmath-errno`) keeps the scalar code's
/// `errno` as `emit::libm`'s `sqrt` does: the real scalar call runs, in
/// lane order, for each active lane whose input is in the function's
/// [`calls::ErrnoInputs`] (a superset of the inputs on which glibc sets
/// `errno`), and gives that lane its result; every other lane's input sets
/// no `errno` in the scalar code either. The intrinsic, which LLVM assumes
/// leaves `errno` alone, never sees such an input: its operand is 1 (in no
/// set) in those lanes and in inactive ones, so even its lowering's libm
/// calls set no `errno`, and its derivative in the lanes the real call
/// replaces is finite (a zero adjoint times it stays zero in Enzyme's
/// reverse pass).
fn autodiff_math_call<'ctx>(w: &mut Widener<'_, 'ctx>, i: Value<'ctx>) -> Option<Value<'ctx>> {
    use crate::llvm::LLVMOpcode::{LLVMOr, LLVMUIToFP, LLVMXor};
    use crate::llvm::LLVMRealPredicate::{LLVMRealUGE, LLVMRealUGT, LLVMRealULE};
    let f = calls::autodiff_math_call(i)?;
    let vty = i.ty().vector_of(w.n);
    let args: Vec<Value> = (0..f.arity).map(|k| w.varying_value(i.operand(k))).collect();
    let decl = w.module.intrinsic(f.intrinsic, &[vty])?;
    let Some(set) = f.errno else {
        let args: Vec<Value> = if super::inactive::restricted_domain(f.intrinsic) {
            args.iter().map(|a| super::inactive::one_in_inactive_lanes(w, *a)).collect()
        } else {
            args
        };
        let r = w.b.call(decl.function_type(), decl, &args);
        crate::llvm::copy_flags(i, r);
        return Some(r);
    };
    let x = args[0];
    let splat = |v: f64| constant::vector(&vec![constant::real(i.ty(), v); w.n as usize]);
    let abs = |w: &Widener<'_, 'ctx>| {
        let fabs = w.module.intrinsic("llvm.fabs", &[vty])?;
        Some(w.b.call(fabs.function_type(), fabs, &[x]))
    };
    // Unordered predicates: NaN is in every set.
    let domain = match set {
        calls::ErrnoInputs::NotPositive => w.b.fcmp(LLVMRealULE, x, constant::null(vty)),
        calls::ErrnoInputs::AbsAtLeast(t) => w.b.fcmp(LLVMRealUGE, abs(w)?, splat(t)),
        calls::ErrnoInputs::AbsAboveOne => w.b.fcmp(LLVMRealUGT, abs(w)?, splat(1.0)),
        calls::ErrnoInputs::NotFinite => {
            w.b.fcmp(LLVMRealUGE, abs(w)?, constant::vector(&vec![constant::real_inf(i.ty()); w.n as usize]))
        }
    };
    // 1 where the intrinsic must not compute on `x`: lanes in the set, and
    // inactive lanes (whatever the mask, not a constant arm: see
    // `inactive::one_in_inactive_lanes`).
    let off =
        if w.flow.full { domain } else { w.b.binop(LLVMOr, domain, w.b.binop(LLVMXor, w.flow.mask, w.all_true())) };
    let ones = w.b.cast(LLVMUIToFP, off, vty);
    let safe = w.b.select(off, ones, x);
    let value = w.b.call(decl.function_type(), decl, &[safe]);
    crate::llvm::copy_flags(i, value);
    let calls = if w.flow.full { domain } else { w.b.binop(crate::llvm::LLVMOpcode::LLVMAnd, domain, w.flow.mask) };
    let r = real_calls_in(w, i, &args, value, calls);
    let line = format!(
        "call to `{}`: one vector intrinsic; the call itself runs only in lanes whose input may set errno",
        i.called_value().name()
    );
    if !w.stats.per_lane_calls.contains(&line) {
        w.stats.per_lane_calls.push(line);
    }
    Some(r)
}

/// glibc's x86-64 `fmin`/`fmax` (`sysdeps/x86_64/fpu/s_fmin.S`, checked
/// against glibc 2.36 on every pair of ±0, 1 and quiet and signalling NaNs
/// of both signs): ordered operands give `minsd`/`maxsd`'s `x < y ? x : y`
/// (`x > y ? x : y`; so `fmin(+0, -0)` is `-0`, the second argument); a
/// quiet NaN loses to a number; two NaNs, or a signalling one, give
/// `x + y` (the first NaN, quietened).
fn glibc_min_max<'ctx>(w: &Widener<'_, 'ctx>, min: bool, x: Value<'ctx>, y: Value<'ctx>) -> Value<'ctx> {
    let b = &w.b;
    let vty = x.ty();
    let bits = if vty.element().kind() == crate::llvm::LLVMTypeKind::LLVMDoubleTypeKind { 64 } else { 32 };
    let ity = Type::int(w.ctx(), bits).vector_of(vty.vector_len());
    let quiet = if bits == 64 { 1u64 << 51 } else { 1u64 << 22 };
    let quiet_bit = constant::vector(&vec![constant::int(Type::int(w.ctx(), bits), quiet); vty.vector_len() as usize]);
    let zero = constant::null(ity);
    let x_nan = b.fcmp(LLVMRealUNO, x, x);
    let y_nan = b.fcmp(LLVMRealUNO, y, y);
    let signalling = |v: Value<'ctx>, nan: Value<'ctx>| {
        let q = b.binop(LLVMAnd, b.cast(LLVMBitCast, v, ity), quiet_bit);
        b.binop(LLVMAnd, nan, b.icmp(crate::llvm::LLVMIntPredicate::LLVMIntEQ, q, zero))
    };
    let sum_case =
        b.binop(LLVMOr, b.binop(LLVMAnd, x_nan, y_nan), b.binop(LLVMOr, signalling(x, x_nan), signalling(y, y_nan)));
    let pick_x = if min { b.fcmp(LLVMRealOLT, x, y) } else { b.fcmp(LLVMRealOGT, x, y) };
    let ordered = b.select(pick_x, x, y);
    let one_nan = b.select(x_nan, y, b.select(y_nan, x, ordered));
    b.select(sum_case, b.binop(LLVMFAdd, x, y), one_nan)
}

/// `ldexp(x, n)` (= `scalbn`) without a libm call: `x` is multiplied by at
/// most two large or two small powers of two while `n` is out of the
/// normal exponent range, then by `2^n` built from its bits (the scheme of
/// musl's `scalbn`). Every product but the last is exact or already
/// overflows to infinity; a small step leaves `x` normal unless the result
/// is below half the smallest subnormal anyway, so the last product rounds
/// once, to the correctly rounded `x * 2^n` that glibc returns.
fn scale_by_power_of_two<'ctx>(w: &Widener<'_, 'ctx>, x: Value<'ctx>, n: Value<'ctx>) -> Value<'ctx> {
    let b = &w.b;
    let vty = x.ty();
    let lanes = vty.vector_len() as usize;
    let double = vty.element().kind() == crate::llvm::LLVMTypeKind::LLVMDoubleTypeKind;
    // (largest exponent, smallest normal exponent, significand bits)
    let (max_e, min_e, mant): (i64, i64, u64) = if double { (1023, -1022, 52) } else { (127, -126, 23) };
    let bits = if double { 64 } else { 32 };
    let ity = Type::int(w.ctx(), bits).vector_of(lanes as u32);
    let i32t = Type::int(w.ctx(), 32);
    let n_splat = |v: i64| constant::vector(&vec![constant::int(i32t, v as u64); lanes]);
    let power = |e: i64| {
        let enc = ((e + max_e) as u64) << mant;
        b.cast(LLVMBitCast, constant::vector(&vec![constant::int(Type::int(w.ctx(), bits), enc); lanes]), vty)
    };
    use crate::llvm::LLVMIntPredicate::{LLVMIntSGT, LLVMIntSLT};
    // Down by 2^(min_e + mant + 1) keeps a normal x normal down to the
    // results that round to zero.
    let down = min_e + mant as i64 + 1;
    let (mut y, mut k) = (x, n);
    for _ in 0..2 {
        let big = b.icmp(LLVMIntSGT, k, n_splat(max_e));
        let small = b.icmp(LLVMIntSLT, k, n_splat(min_e));
        let y_big = b.binop(LLVMFMul, y, power(max_e));
        let y_small = b.binop(LLVMFMul, y, power(down));
        y = b.select(big, y_big, b.select(small, y_small, y));
        let k_big = b.binop(LLVMSub, k, n_splat(max_e));
        let k_small = b.binop(LLVMSub, k, n_splat(down));
        k = b.select(big, k_big, b.select(small, k_small, k));
    }
    let k = b.select(b.icmp(LLVMIntSGT, k, n_splat(max_e)), n_splat(max_e), k);
    let k = b.select(b.icmp(LLVMIntSLT, k, n_splat(min_e)), n_splat(min_e), k);
    let k = if double { b.cast(LLVMSExt, k, ity) } else { k };
    let biased = b.binop(LLVMAdd, k, constant::vector(&vec![constant::int(ity.element(), max_e as u64); lanes]));
    let scale_bits = b.binop(LLVMShl, biased, constant::vector(&vec![constant::int(ity.element(), mant); lanes]));
    b.binop(LLVMFMul, y, b.cast(LLVMBitCast, scale_bits, vty))
}
