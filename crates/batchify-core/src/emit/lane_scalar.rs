//! One lane of a linear value, computed in scalar code.
//!
//! A contiguous access under a full mask needs lane 0's address, and a
//! checked stride ([`crate::analysis::shape::Check`]) lanes 0 and N-1 of
//! the checked index. Extracted from the vectors, they wait for the whole
//! vector computation (broadcast, add, extend, shift, add: about 7
//! instructions of latency before the first load of `stencil3` in
//! `cargo xtask bench-gcc`). Recomputed from the linear parameter and the
//! uniform values with the scalar function's own scalar operations, they
//! are one or two instructions away. Only lane-wise integer arithmetic,
//! casts and `getelementptr` are followed, without wrap or `inbounds`
//! flags: each recomputed value is the vector lane's value, or a defined
//! value where the lane's is poison.

use super::state::Widener;
use crate::llvm::LLVMOpcode::*;
use crate::llvm::{constant, Type, Value};

/// How many operations deep a lane is recomputed.
const MAX_DEPTH: u32 = 6;

/// Lane `k` of the varying scalar-code value `v`, in scalar code at the
/// builder's position; `None` where `v` is not built from linear
/// parameters and uniform values by the operations above.
pub(super) fn lane_scalar<'ctx>(w: &Widener<'_, 'ctx>, v: Value<'ctx>, k: u32) -> Option<Value<'ctx>> {
    recompute(w, v, k, MAX_DEPTH)
}

fn recompute<'ctx>(w: &Widener<'_, 'ctx>, v: Value<'ctx>, k: u32, depth: u32) -> Option<Value<'ctx>> {
    if !w.analyses.uniformity.is_varying(v) {
        return Some(w.uniform_value(v));
    }
    if v.ty().is_vector() || v.ty().is_aggregate() {
        return None;
    }
    if let Some(&(param, step)) = w.values.linear_params.get(&v) {
        let offset = step.wrapping_mul(k as i64);
        if offset == 0 {
            return Some(param);
        }
        let offset = constant::int(Type::int(w.ctx(), 64), offset as u64);
        return Some(crate::abi::linear_lane(&w.b, param, v.ty(), offset));
    }
    if depth == 0 || !v.is_instruction() {
        return None;
    }
    let operand = |i: u32| recompute(w, v.operand(i), k, depth - 1);
    match v.opcode() {
        op @ (LLVMAdd | LLVMSub | LLVMMul | LLVMShl | LLVMAnd | LLVMOr | LLVMXor) => {
            let (a, b) = (operand(0)?, operand(1)?);
            Some(w.b.binop(op, a, b))
        }
        op @ (LLVMSExt | LLVMZExt | LLVMTrunc) => Some(w.b.cast(op, operand(0)?, v.ty())),
        LLVMGetElementPtr => {
            let base = operand(0)?;
            let idx = (1..v.num_operands()).map(operand).collect::<Option<Vec<_>>>()?;
            Some(w.b.gep(v.gep_source_type(), base, &idx, Default::default()))
        }
        _ => None,
    }
}
