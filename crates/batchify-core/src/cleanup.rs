//! Creating the clone's function and finishing it: verification and the
//! optimisation pipeline for the requested `-O` level (run on the clone only;
//! the rest of the module is left as it was).

use crate::error::{Error, Result};
use crate::llvm::{Module, Type, Value};
use crate::spec::CloneSpec;
use crate::transform::signature;

/// Function pipeline applied to a clone per optimisation level.
pub fn pipeline(opt_level: u8) -> Option<&'static str> {
    match opt_level {
        0 => None,
        1 => Some("early-cse,instcombine,simplifycfg"),
        _ => Some("early-cse,instcombine,simplifycfg,gvn,instcombine,dce,simplifycfg"),
    }
}

/// Adds the clone's (empty) function to the module, replacing a
/// declaration of the same name if the module has one.
pub fn create_clone_function(module: Module, scalar: Value, spec: &CloneSpec, fty: Type) -> Value {
    let existing = module.function(&spec.vector_name);
    let clone = module.add_function(&spec.vector_name, fty);
    if let Some(decl) = existing {
        // Uses of a prior declaration (e.g. by vectorized callers) now reach the body.
        if decl.function_type() == fty {
            decl.replace_all_uses_with(clone);
        }
        decl.delete_function();
        clone.set_name(&spec.vector_name);
    }
    unsafe {
        llvm_sys::core::LLVMSetLinkage(clone.0, llvm_sys::core::LLVMGetLinkage(scalar.0));
        llvm_sys::core::LLVMSetVisibility(clone.0, llvm_sys::core::LLVMGetVisibility(scalar.0));
    }
    signature::copy_attributes(scalar, clone, spec);
    clone
}

/// Verifies the module and optimises the clone.
pub fn finish(module: Module, clone: Value, spec: &CloneSpec, opts: &crate::Options) -> Result<()> {
    let internal = |message: String| Error::Internal { function: spec.scalar_name.clone(), message };
    module.verify().map_err(internal)?;
    if let Some(p) = pipeline(opts.opt_level) {
        crate::llvm::run_function_passes(clone, p).map_err(internal)?;
        module.verify().map_err(internal)?;
    }
    Ok(())
}
