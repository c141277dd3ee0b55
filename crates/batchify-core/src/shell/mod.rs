//! Stage 2, the clone shell: the clone's (empty) function with its
//! signature, symbol properties and attributes, added to the module. Touches
//! the module's symbol table; reads the ABI ([`crate::abi`]).

pub mod gcc_adapter;
pub mod linkage;
pub mod target;

use crate::abi;
use crate::error::{Error, Result};
use crate::llvm::{Module, Type, Value};
use crate::spec::CloneSpec;

/// Checks that the clone's name is free: no other global of that name, and
/// no function body of that name; a declaration of that name must have the
/// clone's type `fty` or one of the `also` types (the natural type of a
/// clone whose symbol has GCC's lowered type, [`gcc_adapter`]).
pub fn check_clone_name(module: Module, spec: &CloneSpec, fty: Type, also: &[Type]) -> Result<()> {
    let taken = |reason: &str| Error::VariantMismatch { variant: spec.vector_name.clone(), reason: reason.into() };
    if let Some(f) = module.function(&spec.vector_name) {
        if !f.is_declaration() {
            return Err(taken("a function of that name already has a body in the module (requested twice?)"));
        }
        if f.function_type() != fty && !also.contains(&f.function_type()) {
            // Its callers were compiled against another signature.
            return Err(taken(&format!(
                "the module declares it as `{}`, but the clone's type is `{}`",
                f.function_type().print(),
                fty.print()
            )));
        }
    } else if module.has_global_named(&spec.vector_name) {
        return Err(taken("a global variable or alias of that name already exists in the module"));
    }
    Ok(())
}

/// Adds the clone's (empty) function to the module, replacing a
/// declaration of the same name if the module has one.
pub fn create_clone_function<'ctx>(
    module: Module<'ctx>,
    scalar: Value<'ctx>,
    spec: &CloneSpec,
    fty: Type<'ctx>,
) -> Value<'ctx> {
    let existing = module.function(&spec.vector_name);
    let clone = module.add_function(&spec.vector_name, fty);
    if let Some(decl) = existing {
        // Uses of a prior declaration of the same type (checked by
        // `check_clone_name`), e.g. by vectorized callers, now reach the body.
        decl.replace_all_uses_with(clone);
        decl.delete_function();
        clone.set_name(&spec.vector_name);
    }
    linkage::apply(module, scalar, clone);
    abi::copy_attributes(scalar, clone, spec);
    target::apply(scalar, clone, spec.isa);
    abi::apply_call_conv(clone, spec.isa);
    clone
}

/// Checks that the clone's ISA is one of the module's target (an x86
/// variant cannot live in an AArch64 module, nor the reverse).
pub fn check_target(module: Module, spec: &CloneSpec) -> Result<()> {
    let triple = module.target_triple();
    if spec.isa.fits_triple(&triple) {
        return Ok(());
    }
    Err(Error::VariantMismatch {
        variant: spec.vector_name.clone(),
        reason: format!(
            "its ISA `{}` is not one of the module's target `{triple}`; ask for a variant of that target (or _LLVM_)",
            spec.isa.mangling()
        ),
    })
}

/// A free name for the working copy of clone `name` while it is built
/// (`__batchify.body.NAME`, numbered if taken): the variants whose symbol
/// gets GCC's lowered type ([`gcc_adapter`]).
pub fn working_name(module: Module, name: &str) -> String {
    let base = format!("__batchify.body.{name}");
    let mut out = base.clone();
    let mut k = 0;
    while module.function(&out).is_some() || module.has_global_named(&out) {
        k += 1;
        out = format!("{base}.{k}");
    }
    out
}
