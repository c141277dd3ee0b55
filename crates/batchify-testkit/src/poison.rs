//! Flagging inputs on which the scalar code makes poison.
//!
//! Real code assumes things about its inputs that random inputs break:
//! lz4's `LZ4F_optimalBSID` counts an `int` up to a block-size id, and a
//! random id of 2^31 or more overflows it (`add nsw` gives poison, which
//! then decides a branch: undefined behaviour). The scalar build may happen
//! to wrap and stop; the clone, optimised on the promise of no overflow,
//! may loop forever, and both are right. In the oracle's copy of the
//! module, every scalar integer instruction that gives poison on overflow
//! (`add`, `sub`, `mul`, `shl` with `nsw`/`nuw`, `trunc nuw`/`nsw`) and
//! every shift by at least the bit width, and every `fptosi`/`fptoui` of
//! NaN or of a value whose integer part does not fit, sets the byte in
//! [`POISON_GLOBAL`] when it does. The oracle clears it before the scalar
//! calls of a trial and drops the trial if it is set after them (like a
//! trial on which the scalar code faults). The clones are not instrumented.

use crate::prepare::{add_byte_global, scalar_code};
use batchify_core::llvm::LLVMIntPredicate::*;
use batchify_core::llvm::LLVMOpcode::{self, *};
use batchify_core::llvm::LLVMRealPredicate::*;
use batchify_core::llvm::{constant, Builder, LLVMTypeKind, Module, Type, Value};
use std::collections::HashSet;

/// The `i8` global that is set when the scalar code makes poison.
pub const POISON_GLOBAL: &str = "__batchify_oracle_poison";

/// Adds [`POISON_GLOBAL`] and the checks to every function not named in
/// `except`.
pub fn flag_poison(module: Module, except: &HashSet<String>) {
    let ctx = module.context();
    let i8t = Type::int(ctx, 8);
    let flag = add_byte_global(module, POISON_GLOBAL, 0);
    let b = Builder::new(ctx);
    for f in scalar_code(module, except) {
        for block in f.blocks() {
            for i in block.instructions() {
                let ty = i.ty();
                if ty.kind() != LLVMTypeKind::LLVMIntegerTypeKind {
                    continue;
                }
                let op = i.opcode();
                if !matches!(
                    op,
                    LLVMAdd | LLVMSub | LLVMMul | LLVMShl | LLVMLShr | LLVMAShr | LLVMTrunc | LLVMFPToSI | LLVMFPToUI
                ) {
                    continue;
                }
                b.position_after(i);
                if let Some(poison) = makes_poison(&b, module, i, op) {
                    let old = b.load(i8t, flag, 1);
                    let bit = b.cast(LLVMOpcode::LLVMZExt, poison, i8t);
                    let new = b.binop(LLVMOr, old, bit);
                    b.store(new, flag, 1);
                }
            }
        }
    }
}

/// An `i1` that is true when `i` (just before the builder) gives poison.
fn makes_poison<'ctx>(b: &Builder<'ctx>, module: Module<'ctx>, i: Value<'ctx>, op: LLVMOpcode) -> Option<Value<'ctx>> {
    let (nsw, nuw) = match op {
        LLVMAdd | LLVMSub | LLVMMul | LLVMShl | LLVMTrunc => (i.has_nsw(), i.has_nuw()),
        _ => (false, false),
    };
    let ty = i.ty();
    let width = ty.int_width();
    let any = |acc: Option<Value<'ctx>>, x: Value<'ctx>| Some(acc.map_or(x, |a| b.binop(LLVMOr, a, x)));
    let mut poison = None;
    match op {
        LLVMAdd | LLVMSub | LLVMMul => {
            let base = match op {
                LLVMAdd => "add",
                LLVMSub => "sub",
                _ => "mul",
            };
            for (flagged, sign) in [(nsw, "s"), (nuw, "u")] {
                if !flagged {
                    continue;
                }
                let f = module.intrinsic(&format!("llvm.{sign}{base}.with.overflow"), &[ty])?;
                let r = b.call(f.function_type(), f, &[i.operand(0), i.operand(1)]);
                poison = any(poison, b.extract_value(r, 1));
            }
        }
        LLVMShl | LLVMLShr | LLVMAShr => {
            let (x, amount) = (i.operand(0), i.operand(1));
            let too_far = b.icmp(LLVMIntUGE, amount, constant::int(ty, width as u64));
            poison = any(poison, too_far);
            if op == LLVMShl && (nsw || nuw) {
                // Shifted back, the bits must be the same (clamped amount:
                // a shift by the width or more is caught above).
                let safe = b.select(too_far, constant::int(ty, 0), amount);
                let shifted = b.binop(LLVMShl, x, safe);
                for (flagged, back) in [(nsw, LLVMAShr), (nuw, LLVMLShr)] {
                    if flagged {
                        let undone = b.binop(back, shifted, safe);
                        poison = any(poison, b.icmp(LLVMIntNE, undone, x));
                    }
                }
            }
        }
        LLVMTrunc => {
            let x = i.operand(0);
            for (flagged, ext) in [(nsw, LLVMSExt), (nuw, LLVMZExt)] {
                if flagged {
                    let back = b.cast(ext, i, x.ty());
                    poison = any(poison, b.icmp(LLVMIntNE, back, x));
                }
            }
        }
        LLVMFPToSI | LLVMFPToUI => {
            // Poison unless the value, rounded toward zero, fits: for
            // `fptoui` in (-1, 2^w), for `fptosi` in (-2^(w-1) - 1,
            // 2^(w-1)). A bound that the FP type rounds inward flags a
            // few defined inputs too, which only drops their trials.
            let x = i.operand(0);
            if x.ty().is_vector() {
                return None;
            }
            let (low, high) = if op == LLVMFPToUI {
                (-1.0, 2f64.powi(width as i32))
            } else {
                let half = 2f64.powi(width as i32 - 1);
                (-half - 1.0, half)
            };
            let above = b.fcmp(LLVMRealOGT, x, constant::real(x.ty(), low));
            let below = b.fcmp(LLVMRealOLT, x, constant::real(x.ty(), high));
            let fits = b.binop(LLVMAnd, above, below);
            poison = Some(b.binop(LLVMXor, fits, constant::int(Type::int(module.context(), 1), 1)));
        }
        _ => {}
    }
    poison
}
