//! Painting the stack slots of the scalar code, so that the oracle can tell
//! result bytes the scalar code leaves undefined from defined ones.
//!
//! Rust at opt-level 0 returns an `Option<u32>` by loading both halves of
//! a stack slot whose payload it stores only for `Some`; what the machine
//! code then returns for `None` is whatever the slot held (a register the
//! prologue pushed, a caller's spill). The clone may leave something else
//! there, and the bytes mean nothing. In the oracle's copy of the module,
//! every fixed-size `alloca` at the start of a function other than the
//! clones is filled with the byte in [`PAINT_GLOBAL`] (a refinement of the
//! undefined contents, so the functions' meaning is unchanged). The oracle
//! runs the scalar calls with one paint and, where the clone differs, again
//! with another: bytes that follow the paint are undefined and not compared.

use crate::prepare::{add_byte_global, scalar_code};
use batchify_core::llvm::{constant, Builder, LLVMOpcode, Module, Type};
use std::collections::HashSet;

/// The `i8` global holding the paint byte.
pub const PAINT_GLOBAL: &str = "__batchify_oracle_paint";

/// Adds [`PAINT_GLOBAL`] and fills every fixed-size entry-block `alloca`
/// of every function not named in `except` with its value.
pub fn paint_allocas(module: Module, except: &HashSet<String>) {
    let ctx = module.context();
    let i8t = Type::int(ctx, 8);
    let i64t = Type::int(ctx, 64);
    let paint = add_byte_global(module, PAINT_GLOBAL, 0xa5);
    let ptr = Type::ptr(ctx);
    let Some(memset) = module.intrinsic("llvm.memset", &[ptr, i64t]) else { return };
    let memset_ty = memset.global_value_type();
    let b = Builder::new(ctx);
    for f in scalar_code(module, except) {
        let Some(entry) = f.blocks().first().copied() else { continue };
        for a in entry.instructions().into_iter().filter(|i| i.opcode() == LLVMOpcode::LLVMAlloca) {
            let Some(count) = a.operand(0).const_int_value() else { continue };
            let bytes = module.abi_size_of(a.allocated_type()).saturating_mul(count);
            if bytes == 0 || bytes > 1 << 20 {
                continue;
            }
            b.position_after(a);
            let byte = b.load(i8t, paint, 1);
            byte.set_volatile(true);
            b.call(memset_ty, memset, &[a, byte, constant::int(i64t, bytes), constant::int(Type::int(ctx, 1), 0)]);
        }
    }
}
