//! Batched callees: a varying call to a function defined in the module
//! becomes one call to that function's own clone, built with the caller's
//! width and ISA, instead of one scalar call per active lane.
//!
//! * The callee clone's shape comes from the call: a uniform argument stays
//!   a scalar (`u`), a varying one is a vector (`v`); it is masked (with the
//!   ISA's mask ABI, [`crate::spec::mask_abi_for`]) where the caller's mask
//!   may be partial, and unmasked where every lane is known active.
//! * A Vector Function ABI variant of that shape that the callee lists
//!   (`vector-function-abi-variant`, `declare simd`) serves the call, if
//!   the module has it or this run builds it: the declaration promises that
//!   it may stand for the scalar calls. Otherwise, if the callee may be
//!   batched, a clone of that shape that this run was asked for serves it.
//! * Otherwise the clone is an internal helper named
//!   `__batchify.<VFABI name>` (for example `__batchify._ZGV_LLVM_M8vu_gcd`),
//!   a name no requested variant or C/Rust symbol has; a clash with an
//!   existing symbol gets a numeric suffix. The registry
//!   ([`crate::callee_clones::CalleeClones`]) keeps one
//!   helper per shape for the whole run, declares it when a caller first
//!   needs it, and hands its spec to the driver (`lib.rs`), which builds it
//!   like any clone (vector code, or the per-lane fallback when legality or
//!   cost say no) after the caller. Recursion needs nothing special: a
//!   recursive call finds its own helper already declared.
//! * Which callees may be batched is decided by
//!   [`crate::analysis::callees`]; every call that stays per lane is
//!   reported with the reason.

use super::state::Widener;
use crate::abi;
use crate::callee_clones::CalleeClones;
use crate::llvm::Value;
use crate::plan::{BatchedCall, CallTarget};
use crate::vfabi::ParamKind;

impl<'ctx> Widener<'_, 'ctx> {
    /// The call of the callee's clone (or declared variant) that the plan
    /// chose for the varying call `i`.
    pub(crate) fn batched_call(&mut self, i: Value<'ctx>, call: &BatchedCall) -> Value<'ctx> {
        let callee = i.called_value();
        let cname = callee.name();
        let args: Vec<Value> = (0..i.num_arg_operands()).map(|k| i.operand(k)).collect();
        let (target, spec) = match &call.target {
            CallTarget::Named(r) => (CalleeClones::materialize(self.module, callee, r), &r.spec),
            CallTarget::Helper => {
                let f =
                    self.callees.helper(self.module, callee, &call.spec).expect("the plan checked the helper's type");
                (f, &call.spec)
            }
        };
        let mut vargs = Vec::new();
        for (a, kind) in args.iter().zip(&spec.params) {
            vargs.push(match kind {
                ParamKind::Vector => self.varying_value(*a),
                ParamKind::Linear { step } => self.linear_base(*a, *step),
                _ => self.uniform_value(*a),
            });
        }
        let fty = target.function_type();
        if let Some(mabi) = spec.mask {
            let m = if self.flow.full { self.all_true() } else { self.flow.mask };
            let mty = *fty.param_types().last().expect("a masked clone has a mask parameter");
            vargs.push(abi::encode_mask(&self.b, mabi, m, mty));
        }
        let r = self.b.call(fty, target, &vargs);
        r.set_call_conv(target.call_conv());
        let r = if i.ty().is_void() { r } else { super::aggregates::from_abi(&self.b, r, i.ty(), self.n) };
        let line = format!("call to `{cname}` -> `{}`", target.name());
        if !self.stats.batched_calls.contains(&line) {
            self.stats.batched_calls.push(line);
        }
        r
    }

    /// What a linear parameter of step `step` receives for linear `a`:
    /// lane 0's value, computed from the first active lane's.
    fn linear_base(&mut self, a: Value<'ctx>, step: i64) -> Value<'ctx> {
        let vector = self.varying_value(a);
        let lanes = super::memory::active_lanes(self);
        let first = super::memory::known_lane(self, a, vector, lanes.first);
        if lanes.first.const_int_value() == Some(0) {
            return first;
        }
        let i64t = crate::llvm::Type::int(self.ctx(), 64);
        let zero = crate::llvm::constant::int(i64t, 0);
        let back = self.b.binop(crate::llvm::LLVMOpcode::LLVMSub, zero, lanes.first);
        let offset =
            self.b.binop(crate::llvm::LLVMOpcode::LLVMMul, back, crate::llvm::constant::int(i64t, step as u64));
        abi::linear_lane(&self.b, first, a.ty(), offset)
    }

    pub(crate) fn note_call(&mut self, callee: &str, why: String) {
        let line = format!("call to `{callee}`: {why}");
        if !self.stats.per_lane_calls.contains(&line) {
            self.stats.per_lane_calls.push(line);
        }
    }
}
