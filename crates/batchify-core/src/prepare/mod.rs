//! Stage 3, prepare: a private scratch copy of the scalar function, normalised by
//! LLVM's own passes (mem2reg, one return block, loop-simplify, lcssa) so
//! that the analyses see SSA values instead of stack slots, a single return,
//! loops with one latch and dedicated exits, and loop live-outs as phis.
//! Interleaved vector add reductions are merged into one accumulator first
//! ([`reductions`]); live-outs used only truncated are truncated on the
//! loop's exit edges last ([`live_outs`]). The user's function is never modified; the scratch copy is deleted once the
//! clone is built.
//!
//! Irreducible control flow is made reducible first, by batchify's own node
//! splitting ([`node_split`]), bounded in code growth; past the bound the
//! function stays irreducible and gets the per-lane fallback. (LLVM 22's
//! `fix-irreducible` crashed on a `switch` into an irreducible cycle, and
//! after `lower-switch` it produced a function that loops forever where the
//! original returns: corpus `irreducible_states`.)
//!
//! Touches only the scratch copy it creates; imports only the IR layer,
//! the error type and the analyses (which it runs on its own result).

use crate::error::{Error, Result};
use crate::llvm::LLVMOpcode;
use crate::llvm::{Block, Builder, Module, Value};
use std::collections::HashMap;

pub mod demote;
pub mod live_outs;
pub mod loop_form;
pub mod node_split;
pub mod reductions;

/// The passes that always run on the scratch copy.
const SSA_PIPELINE: &str = "mem2reg,mergereturn";

/// The loop passes run after [`SSA_PIPELINE`], unless the copy is already
/// in their form ([`loop_form`]).
const LOOP_PIPELINE: &str = "loop-simplify,lcssa";

/// A scratch copy that deletes itself when dropped.
pub struct Scratch<'ctx> {
    /// The copied, normalised function.
    pub function: Value<'ctx>,
}

impl<'ctx> Drop for Scratch<'ctx> {
    fn drop(&mut self) {
        self.function.delete_function();
    }
}

/// Copies `f` into a new internal function of the same module and runs the
/// preparation pipeline on it.
pub fn prepare<'ctx>(module: Module<'ctx>, f: Value<'ctx>, name: &str) -> Result<Scratch<'ctx>> {
    let copy = copy_function(module, f, &format!("__batchify_scratch.{name}"));
    let scratch = Scratch { function: copy };
    // Passes skip `optnone` functions (clang -O0 output).
    copy.remove_enum_attribute(crate::llvm::FUNCTION_INDEX, "optnone");
    copy.remove_enum_attribute(crate::llvm::FUNCTION_INDEX, "noinline");
    if node_split::is_irreducible(copy) {
        // Node splitting copies blocks that use no value of another block.
        if !demote::demote(copy) {
            crate::llvm::run_function_passes(copy, "reg2mem")
                .map_err(|message| Error::Internal { function: name.to_string(), message })?;
        }
        // Past the growth bound the copy stays irreducible (and valid); the
        // loop analysis then reports it and the clone is the fallback.
        let _ = node_split::make_reducible(copy);
    }
    reductions::merge_interleaved_adds(copy);
    let internal = |message: String| Error::Internal { function: name.to_string(), message };
    crate::llvm::run_function_passes(copy, SSA_PIPELINE).map_err(internal)?;
    if !loop_form::is_simplified_and_closed(copy) {
        crate::llvm::run_function_passes(copy, LOOP_PIPELINE).map_err(internal)?;
    }
    live_outs::truncate_on_edges(copy);
    Ok(scratch)
}

/// Copies a function body instruction by instruction (the C API has no
/// `CloneFunction`). Phis are rebuilt so their incoming blocks can be remapped.
fn copy_function<'ctx>(module: Module<'ctx>, f: Value<'ctx>, name: &str) -> Value<'ctx> {
    let g = module.add_function(name, f.function_type());
    g.set_internal();
    for a in f.attributes(crate::llvm::FUNCTION_INDEX) {
        g.add_attribute(crate::llvm::FUNCTION_INDEX, a);
    }
    for (p, q) in f.params().into_iter().zip(g.params()) {
        q.set_name(&p.name());
    }
    copy_body(f, g, &g.params());
    g
}

