//! SVE clones (`_ZGVs<N|M>x...`, scalable length): values of type
//! `<vscale x K x T>` and, for masked variants, the predicate
//! `<vscale x K x i1>` last, where `K` lanes fill 128 bits of the widest
//! vector element ([`crate::spec::min_lanes`], LLVM's rule for the VFABI's
//! scalable length). The vectorizer's stages work on fixed widths, so an SVE clone is
//! built here as a per-lane loop over its `vscale x K` lanes: the scalar
//! function called once per active lane, in lane order (exactly the
//! semantics contract), and reported as a per-lane fallback. Correct for
//! every vector length (`vscale` is read at run time), slow.

use crate::abi;
use crate::error::{Error, FallbackKind, Result};
use crate::llvm::LLVMOpcode::*;
use crate::llvm::{constant, Builder, Module, Type, Value};
use crate::shell;
use crate::spec::CloneSpec;
use crate::vfabi::ParamKind;

/// Why SVE clones are per-lane loops (the report's reason).
pub const REASON: &str =
    "scalable vectors are not vectorized yet (an SVE clone runs its `vscale x K` lanes one by one)";

/// Builds the SVE clone `spec` of `scalar` as a per-lane loop and returns
/// it. `Err(Error::Unsupported)` when the per-lane loop is not allowed
/// (`--no-fallback`), with nothing built.
pub fn build<'ctx>(
    module: Module<'ctx>,
    scalar: Value<'ctx>,
    spec: &CloneSpec,
    allow_fallback: bool,
) -> Result<Value<'ctx>> {
    let fty = abi::clone_type(scalar, spec)?;
    shell::check_clone_name(module, spec, fty, &[])?;
    if !allow_fallback {
        return Err(Error::Unsupported {
            function: spec.scalar_name.clone(),
            kind: FallbackKind::Scalable,
            what: REASON.into(),
        });
    }
    let clone = shell::create_clone_function(module, scalar, spec, fty);
    lane_loop(module, scalar, clone, spec);
    module.verify_function(clone).map_err(|message| Error::Internal { function: spec.vector_name.clone(), message })?;
    Ok(clone)
}

/// Fills `clone` with a loop over its `vscale x K` lanes that calls the
/// scalar function for each active lane and inserts the result.
fn lane_loop<'ctx>(module: Module<'ctx>, scalar: Value<'ctx>, clone: Value<'ctx>, spec: &CloneSpec) {
    let ctx = module.context();
    let i64t = Type::int(ctx, 64);
    let b = Builder::new(ctx);
    let sty = scalar.function_type();
    let ret = sty.return_type();
    let cparams = crate::fallback::name_params(scalar, clone);
    let nparams = sty.param_types().len();
    let mask = spec.mask.map(|_| cparams[nparams]);
    let entry = clone.append_block("entry");
    let head = clone.append_block("lane.head");
    let call_block = clone.append_block("lane");
    let next = clone.append_block("lane.next");
    let exit = clone.append_block("exit");
    b.position_at_end(entry);
    let vscale = module.intrinsic("llvm.vscale", &[i64t]).expect("llvm.vscale exists");
    let vscale = b.call(vscale.function_type(), vscale, &[]);
    let lanes = b.binop(LLVMMul, vscale, constant::int(i64t, spec.width as u64));
    let result_ty = clone.function_type().return_type();
    let start = (!ret.is_void()).then(|| constant::poison(result_ty));
    b.br(head);

    b.position_at_end(head);
    let lane = b.phi(i64t);
    lane.add_incoming(constant::int(i64t, 0), entry);
    let acc = start.map(|s| {
        let phi = b.phi(result_ty);
        phi.add_incoming(s, entry);
        phi
    });
    match mask {
        Some(m) => {
            let active = b.extract_element_dyn(m, lane);
            b.cond_br(active, call_block, next);
        }
        None => {
            b.br(call_block);
        }
    }

    b.position_at_end(call_block);
    let mut args = Vec::new();
    for (i, t) in sty.param_types().into_iter().enumerate() {
        let p = cparams[i];
        args.push(match spec.params[i] {
            ParamKind::Vector => b.extract_element_dyn(p, lane),
            ParamKind::Linear { step } => {
                let off = b.binop(LLVMMul, lane, constant::int(i64t, step as u64));
                abi::linear_lane(&b, p, t, off)
            }
            ParamKind::LinearVarStep { param } => {
                let s64 = abi::step_as_i64(&b, cparams[param]);
                let off = b.binop(LLVMMul, s64, lane);
                abi::linear_lane(&b, p, t, off)
            }
            _ => p,
        });
    }
    let r = b.call(sty, scalar, &args);
    crate::fallback::copy_call_abi(scalar, r);
    let with_lane = acc.map(|a| b.insert_element_dyn(a, r, lane));
    b.br(next);

    b.position_at_end(next);
    let merged = acc.map(|a| {
        let phi = b.phi(result_ty);
        phi.add_incoming(with_lane.expect("a result has an accumulator"), call_block);
        if mask.is_some() {
            phi.add_incoming(a, head);
        }
        phi
    });
    let following = b.binop(LLVMAdd, lane, constant::int(i64t, 1));
    lane.add_incoming(following, next);
    if let (Some(a), Some(m)) = (acc, merged) {
        a.add_incoming(m, next);
    }
    let more = b.icmp(crate::llvm::LLVMIntPredicate::LLVMIntULT, following, lanes);
    b.cond_br(more, head, exit);

    b.position_at_end(exit);
    b.ret(merged);
}
