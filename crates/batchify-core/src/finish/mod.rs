//! Stage 9, finish: verification and the optimisation pipeline for the
//! requested `-O` level, run on the clone only (the rest of the module is
//! left as it was). Touches the clone's body; reads the ABI.

pub mod promote;

use crate::abi;
use crate::error::{Error, Result};
use crate::llvm::{Module, Type, Value};
use crate::spec::CloneSpec;

/// Function pipeline applied to a clone per optimisation level.
pub fn pipeline(opt_level: u8) -> &'static str {
    match opt_level {
        // The slots are SSA values already (`promote`); other allocas too.
        0 => "mem2reg",
        1 => "sroa,early-cse,instcombine<no-verify-fixpoint>,simplifycfg",
        _ => "sroa,early-cse,instcombine<no-verify-fixpoint>,simplifycfg,gvn,instcombine<no-verify-fixpoint>,dce,simplifycfg",
    }
}

/// Verifies the module and optimises the clone.
pub fn finish(module: Module, clone: Value, scalar_fn_ty: Type, spec: &CloneSpec, opts: &crate::Options) -> Result<()> {
    let internal = |message: String| Error::Internal { function: spec.scalar_name.clone(), message };
    module.verify().map_err(internal)?;
    promote::promote_slots(clone);
    crate::llvm::run_function_passes(clone, pipeline(opts.opt_level)).map_err(internal)?;
    if let Some(bits) = abi::lane_mask_bits(scalar_fn_ty, spec) {
        widen_mask_phis(clone, bits);
    }
    module.verify().map_err(internal)?;
    Ok(())
}

/// Verifies the module after a clone moved into its exported function of
/// GCC's lowered type (`shell::gcc_adapter`). No pass runs again: the
/// reassembly of the pieces (lane moves) is folded by the backend, and an
/// `instcombine` would undo [`widen_mask_phis`].
pub fn finish_lowered(module: Module, spec: &CloneSpec) -> Result<()> {
    let internal = |message: String| Error::Internal { function: spec.scalar_name.clone(), message };
    module.verify().map_err(internal)
}

/// Turns every `<N x i1>` phi of the clone into a `<N x iW>` phi (all ones =
/// set), converting at the edges. On targets without mask registers the
/// backend would otherwise keep loop-carried masks in a narrower promoted type
/// (`<8 x i16>` for `<8 x i1>` on AVX2) and convert them at every use; the
/// full-width form is what compares produce and blends consume. Runs last, so
/// no `instcombine` folds the conversions back.
fn widen_mask_phis(f: Value, bits: u32) {
    use crate::llvm::LLVMOpcode::{LLVMSExt, LLVMPHI};
    let ctx = f.function_type().context();
    let b = crate::llvm::Builder::new(ctx);
    let mut phis = Vec::new();
    for block in f.blocks() {
        for i in block.instructions().into_iter().take_while(|i| i.opcode() == LLVMPHI) {
            let t = i.ty();
            if t.is_vector() && t.element().int_width() == 1 {
                phis.push(i);
            }
        }
    }
    for phi in phis {
        let wide_ty = Type::int(ctx, bits).vector_of(phi.ty().vector_len());
        b.position_before(phi);
        let wide = b.phi(wide_ty);
        for (v, pred) in phi.incoming() {
            // Constants fold to constants; values extend at the end of their edge.
            b.position_before(pred.terminator().expect("predecessors end in a terminator"));
            let w = b.cast(LLVMSExt, v, wide_ty);
            wide.add_incoming(w, pred);
        }
        b.position_after(wide);
        let narrow = b.icmp(crate::llvm::LLVMIntPredicate::LLVMIntSLT, wide, crate::llvm::constant::null(wide_ty));
        phi.replace_all_uses_with(narrow);
        phi.erase();
    }
}
