//! Vector rules: one small rule per kind of varying instruction, in the
//! spirit of VPlan's recipes. The plan ([`crate::plan`]) chose the rule
//! ([`Widen`]) from the opcode and the types; [`rule`] names the function
//! that builds the vector form under the current execution mask. Reads
//! the analyses; touches only the clone's body.
//!
//! | rule | instructions |
//! | --- | --- |
//! | `lane_wise_binop` | integer and float arithmetic, shifts, bitwise logic |
//! | `guarded_division` | `udiv`, `sdiv`, `urem`, `srem` (divisor 1 in inactive lanes) |
//! | `float_negation` | `fneg` |
//! | `comparison` | `icmp`, `fcmp` |
//! | `conversion` | casts |
//! | `selection` | `select` on a scalar or uniform condition |
//! | `freeze` | `freeze` |
//! | `address` | `getelementptr` (a vector of addresses) |
//! | [`super::memory`] | `load` / `store` at varying addresses, by the address's shape |
//! | `lane_wise_intrinsic` | calls of intrinsics with a vector form |
//! | [`super::private`] | `alloca` (and accesses that depend on its layout, first) |
//! | [`super::aggregates`] | `extractvalue`, `insertvalue`, `select`, `freeze` on structs of vectors; overflow intrinsics |
//! | [`super::vector_input`] | anything whose result or operand is a vector already |

use super::state::{Rule, Widener};
use crate::analysis::calls;
use crate::llvm::LLVMOpcode::{self, *};
use crate::llvm::{constant, copy_flags, Type, Value};
use crate::plan::Widen;

/// The rule that builds what the plan's [`Widen`] says. A rule declines
/// (`None`) only where the plan was wrong, which emission reports as an
/// internal error.
pub(crate) fn rule<'ctx>(w: Widen) -> Rule<'ctx> {
    match w {
        Widen::Aggregate => super::aggregates::recipe as Rule<'ctx>,
        Widen::PlainVector => super::vector_input::recipe as Rule<'ctx>,
        Widen::Private => super::private::interleaved_form as Rule<'ctx>,
        Widen::Frem
        | Widen::NarrowDivision
        | Widen::ExactMath
        | Widen::ErrnoMath
        | Widen::VecMath
        | Widen::AutodiffMath => super::libm::rule(w),
        Widen::Arithmetic => lane_wise_binop as Rule<'ctx>,
        Widen::GuardedDivision => guarded_division as Rule<'ctx>,
        Widen::Negation => float_negation as Rule<'ctx>,
        Widen::Comparison => comparison as Rule<'ctx>,
        Widen::Conversion => conversion as Rule<'ctx>,
        Widen::Selection => selection as Rule<'ctx>,
        Widen::Freeze => freeze as Rule<'ctx>,
        Widen::Address => address as Rule<'ctx>,
        Widen::Intrinsic => lane_wise_intrinsic as Rule<'ctx>,
        Widen::Alloca => super::private::alloca as Rule<'ctx>,
    }
}

fn lane_wise_binop<'ctx>(w: &mut Widener<'_, 'ctx>, i: Value<'ctx>) -> Option<Value<'ctx>> {
    let a = w.varying_value(i.operand(0));
    let mut c = w.varying_value(i.operand(1));
    if matches!(i.opcode(), LLVMFDiv | LLVMFRem) {
        c = super::inactive::one_in_inactive_lanes(w, c);
    }
    let r = w.b.binop(i.opcode(), a, c);
    copy_flags(i, r);
    Some(r)
}

/// Inactive lanes divide by 1: they must not trap on a zero or
/// `INT_MIN / -1` divisor that the scalar code never sees. Both operands are
/// frozen first: in inactive lanes they may be poison (an `add nuw` or
/// `mul nsw` the scalar code never ran), and LLVM 22's x86 code generation
/// used facts that only hold without poison ("nonzero" for the divisor,
/// "non-negative" for the dividend) to divide by the unselected divisor, or
/// to skip the sign extension before `idiv` (both trapped; fuzz seeds
/// 4030610 and 6046012).
fn guarded_division<'ctx>(w: &mut Widener<'_, 'ctx>, i: Value<'ctx>) -> Option<Value<'ctx>> {
    let op = i.opcode();
    let mut a = w.varying_value(i.operand(0));
    let mut d = w.varying_value(i.operand(1));
    if !w.flow.full && !is_safe_divisor(op, i.operand(1)) {
        let ones = constant::vector(&vec![constant::int(i.ty(), 1); w.n as usize]);
        a = w.b.freeze(a);
        let frozen = w.b.freeze(d);
        d = w.b.select(w.flow.mask, frozen, ones);
    }
    let r = w.b.binop(op, a, d);
    copy_flags(i, r);
    Some(r)
}

