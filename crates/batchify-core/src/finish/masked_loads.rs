//! Masked loads pinned in place against an LLVM 22 `instcombine` defect.
//!
//! LLVM 22's `instcombine` folds `select(m, masked.load(p, m, pt), fv)` into
//! `masked.load(p, m, fv)`, but it builds the new load at the `select`, so
//! that the load moves past everything in between. When a store between the
//! two writes the loaded memory, the moved load reads the new value
//! (llvm/llvm-project#215453, fixed in LLVM 23; the fix was not carried to
//! the 22.x releases). The clone meets the pattern whenever a value loaded
//! in a linearized block is merged into a phi's value on the block's edge
//! after the block stored to the same place: a `double` read from the
//! lane's own slot and then overwritten, returned from an early exit
//! (`batchify-fuzz --seed 1107299313`: a lane returned the stored `-2.5`
//! instead of the value it had read).
//!
//! The fold only matches a masked load that is the `select`'s operand
//! itself, so a `freeze` of the load's result stops it, both in batchify's
//! own pipeline and in the user's `-O2` afterwards. `freeze` does not change
//! the active lanes (they are the loaded values, which a scalar load would
//! read too) and fixes the inactive ones to some value, which nothing reads.
//! It costs no instruction in the backend. Clones that write no memory get
//! no freeze: with no store in between, the fold is right.

use crate::analysis::calls;
use crate::llvm::LLVMOpcode::{LLVMAtomicCmpXchg, LLVMAtomicRMW, LLVMCall, LLVMStore};
use crate::llvm::{Builder, Value};

/// Freezes the result of every `llvm.masked.load` in `f` if `f` may write
/// memory. Returns how many loads were frozen.
pub fn pin_masked_loads(f: Value) -> usize {
    let instructions: Vec<Value> = f.blocks().into_iter().flat_map(|b| b.instructions()).collect();
    if !instructions.iter().any(|i| may_write_memory(*i)) {
        return 0;
    }
    let b = Builder::new(f.function_type().context());
    let mut pinned = 0;
    for load in instructions.into_iter().filter(|i| is_masked_load(*i)) {
        if load.users().is_empty() {
            continue;
        }
        b.position_after(load);
        let frozen = b.freeze(load);
        load.replace_all_uses_with(frozen);
        // The replacement also rewrote the freeze's own operand.
        frozen.set_operand(0, load);
        pinned += 1;
    }
    pinned
}

/// Whether `i` is a call of `llvm.masked.load`.
fn is_masked_load(i: Value) -> bool {
    i.opcode() == LLVMCall && calls::called_intrinsic(i).is_some_and(|n| n == "llvm.masked.load")
}

/// Whether `i` may write memory: a store, an atomic update, or a call whose
/// `memory` effects are unknown or include a write.
fn may_write_memory(i: Value) -> bool {
    match i.opcode() {
        LLVMStore | LLVMAtomicRMW | LLVMAtomicCmpXchg => true,
        LLVMCall => calls::may_write(i),
        _ => false,
    }
}
