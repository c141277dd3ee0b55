//! Loop live-outs that are only used truncated, truncated inside the loop.
//!
//! A counter is often an `i64` (clang widens `int` indices) whose exit
//! value is returned as `int`: after `lcssa` the exit block holds
//!
//! ```text
//!   exit:  %j.lcssa = phi i64 [ %j, %loop ]
//!          %r = trunc i64 %j.lcssa to i32
//! ```
//!
//! Batched, a divergent loop holds each lane's exit value in a vector
//! blended every trip: `<8 x i64>` is two AVX2 registers and a mask widened
//! to 64 bits, where `<8 x i32>` is one register and the mask compares
//! make. The truncation moves onto the exit edges instead:
//!
//! ```text
//!   loop:  %j.t = trunc i64 %j to i32        ; before the exiting branch
//!   exit:  %r = phi i32 [ %j.t, %loop ]
//! ```
//!
//! The value on each edge is the same `trunc` of the same value, so the
//! result is unchanged; the new `trunc`s carry no `nuw`/`nsw` (on trips
//! that do not exit they compute a value nobody uses). Only on the scratch
//! copy, after `lcssa`; only phis whose single use is one `trunc` in their
//! own block.

use crate::llvm::LLVMOpcode::*;
use crate::llvm::{Builder, Value};

/// Rewrites every phi of `f` that only feeds one `trunc` of its own block
/// into a phi of the truncated values; returns how many it rewrote.
pub fn truncate_on_edges(f: Value) -> usize {
    let b = Builder::new(f.function_type().context());
    let mut rewritten = 0;
    for block in f.blocks() {
        let phis: Vec<Value> = block.instructions().into_iter().take_while(|i| i.opcode() == LLVMPHI).collect();
        for phi in phis {
            let users = phi.users();
            let [trunc] = users[..] else { continue };
            if trunc.opcode() != LLVMTrunc || trunc.parent_block() != block || trunc.operand(0) != phi {
                continue;
            }
            let narrow_ty = trunc.ty();
            // One `trunc` per predecessor: a block that reaches the phi on two
            // edges (a `switch`) must give it one value.
            let mut edges: Vec<(Value, crate::llvm::Block)> = Vec::new();
            for (v, pred) in phi.incoming() {
                let t = match edges.iter().find(|(_, p)| *p == pred) {
                    Some((t, _)) => *t,
                    None => {
                        b.position_before(pred.terminator().expect("predecessors end in a terminator"));
                        b.cast(LLVMTrunc, v, narrow_ty)
                    }
                };
                edges.push((t, pred));
            }
            b.position_before(phi);
            let narrow = b.phi(narrow_ty);
            for (v, pred) in edges {
                narrow.add_incoming(v, pred);
            }
            narrow.set_name(&trunc.name());
            trunc.replace_all_uses_with(narrow);
            trunc.erase();
            phi.erase();
            rewritten += 1;
        }
    }
    rewritten
}
