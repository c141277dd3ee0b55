//! What inactive lanes compute in `--for-autodiff` clones
//! (`docs/autodiff.md`): operations whose derivative is infinite or NaN
//! somewhere get 1.0 in inactive lanes, so that a zero adjoint times that
//! derivative (NaN in Enzyme's reverse pass) never reaches a gradient.

use super::state::Widener;
use crate::llvm::LLVMOpcode::{LLVMUIToFP, LLVMXor};
use crate::llvm::{Type, Value};

/// Intrinsics whose derivative is infinite or NaN somewhere (or whose
/// result overflows): their operands are 1 in inactive lanes of
/// `--for-autodiff` clones.
pub(super) fn restricted_domain(name: &str) -> bool {
    let stem = name.strip_prefix("llvm.").unwrap_or(name);
    matches!(
        stem,
        "sqrt"
            | "log"
            | "log2"
            | "log10"
            | "pow"
            | "exp"
            | "exp2"
            | "exp10"
            | "powi"
            | "asin"
            | "acos"
            | "sinh"
            | "cosh"
    ) || stem.starts_with("experimental.constrained.")
}

/// In `--for-autodiff` clones under a partial mask: `v` (floating point)
/// with 1 in the inactive lanes, so that those lanes compute nothing whose
/// derivative is infinite or NaN (a zero adjoint times either is NaN in
/// Enzyme's reverse pass, which would reach the active lanes' gradients).
pub(super) fn one_in_inactive_lanes<'ctx>(w: &mut Widener<'_, 'ctx>, v: Value<'ctx>) -> Value<'ctx> {
    let fp = |t: Type| {
        use crate::llvm::LLVMTypeKind::*;
        matches!(t.kind(), LLVMHalfTypeKind | LLVMBFloatTypeKind | LLVMFloatTypeKind | LLVMDoubleTypeKind)
    };
    if !w.for_autodiff || w.flow.full || !v.ty().is_vector() || !fp(v.ty().element()) {
        return v;
    }
    // 1.0 exactly where the lane is inactive, but not a constant: with a
    // constant arm, instcombine would move the operation into the select
    // (`sqrt(select(m, x, 1))` to `select(m, sqrt(x), 1)`) and the inactive
    // lanes would compute on `x` again.
    let off = w.b.binop(LLVMXor, w.flow.mask, w.all_true());
    let ones = w.b.cast(LLVMUIToFP, off, v.ty());
    w.b.select(w.flow.mask, v, ones)
}
