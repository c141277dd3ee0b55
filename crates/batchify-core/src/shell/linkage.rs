//! The one rule for a clone's linkage and the other properties of its
//! symbol (documented in `docs/semantics.md`, "The clone's symbol"):
//!
//! * linkage: the scalar function's, so the clone is visible, shared and
//!   deduplicated exactly where the scalar function is; except that an
//!   `available_externally` scalar (a body kept only for inlining, defined
//!   elsewhere) gets a `weak_odr` clone: a real definition that links
//!   whether or not another module defines the same clone;
//! * visibility, DLL storage class, `unnamed_addr` and section: copied;
//! * comdat: a scalar in a comdat puts its clone into a comdat of the
//!   clone's own name with the same selection kind (the clone must not join
//!   the scalar's group, whose copy from another module may lack it); a
//!   local (internal/private) clone joins no comdat;
//! * `dso_local` is not copied (the C API cannot read it); LLVM infers it
//!   for local linkage and hidden visibility.

use crate::llvm::LLVMLinkage::*;
use crate::llvm::{Module, Value};

/// Gives `clone` the symbol properties the rule above derives from `scalar`.
pub fn apply(module: Module, scalar: Value, clone: Value) {
    let linkage = match scalar.linkage() {
        LLVMAvailableExternallyLinkage => LLVMWeakODRLinkage,
        other => other,
    };
    clone.set_linkage(linkage);
    clone.copy_global_properties_from(scalar);
    let local = matches!(linkage, LLVMInternalLinkage | LLVMPrivateLinkage);
    if let (Some(kind), false) = (scalar.comdat_selection_kind(), local) {
        clone.set_own_comdat(module, kind);
    }
}