fn float_negation<'ctx>(w: &mut Widener<'_, 'ctx>, i: Value<'ctx>) -> Option<Value<'ctx>> {
    let a = w.varying_value(i.operand(0));
    let r = w.b.fneg(a);
    copy_flags(i, r);
    Some(r)
}

fn comparison<'ctx>(w: &mut Widener<'_, 'ctx>, i: Value<'ctx>) -> Option<Value<'ctx>> {
    let a = w.varying_value(i.operand(0));
    let c = w.varying_value(i.operand(1));
    let r =
        if i.opcode() == LLVMICmp { w.b.icmp(i.icmp_predicate(), a, c) } else { w.b.fcmp(i.fcmp_predicate(), a, c) };
    copy_flags(i, r);
    Some(r)
}

fn conversion<'ctx>(w: &mut Widener<'_, 'ctx>, i: Value<'ctx>) -> Option<Value<'ctx>> {
    let a = w.varying_value(i.operand(0));
    let r = w.b.cast(i.opcode(), a, i.ty().vector_of(w.n));
    copy_flags(i, r);
    Some(r)
}

/// A `select` on a vector condition (one per element) has no lane form here.
fn selection<'ctx>(w: &mut Widener<'_, 'ctx>, i: Value<'ctx>) -> Option<Value<'ctx>> {
    let c = i.operand(0);
    if c.ty().is_vector() {
        return None;
    }
    let cond = w.mapped_value(c);
    let a = w.varying_value(i.operand(1));
    let d = w.varying_value(i.operand(2));
    let r = w.b.select(cond, a, d);
    copy_flags(i, r);
    Some(r)
}

fn freeze<'ctx>(w: &mut Widener<'_, 'ctx>, i: Value<'ctx>) -> Option<Value<'ctx>> {
    let a = w.varying_value(i.operand(0));
    Some(w.b.freeze(a))
}

/// A `getelementptr` with scalar operands; uniform ones stay scalar and the
/// result is a vector of addresses. Vector operands (already-vector input)
/// are serialized.
fn address<'ctx>(w: &mut Widener<'_, 'ctx>, i: Value<'ctx>) -> Option<Value<'ctx>> {
    let ops = i.operands();
    if ops.iter().any(|o| o.ty().is_vector()) {
        return None;
    }
    let base = w.mapped_value(ops[0]);
    let idx: Vec<Value> = ops[1..].iter().map(|o| w.mapped_value(*o)).collect();
    Some(w.b.gep(i.gep_source_type(), base, &idx, i.gep_flags()))
}

/// A call of an intrinsic with a lane-wise vector form (`llvm.sqrt`,
/// `llvm.fma`, ...); its scalar-only arguments must be uniform.
fn lane_wise_intrinsic<'ctx>(w: &mut Widener<'_, 'ctx>, i: Value<'ctx>) -> Option<Value<'ctx>> {
    let base = calls::called_intrinsic(i)?;
    let lw = calls::lane_wise_intrinsic(&base)?;
    let nargs = i.num_arg_operands();
    let args: Vec<Value> = (0..nargs).map(|k| i.operand(k)).collect();
    if args.iter().chain([&i]).any(|v| !v.ty().is_vector_element()) {
        return None;
    }
    let mut vargs = Vec::new();
    for (k, a) in args.iter().enumerate() {
        if lw.scalar_args.contains(&(k as u32)) {
            if w.analyses.uniformity.is_varying(*a) {
                return None; // e.g. a varying powi exponent
            }
            vargs.push(w.uniform_value(*a));
        } else if super::inactive::restricted_domain(&base) {
            let v = w.varying_value(*a);
            vargs.push(super::inactive::one_in_inactive_lanes(w, v));
        } else {
            vargs.push(w.varying_value(*a));
        }
    }
    let ret = if i.ty().is_void() { i.ty() } else { i.ty().vector_of(w.n) };
    let arg_tys: Vec<Type> = vargs.iter().map(|v| v.ty()).collect();
    let overloads = calls::vector_overloads(lw, ret, &arg_tys);
    let decl = w.module.intrinsic(&base, &overloads)?;
    let r = w.b.call(decl.function_type(), decl, &vargs);
    copy_flags(i, r);
    Some(r)
}

/// Whether a divisor is a constant that cannot trap whatever the dividend:
/// nonzero, and for signed division not -1 (`INT_MIN / -1` overflows).
pub(super) fn is_safe_divisor(op: LLVMOpcode, d: Value) -> bool {
    let Some(v) = d.const_int_value() else { return false };
    let width = d.ty().int_width();
    let minus_one = if width >= 64 { u64::MAX } else { (1u64 << width) - 1 };
    v != 0 && (matches!(op, LLVMUDiv | LLVMURem) || v != minus_one)
}
