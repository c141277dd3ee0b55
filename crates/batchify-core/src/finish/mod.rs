//! Stage 10, finish: verification and the optimisation pipeline for the
//! requested `-O` level, run on the clone only (the rest of the module is
//! left as it was, and only the clone is verified; debug builds verify the
//! whole module). Touches the clone's body; reads the ABI.

pub mod mask_params;
pub mod masked_loads;
pub mod masks;
pub mod promote;

use crate::abi;
use crate::error::{Error, Result};
use crate::llvm::{Module, Type, Value};
use crate::spec::CloneSpec;

/// Whether `i` calls `llvm.masked.gather` or `llvm.masked.scatter`, whose
/// masks two of the workarounds here (`masks`, `mask_params`) treat apart.
fn is_gather_or_scatter(i: Value) -> bool {
    i.opcode() == crate::llvm::LLVMOpcode::LLVMCall
        && crate::analysis::calls::called_intrinsic(i)
            .is_some_and(|n| n == "llvm.masked.gather" || n == "llvm.masked.scatter")
}

/// Function pipeline applied to a clone per optimisation level; `deep`
/// clones ([`is_deep_nest`]) go without `gvn`, whose loop analysis would
/// cost the nest's depth times the clone.
pub fn pipeline(opt_level: u8, deep: bool) -> &'static str {
    match (opt_level, deep) {
        // The slots are SSA values already (`promote`); other allocas too.
        (0, _) => "mem2reg",
        (1, _) => "sroa,early-cse,instcombine<no-verify-fixpoint>,simplifycfg",
        (_, false) => {
            "sroa,early-cse,instcombine<no-verify-fixpoint>,simplifycfg,gvn,instcombine<no-verify-fixpoint>,dce,simplifycfg"
        }
        (_, true) => "sroa,early-cse,instcombine<no-verify-fixpoint>,simplifycfg,instcombine<no-verify-fixpoint>,dce,simplifycfg",
    }
}

/// How many times its blocks LLVM's loop analysis may visit before a clone
/// counts as a deep nest: the analysis keeps every loop's blocks, nested
/// loops included, so it visits each block once per loop around it. Code
/// people write is one to a few loops deep; generated nests hundreds deep
/// (issue 23's compile-time family) made `gvn` grow with the square of the
/// clone.
const DEEP_NEST_AVERAGE_DEPTH: usize = 16;

/// Whether the clone's blocks are, on average, inside more than
/// [`DEEP_NEST_AVERAGE_DEPTH`] loops (by batchify's own loop analysis,
/// whose cost does not grow with the depth).
pub fn is_deep_nest(f: Value) -> bool {
    use crate::analysis::{cfg::Cfg, dominance::Dominators, loops::Loops};
    let cfg = Cfg::new(f);
    let Ok(loops) = Loops::new(&cfg, &Dominators::new(&cfg)) else { return false };
    let visits: usize = loops.loops.iter().map(|l| l.size).sum();
    visits > DEEP_NEST_AVERAGE_DEPTH * cfg.rpo.len()
}

/// Verifies the clone (debug builds: the module) before and after.
fn verify(module: Module, f: Value) -> std::result::Result<(), String> {
    if cfg!(debug_assertions) {
        module.verify()
    } else {
        module.verify_function(f)
    }
}

/// Verifies and optimises the clone.
pub fn finish(
    module: Module,
    clone: Value,
    scalar_fn_ty: Type,
    spec: &CloneSpec,
    opts: &crate::options::Options,
) -> Result<()> {
    let internal = |message: String| Error::Internal { function: spec.scalar_name.clone(), message };
    verify(module, clone).map_err(internal)?;
    promote::promote_slots(clone);
    masked_loads::pin_masked_loads(clone);
    let deep = opts.opt_level >= 2 && is_deep_nest(clone);
    crate::llvm::run_function_passes(clone, pipeline(opts.opt_level, deep)).map_err(internal)?;
    if let Some(bits) = abi::lane_mask_bits(scalar_fn_ty, spec) {
        masks::widen_masks(clone, bits);
        crate::llvm::run_function_passes(clone, "dce").map_err(internal)?;
    }
    mask_params::reload_mask_params(clone);
    verify(module, clone).map_err(internal)?;
    Ok(())
}

/// Verifies `exported`, the function of GCC's lowered type a clone moved
/// into (`shell::gcc_adapter`). No pass runs again: the reassembly of the
/// pieces (lane moves) is folded by the backend, and an `instcombine`
/// would undo part of [`masks::widen_masks`].
pub fn finish_lowered(module: Module, exported: Value, spec: &CloneSpec) -> Result<()> {
    let internal = |message: String| Error::Internal { function: spec.scalar_name.clone(), message };
    verify(module, exported).map_err(internal)
}
