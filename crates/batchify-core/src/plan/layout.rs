//! The clone's type for each varying value, its layout inside the clone
//! (the ABI's, [`crate::abi::varying_type`], may differ): `<N x T>` for an
//! element type, element-major `<N·k x T>` for a vector `<k x T>`
//! (`emit/vector_input.rs`), a struct of vectors for a small aggregate of
//! those (`emit/aggregates.rs`), a lane array `[N x T]` for anything else.

use crate::abi::{has_leaves, map_leaf_types, varying_type};
use crate::llvm::LLVMOpcode::*;
use crate::llvm::{Type, Value};

/// Whether `t` is a fixed vector of integers, floats or pointers.
pub(crate) fn is_plain_vector(t: Type) -> bool {
    t.is_vector() && t.element().is_vector_element()
}

/// The clone's type for a varying value of scalar type `t` at width `n`.
pub(crate) fn value_type<'ctx>(t: Type<'ctx>, n: u32) -> Type<'ctx> {
    if is_plain_vector(t) {
        t.element().vector_of(n * t.vector_len())
    } else if is_split(t) {
        map_leaf_types(t, &|leaf| value_type(leaf, n))
    } else {
        varying_type(t, n)
    }
}

/// Whether a varying value of scalar type `t` is held as a struct of
/// vectors in the clone: an aggregate whose leaves are element types or
/// plain vectors.
pub(crate) fn is_split(t: Type) -> bool {
    has_leaves(t, &|leaf| leaf.is_vector_element() || is_plain_vector(leaf))
}

/// Whether instruction `i` works on structs of vectors (its aggregate is
/// [`is_split`]): the aggregate rules build it.
pub(crate) fn involves_split(i: Value) -> bool {
    match i.opcode() {
        LLVMExtractValue | LLVMInsertValue => is_split(i.operand(0).ty()),
        LLVMSelect | LLVMFreeze | LLVMCall => is_split(i.ty()),
        _ => false,
    }
}

/// Whether instruction `i` has a result or operand that is a vector
/// already: the vector-input rules build it.
pub(crate) fn involves_plain_vectors(i: Value) -> bool {
    is_plain_vector(i.ty()) || i.operands().iter().any(|o| is_plain_vector(o.ty()))
}
