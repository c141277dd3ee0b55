//! Stage 9, the per-lane fallback: a clone whose body calls the scalar
//! function once per active lane, in lane order. Correct for anything the
//! vectorizer does not handle yet (it is exactly the semantics contract),
//! and reported. Touches only the clone's body; reads the ABI.

use crate::abi::{self, extract_lane, insert_lane, varying_type};
use crate::llvm::LLVMOpcode::*;
use crate::llvm::{constant, Builder, Module, Type, Value};
use crate::spec::CloneSpec;
use crate::vfabi::ParamKind;

/// Fills `clone` (which has no body) with the per-lane loop over `scalar`.
pub fn build(module: Module, scalar: Value, clone: Value, spec: &CloneSpec) {
    let ctx = module.context();
    let b = Builder::new(ctx);
    let entry = clone.append_block("entry");
    b.position_at_end(entry);
    let n = spec.width;
    let sty = scalar.function_type();
    let ret = sty.return_type();
    let cparams = name_params(scalar, clone);
    let nparams = sty.param_types().len();
    let i64t = Type::int(ctx, 64);
    let mask_bit = |k: u32| spec.mask.map(|abi| abi::lane_is_active(&b, abi, cparams[nparams], k));
    let mut acc = (!ret.is_void()).then(|| constant::poison(varying_type(ret, n)));
    for k in 0..n {
        let args = lane_args(&b, sty, spec, &cparams, constant::int(i64t, u64::from(k)));
        let call_block = clone.append_block("lane");
        let next = clone.append_block("lane.next");
        let from = b.current_block();
        match mask_bit(k) {
            Some(bit) => b.cond_br(bit, call_block, next),
            None => b.br(call_block),
        };
        b.position_at_end(call_block);
        let r = b.call(sty, scalar, &args);
        copy_call_abi(scalar, r);
        b.br(next);
        b.position_at_end(next);
        if let Some(a) = acc {
            let phi = b.phi(ret);
            phi.add_incoming(r, call_block);
            if from != call_block && spec.mask.is_some() {
                phi.add_incoming(constant::poison(ret), from);
            }
            acc = Some(insert_lane(&b, a, ret, phi, k));
        }
    }
    b.ret(acc);
}

/// The scalar function's (of type `sty`) arguments for lane `lane` (an
/// `i64`: a constant in the fixed-width loop, a loop counter in an SVE
/// clone's) of a clone of `spec` whose parameters are `cparams`: the
/// lane's element of a vector, `x + lane*step` of a linear parameter, a
/// uniform one as it is.
pub fn lane_args<'ctx>(
    b: &Builder<'ctx>,
    sty: Type<'ctx>,
    spec: &CloneSpec,
    cparams: &[Value<'ctx>],
    lane: Value<'ctx>,
) -> Vec<Value<'ctx>> {
    let i64t = Type::int(b.context(), 64);
    let mut args = Vec::new();
    for (i, t) in sty.param_types().into_iter().enumerate() {
        let p = cparams[i];
        args.push(match spec.params[i] {
            ParamKind::Vector => match lane.const_int_value() {
                Some(k) => extract_lane(b, p, t, k as u32),
                None => b.extract_element_dyn(p, lane),
            },
            ParamKind::Linear { step } => {
                let off = b.binop(LLVMMul, lane, constant::int(i64t, step as u64));
                abi::linear_lane(b, p, t, off)
            }
            ParamKind::LinearVarStep { param } => {
                let s64 = abi::step_as_i64(b, cparams[param]);
                let off = b.binop(LLVMMul, s64, lane);
                abi::linear_lane(b, p, t, off)
            }
            _ => p,
        });
    }
    args
}

/// Names the clone's parameters after the scalar function's, and the one
/// after them `mask`; returns them.
pub fn name_params<'ctx>(scalar: Value<'ctx>, clone: Value<'ctx>) -> Vec<Value<'ctx>> {
    let cparams = clone.params();
    for (p, q) in scalar.params().into_iter().zip(&cparams) {
        q.set_name(&p.name());
    }
    if let Some(m) = cparams.get(scalar.params().len()) {
        m.set_name("mask");
    }
    cparams
}

/// Gives a call of `callee` the callee's calling convention and its
/// parameter attributes (a mismatch of either is undefined behaviour, which
/// LLVM turns into `unreachable`). A `byval` argument is then copied for
/// the call, so each lane changes only its own copy, as in a scalar call.
pub fn copy_call_abi(callee: Value, call: Value) {
    call.set_call_conv(callee.call_conv());
    for i in 0..callee.function_type().param_types().len() as u32 {
        for a in callee.attributes(i + 1) {
            call.add_call_site_attribute(i + 1, a);
        }
    }
}
