//! Demotion to memory before node splitting: afterwards no phi is left and
//! no value is used outside its block except through a stack slot, as
//! after LLVM's `reg2mem`, but without `reg2mem`'s first step, which splits
//! every critical edge and grows quadratically on large state machines.
//!
//! * A value used in another block, or by a phi, gets a slot: it is stored
//!   right after it is computed (after its block's phis, for a phi) and
//!   loaded before each such use (for a phi's incoming value, at the end of
//!   the incoming block).
//! * A phi becomes a load of its own slot at the top of its block, and each
//!   predecessor stores the phi's incoming value into that slot before it
//!   branches. A predecessor with several successors needs no split edge:
//!   every entry into the phi's block comes from a predecessor that stored
//!   right before it branched, so the load reads that predecessor's value.
//!
//! Functions with `invoke` or `callbr` (values defined on an edge), landing
//! pads or token values are left to `reg2mem` ([`demote`] returns false).
//! Touches only the scratch copy it is given.

use crate::llvm::{Builder, LLVMOpcode::*, Value};

/// Demotes `f` (see the module documentation); false, with `f` unchanged,
/// if it holds something this demotion does not handle.
pub fn demote(f: Value) -> bool {
    let blocks = f.blocks();
    let Some(entry) = blocks.first().copied() else { return true };
    let instructions: Vec<Value> = blocks.iter().flat_map(|b| b.instructions()).collect();
    let unhandled = instructions.iter().any(|i| {
        matches!(i.opcode(), LLVMInvoke | LLVMCallBr | LLVMLandingPad | LLVMCatchSwitch | LLVMCleanupPad | LLVMCatchPad)
            || i.ty().is_token()
    });
    if unhandled {
        return false;
    }
    let b = Builder::new(f.function_type().context());
    let new_slot = |ty| {
        b.position_before(entry.instructions()[0]);
        b.alloca(ty)
    };
    // Values used outside their block or by a phi.
    for &i in &instructions {
        let block = i.parent_block();
        if i.ty().is_void() || (i.opcode() == LLVMAlloca && block == entry) {
            continue;
        }
        let users = i.users();
        let is_phi = |u: &Value| u.opcode() == LLVMPHI;
        if !users.iter().any(|u| is_phi(u) || u.parent_block() != block) {
            continue;
        }
        let slot = new_slot(i.ty());
        for u in users.iter().filter(|u| is_phi(u) || u.parent_block() != block) {
            let incoming = if is_phi(u) { u.incoming() } else { Vec::new() };
            for k in 0..u.num_operands() {
                if u.operand(k) != i {
                    continue;
                }
                match incoming.get(k as usize) {
                    Some((_, from)) => b.position_before(from.terminator().expect("blocks have terminators")),
                    None => b.position_before(*u),
                }
                let load = b.load(i.ty(), slot, 0);
                u.set_operand(k, load);
            }
        }
        let after = if i.opcode() == LLVMPHI {
            block.first_non_phi().expect("a block has a terminator")
        } else {
            i.next_instruction().expect("a value is no terminator")
        };
        b.position_before(after);
        b.store(i, slot, 0);
    }
    // The phis.
    for phi in instructions.iter().copied().filter(|i| i.opcode() == LLVMPHI) {
        let slot = new_slot(phi.ty());
        for (v, from) in phi.incoming() {
            b.position_before(from.terminator().expect("blocks have terminators"));
            b.store(v, slot, 0);
        }
        let block = phi.parent_block();
        b.position_before(block.first_non_phi().expect("a block has a terminator"));
        let load = b.load(phi.ty(), slot, 0);
        load.set_name(&phi.name());
        phi.replace_all_uses_with(load);
        phi.erase();
    }
    true
}
