//! Exact math as vector code: recipes for calls of the exactly defined C
//! math functions ([`calls::exact_libm_call`]), for `frem` ([`super::fmod`])
//! and for narrow integer division ([`super::division`]). Each result is
//! bit-identical to the scalar code's on the same host (glibc 2.36 on
//! x86-64), including NaN payloads and signed zeros.
//!
//! | scalar | vector form |
//! | --- | --- |
//! | `floor`, `ceil`, `trunc`, `round`, `roundeven`, `rint`, `nearbyint`, `fabs`, `sqrt`, `copysign`, `ldexp`, `scalbn` | the `llvm.*` intrinsic of that definition |
//! | `abs`, `labs`, `llabs` | `llvm.abs(x, false)` (`INT_MIN` stays `INT_MIN`) |
//! | `fmin(x, y)` | `y < x \|\| isnan(x) ? y : x` |
//! | `fmax(x, y)` | `x < y \|\| isnan(x) ? y : x` |
//! | `fdim(x, y)` | `x <= y ? +0 : x - y` |
//! | `fmod`, `frem` | [`super::fmod`] |
//! | `udiv`/`sdiv`/`urem`/`srem` of 2 to 32 bits, non-constant divisor | [`super::division`] |
//!
//! `fmin`/`fmax` follow what glibc 2.36's `fmin`/`fmax` return, measured on
//! every pair of ±0, 1, quiet and signalling NaNs of both signs: among equal
//! values (±0) the first argument, a NaN argument loses to a number, and of
//! two NaNs the second is returned unchanged. `llvm.minnum` leaves the zero
//! case open, so it is not used.

use super::recipes::Recipe;
use super::state::Widener;
use crate::analysis::calls::{self, ExactLibm, LaneWise, Overload};
use crate::llvm::LLVMOpcode::*;
use crate::llvm::LLVMRealPredicate::*;
use crate::llvm::{constant, Type, Value};

/// The exact-math recipe for a varying instruction, if one applies. Checked
/// before the generic recipes; the recipe it returns always succeeds.
pub(crate) fn recipe_for<'ctx>(i: Value<'ctx>) -> Option<Recipe<'ctx>> {
    let ty = i.ty();
    if !ty.is_vector_element() {
        return None;
    }
    match i.opcode() {
        LLVMFRem if is_float_or_double(ty) => Some(frem as Recipe<'ctx>),
        LLVMUDiv | LLVMSDiv | LLVMURem | LLVMSRem
            if (2..=32).contains(&ty.int_width()) && i.operand(1).const_int_value().is_none() =>
        {
            Some(super::division::float_division as Recipe<'ctx>)
        }
        LLVMCall => {
            let f = calls::exact_libm_call(i)?;
            let scalar_args = (0..i.num_arg_operands()).all(|k| i.operand(k).ty().is_vector_element());
            scalar_args.then_some(match f {
                ExactLibm::Fmod => libm_fmod as Recipe<'ctx>,
                _ => exact_call as Recipe<'ctx>,
            })
        }
        _ => None,
    }
}

fn is_float_or_double(t: Type) -> bool {
    use crate::llvm::LLVMTypeKind::*;
    matches!(t.kind(), LLVMFloatTypeKind | LLVMDoubleTypeKind)
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
            b.call(decl.function_type(), decl, &args)
        }
        ExactLibm::Abs => {
            let lw = LaneWise { overload: Overload::Ret, scalar_args: &[1] };
            let decl = w.module.intrinsic("llvm.abs", &calls::vector_overloads(lw, vty, &[vty]))?;
            let keep_int_min = constant::int(Type::int(w.ctx(), 1), 0);
            b.call(decl.function_type(), decl, &[args[0], keep_int_min])
        }
        ExactLibm::Fmin | ExactLibm::Fmax => {
            let (x, y) = (args[0], args[1]);
            let less = if f == ExactLibm::Fmin { b.fcmp(LLVMRealOLT, y, x) } else { b.fcmp(LLVMRealOLT, x, y) };
            let x_nan = b.fcmp(LLVMRealUNO, x, x);
            b.select(b.binop(LLVMOr, less, x_nan), y, x)
        }
        ExactLibm::Fdim => {
            let (x, y) = (args[0], args[1]);
            let le = b.fcmp(LLVMRealOLE, x, y);
            b.select(le, constant::null(vty), b.binop(LLVMFSub, x, y))
        }
        ExactLibm::Fmod => return None,
    };
    Some(r)
}
