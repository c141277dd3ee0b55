//! Mask parameters that gathers and scatters read, reloaded from a stack
//! slot.
//!
//! An `<N x i1>` parameter reaches an AVX-512 function in a vector register
//! (`<N x i8>` bytes) and becomes a mask register by `vpmovb2m`. LLVM 22's
//! EVEX compression (`x86-compress-evex`) folds a `vpmov*2m %xmm, %k` whose
//! first reader is a `kmov %k, %gpr` into `vmovmsk %xmm, %gpr` and erases
//! the `vpmov*2m`; it stops looking for further readers at the next
//! instruction that *writes* `%k`, and a gather or scatter both reads and
//! writes its mask register (llvm/llvm-project#198197, fixed in 23). So
//! where a tuning scalarizes a gather (znver4 prefers no gather: its lane
//! loop needs the bits in a general register) and a scatter or vector
//! gather in the same block reads the same mask, the scatter runs under a
//! stale `%k`: wrong lanes written, or a fault.
//!
//! The workaround gives the back end no `vpmov*2m` to fold: the parameter's
//! bits are stored to a volatile `iN` slot at entry and every use reads the
//! volatile reload, which reaches a mask register from a general one
//! (`kmov %eax, %k`). The store's own `vpmov*2m` has the store as its only
//! reader. Costs a store and a load on entry, next to at least one gather
//! or scatter; applied only where a gather or scatter exists and the
//! function may run with AVX-512 mask registers.

use super::is_gather_or_scatter;
use crate::llvm::LLVMOpcode::LLVMBitCast;
use crate::llvm::{Builder, Type, Value};

/// Whether `f` contains a gather or scatter.
fn has_gather_or_scatter(f: Value) -> bool {
    f.blocks().into_iter().any(|b| b.instructions().into_iter().any(is_gather_or_scatter))
}

/// Reloads every used `<N x i1>` parameter of `f` through a volatile stack
/// slot, as the module docs describe, when `f` has a gather or scatter and
/// may run with AVX-512. Returns how many parameters it reloaded.
pub fn reload_mask_params(f: Value) -> usize {
    let Some(entry) = f.blocks().first().copied() else { return 0 };
    if !crate::vector_widths::may_have_mask_registers(f) || !has_gather_or_scatter(f) {
        return 0;
    }
    let masks: Vec<Value> = f
        .params()
        .into_iter()
        .filter(|p| p.ty().is_vector() && p.ty().element().int_width() == 1 && !p.users().is_empty())
        .collect();
    if masks.is_empty() {
        return 0;
    }
    let b = Builder::new(f.function_type().context());
    match entry.first_non_phi() {
        Some(first) => b.position_before(first),
        None => b.position_at_end(entry),
    }
    for &mask in &masks {
        // As an integer: LLVM 22 drops a volatile store and load of an
        // `<N x i1>` whose value arrived on the stack (a ninth vector
        // argument), and reads the caller's `<N x i16>` as packed bits.
        let bits = Type::int(mask.ty().context(), mask.ty().vector_len());
        let slot = b.alloca(bits);
        let loaded = b.load(bits, slot, 0);
        loaded.set_volatile(true);
        let reload = b.cast(LLVMBitCast, loaded, mask.ty());
        mask.replace_all_uses_with(reload);
        // Readers of the bits (the test for no active lane) read the load.
        for u in reload.users() {
            if u.opcode() == LLVMBitCast && u.ty() == bits {
                u.replace_all_uses_with(loaded);
                u.erase();
            }
        }
        // Built after the replacement, so that they keep the parameter.
        b.position_before(loaded);
        let packed = b.cast(LLVMBitCast, mask, bits);
        b.store(packed, slot, 0).set_volatile(true);
        b.position_after(reload);
    }
    masks.len()
}