/// Appends a copy of `f`'s blocks to `g`, with `args[j]` for `f`'s
/// parameter `j` (values `g` defines where the copy's blocks can use
/// them); returns the block map (the copy of `f`'s entry block is
/// `map[&f.blocks()[0]]`).
pub(crate) fn copy_body<'ctx>(
    f: Value<'ctx>,
    g: Value<'ctx>,
    args: &[Value<'ctx>],
) -> HashMap<Block<'ctx>, Block<'ctx>> {
    let mut map: HashMap<Value, Value> = HashMap::new();
    for (p, &q) in f.params().into_iter().zip(args) {
        map.insert(p, q);
    }
    let mut bmap: HashMap<Block, Block> = HashMap::new();
    for b in f.blocks() {
        bmap.insert(b, g.append_block(&b.name()));
    }
    let builder = Builder::new(f.function_type().context());
    let mut phis = Vec::new();
    let mut clones = Vec::new();
    for b in f.blocks() {
        builder.position_at_end(bmap[&b]);
        for i in b.instructions() {
            let c = if i.opcode() == LLVMOpcode::LLVMPHI {
                let p = builder.phi(i.ty());
                phis.push((i, p));
                p
            } else {
                let c = i.clone_instruction();
                builder.insert(c);
                clones.push(c);
                c
            };
            c.set_name(&i.name());
            map.insert(i, c);
        }
    }
    let remap = |v: Value<'ctx>| -> Value<'ctx> {
        if v.is_block() {
            bmap[&v.as_block()].as_value()
        } else {
            map.get(&v).copied().unwrap_or(v)
        }
    };
    for c in clones {
        for k in 0..c.num_operands() {
            let op = c.operand(k);
            let new = remap(op);
            if new != op {
                c.set_operand(k, new);
            }
        }
    }
    for (old, new) in phis {
        for (v, b) in old.incoming() {
            new.add_incoming(remap(v), bmap[&b]);
        }
    }
    bmap
}

/// Keeps the clone from fusing what the scalar code computes unfused:
/// every `llvm.fmuladd` call of `f` becomes an `fmul` and an `fadd`, and
/// no `fadd`, `fsub` or `fmul` keeps the `contract` fast-math flag (with it,
/// the backend fuses a multiply and an add where the target has FMA). Used
/// when the clone's ISA has FMA but the scalar function's pinned target
/// does not (see `calls::isa_adds_fma`).
pub fn unfuse_for_fma_target(f: Value) {
    use crate::llvm::{add_fast_math_flags, fast_math_flags, FAST_MATH_CONTRACT};
    use LLVMOpcode::*;
    let b = Builder::new(f.function_type().context());
    for block in f.blocks() {
        for i in block.instructions() {
            let flags = fast_math_flags(i);
            let kept = flags & !FAST_MATH_CONTRACT;
            let is_fmuladd = i.opcode() == LLVMCall
                && crate::analysis::calls::called_intrinsic(i).as_deref() == Some("llvm.fmuladd");
            let replacement = if is_fmuladd {
                b.position_before(i);
                let product = b.binop(LLVMFMul, i.operand(0), i.operand(1));
                add_fast_math_flags(product, kept);
                b.binop(LLVMFAdd, product, i.operand(2))
            } else if matches!(i.opcode(), LLVMFAdd | LLVMFSub | LLVMFMul) && flags != kept {
                // Rebuilt: LLVM's C API cannot clear a flag.
                b.position_before(i);
                b.binop(i.opcode(), i.operand(0), i.operand(1))
            } else {
                continue;
            };
            add_fast_math_flags(replacement, kept);
            replacement.set_name(&i.name());
            i.replace_all_uses_with(replacement);
            i.erase();
        }
    }
}
