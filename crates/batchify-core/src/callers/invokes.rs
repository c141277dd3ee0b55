//! `invoke`s of `declare simd` functions inside `omp simd` loops.
//!
//! A C++ call of a function that is not `noexcept` becomes an `invoke` when
//! something must be cleaned up if it throws (a live `std::vector`). LLVM's
//! loop vectorizer vectorizes no loop that holds an `invoke`, so such a
//! loop never calls a variant. Inside an `omp simd` loop an exception may
//! not leave the iteration that threw it (OpenMP 5.2, `simd` construct: "a
//! throw executed inside a simd region must cause execution to resume
//! within the same iteration"); clang enforces that by unwinding such an
//! `invoke` to a landing pad that calls `__clang_call_terminate`, and marks
//! the loop's memory accesses and calls with `!llvm.access.group`.
//!
//! An `invoke` that carries an access group and unwinds to such a
//! terminate pad can only throw in a program that breaks that rule, so
//! [`no_unwind`] gives it a `nounwind` call-site attribute, and
//! `simplifycfg` turns it into a `call` (keeping its attributes and
//! metadata, the variant list included). A program that does throw there
//! no longer reaches `std::terminate`: the behaviour OpenMP leaves
//! unspecified changes. Every other `invoke` is left as it is, with a note.

use crate::llvm::LLVMOpcode::{LLVMCall, LLVMExtractValue, LLVMLandingPad, LLVMUnreachable, LLVMPHI};
use crate::llvm::{create_enum_attribute, Block, Value, FUNCTION_INDEX as FN};

/// Functions whose call ends the program when an exception reaches a
/// landing pad (clang's helper, `std::terminate`).
const TERMINATE: &[&str] = &["__clang_call_terminate", "_ZSt9terminatev"];

/// Whether `pad` only catches the exception and terminates: a landing pad,
/// extracted values, a call of a terminate function, `unreachable`.
fn is_terminate_pad(pad: Block) -> bool {
    let mut terminates = false;
    for i in pad.instructions() {
        match i.opcode() {
            LLVMPHI | LLVMLandingPad | LLVMExtractValue => {}
            LLVMCall if TERMINATE.contains(&i.called_value().name().as_str()) => terminates = true,
            LLVMUnreachable => return terminates,
            _ => return false,
        }
    }
    false
}

/// Why `invoke` cannot become a call (`None`: it can): an `invoke` in an
/// `omp simd` loop unwinding to a terminate pad can.
pub fn why_not(invoke: Value) -> Option<&'static str> {
    if invoke.metadata_operands("llvm.access.group").is_none() {
        return Some("it is outside an `omp simd` loop");
    }
    if !invoke.unwind_dest().is_some_and(is_terminate_pad) {
        return Some("its exception would be caught");
    }
    if invoke.parent_block().parent().has_fn_attribute("optnone") {
        return Some("its caller is `optnone`");
    }
    None
}

/// Marks `invoke` (for which [`why_not`] is `None`) as not unwinding, so
/// that `simplifycfg` makes it a call.
pub fn no_unwind(invoke: Value) {
    let ctx = invoke.ty().context();
    invoke.add_call_site_attribute(FN, create_enum_attribute(ctx, "nounwind", 0));
}
