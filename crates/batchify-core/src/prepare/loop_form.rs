//! Whether a function is already in the form LLVM's `loop-simplify` and
//! `lcssa` produce, so that preparation can leave those passes out.
//!
//! LLVM's loop analysis keeps, for every loop, the list of all its blocks,
//! nested loops included: on a nest `d` deep that is `d` times the
//! function, and `loop-simplify` walks those lists again (issue 23: at
//! 32,000 instructions of nested loops the two passes took half of
//! batchify's time, each doubling 3.9x). Most inputs are already in that
//! form (clang's `-O2` output, and any function these passes saw), and
//! this check, linear in the blocks, edges and uses, finds out on
//! batchify's own loop analysis.
//!
//! The answer is `true` only where both passes would change nothing:
//! * every block is reachable, and every terminator is a `br`, `switch`,
//!   `ret` or `unreachable` (no `invoke`, `indirectbr` or `callbr`: the
//!   passes treat their edges specially);
//! * the control flow is reducible;
//! * every loop has a preheader (its header's one predecessor outside the
//!   loop, which ends in an unconditional branch), one latch, and
//!   dedicated exits (every predecessor of an exit block is in the loop);
//! * no header phi is one that `loop-simplify` would fold (both incoming
//!   values equal, or one of them the phi itself or `undef`);
//! * no loop offers `loop-simplify` an exit merge that would change
//!   something (see [`exit_merge_changes_nothing`]);
//! * every value defined in a loop and used outside it is used only by a
//!   phi whose incoming edge leaves from inside the loop (LCSSA).
//!
//! Anything else answers `false`, and the passes run as before.

use crate::analysis::{
    cfg::Cfg,
    dominance::Dominators,
    loops::{LoopId, Loops},
};
use crate::llvm::{Block, LLVMOpcode, Value};

/// Whether `f` (with a body) is in loop-simplify and LCSSA form, so that
/// running `loop-simplify,lcssa` on it would change nothing.
pub fn is_simplified_and_closed(f: Value) -> bool {
    let cfg = Cfg::new(f);
    if cfg.rpo.len() != f.blocks().len() {
        return false;
    }
    let plain_terminators = cfg.rpo.iter().all(|b| {
        b.terminator().is_some_and(|t| {
            matches!(
                t.opcode(),
                LLVMOpcode::LLVMBr | LLVMOpcode::LLVMSwitch | LLVMOpcode::LLVMRet | LLVMOpcode::LLVMUnreachable
            )
        })
    });
    if !plain_terminators {
        return false;
    }
    let Ok(loops) = Loops::new(&cfg, &Dominators::new(&cfg)) else { return false };
    loops_are_simplified(&cfg, &loops) && closed_over_loops(&cfg, &loops)
}

/// Preheaders, single latches, dedicated exits, no foldable header phi, no
/// exit merge.
fn loops_are_simplified(cfg: &Cfg, loops: &Loops) -> bool {
    for (i, l) in loops.loops.iter().enumerate() {
        let id = LoopId(i);
        let preds = &cfg.preds[&l.header];
        let (inside, outside): (Vec<Block>, Vec<Block>) = preds.iter().partition(|p| loops.contains(id, **p));
        if inside.len() != 1 || outside.len() != 1 {
            return false;
        }
        let preheader = outside[0];
        let Some(t) = preheader.terminator() else { return false };
        if t.opcode() != LLVMOpcode::LLVMBr || t.is_conditional() {
            return false;
        }
        let mut exiting = Vec::new();
        for e in &l.exits {
            for p in &cfg.preds[e] {
                if !loops.contains(id, *p) {
                    return false;
                }
                if !exiting.contains(p) {
                    exiting.push(*p);
                }
            }
        }
        let header_phis = l.header.instructions().into_iter().take_while(|i| i.opcode() == LLVMOpcode::LLVMPHI);
        for phi in header_phis {
            let incoming = phi.incoming();
            let foldable = incoming.len() != 2
                || incoming[0].0 == incoming[1].0
                || incoming.iter().any(|(v, _)| *v == phi || v.is_undef());
            if foldable {
                return false;
            }
        }
        let offers_exit_merge =
            l.exits.len() == 1 && exiting.iter().any(|b| !exit_merge_changes_nothing(cfg, loops, id, *b));
        if offers_exit_merge {
            return false;
        }
    }
    true
}

/// Whether `loop-simplify`'s exit merge, offered exiting block `b` of a
/// loop with one exit block, leaves everything as it is. The merge takes a
/// block with one predecessor that ends in a conditional branch on a
/// comparison made in it; it hoists the block's other instructions in
/// order (stopping at the first it cannot) and, if all went, folds the
/// branch into the predecessor's conditional branch. Nothing changes when
/// the first of those instructions fails before anything moves: it is a
/// phi or touches memory, or its operands reach such an instruction of the
/// loop before any other instruction of the loop. Anything less certain
/// answers `false`.
fn exit_merge_changes_nothing(cfg: &Cfg, loops: &Loops, l: LoopId, b: Block) -> bool {
    let [pred] = cfg.preds[&b][..] else { return true };
    let Some(br) = b.terminator() else { return true };
    if br.opcode() != LLVMOpcode::LLVMBr || !br.is_conditional() {
        return true;
    }
    let cond = br.operand(0);
    let is_local_cmp = cond.is_instruction()
        && matches!(cond.opcode(), LLVMOpcode::LLVMICmp | LLVMOpcode::LLVMFCmp)
        && cond.parent_block() == b;
    if !is_local_cmp {
        return true;
    }
    let stays = |i: Value| {
        matches!(
            i.opcode(),
            LLVMOpcode::LLVMPHI
                | LLVMOpcode::LLVMLoad
                | LLVMOpcode::LLVMStore
                | LLVMOpcode::LLVMAlloca
                | LLVMOpcode::LLVMFence
                | LLVMOpcode::LLVMAtomicCmpXchg
                | LLVMOpcode::LLVMAtomicRMW
        )
    };
    let first = b.instructions().into_iter().find(|i| *i != cond && *i != br);
    let Some(first) = first else {
        // Only the comparison and the branch: the fold needs a conditional
        // branch in the predecessor.
        return pred.terminator().is_some_and(|t| !t.is_conditional());
    };
    if stays(first) {
        return true;
    }
    for op in first.operands() {
        if !op.is_instruction() || !loops.contains(l, op.parent_block()) {
            continue;
        }
        return stays(op);
    }
    false
}

/// LCSSA: a value of a loop is used outside it only by phis on edges that
/// leave the loop.
fn closed_over_loops(cfg: &Cfg, loops: &Loops) -> bool {
    for b in &cfg.rpo {
        let Some(&home) = loops.innermost.get(b) else { continue };
        for i in b.instructions() {
            for u in i.users() {
                let at = u.parent_block();
                if u.opcode() == LLVMOpcode::LLVMPHI {
                    let from_inside = u.incoming().iter().all(|(v, from)| *v != i || loops.contains(home, *from));
                    if !from_inside {
                        return false;
                    }
                } else if !loops.contains(home, at) {
                    return false;
                }
            }
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::is_simplified_and_closed;
    use crate::llvm::{parse_ir, run_function_passes, Module};
    // Links libLLVM into the test binary.
    use batchify_llvm_link as _;

    /// The check's answer for `@f`, after asserting that where it says
    /// "in form" LLVM's `loop-simplify,lcssa` indeed change nothing.
    fn check(ir: &str) -> bool {
        let ctx = inkwell::context::Context::create();
        let m = parse_ir(&ctx, ir, "t").expect("valid IR");
        let module = Module::from_inkwell(&m);
        let f = module.function("f").expect("@f");
        let in_form = is_simplified_and_closed(f);
        let before = f.print_function();
        run_function_passes(f, "loop-simplify,lcssa").expect("passes run");
        if in_form {
            assert_eq!(before, f.print_function(), "said to be in form, but the passes changed it");
        }
        in_form
    }

    const SIMPLE: &str = "define i32 @f(i32 %n) {
entry:
  br label %h
h:
  %i = phi i32 [ 0, %entry ], [ %i1, %h ]
  %i1 = add i32 %i, 1
  %c = icmp ult i32 %i1, %n
  br i1 %c, label %h, label %x
x:
  %r = phi i32 [ %i1, %h ]
  ret i32 %r
}";

    #[test]
    fn a_rotated_loop_with_an_lcssa_phi_is_in_form() {
        assert!(check(SIMPLE));
    }

    #[test]
    fn a_use_outside_the_loop_without_a_phi_is_not_closed() {
        assert!(!check(&SIMPLE.replace("%r = phi i32 [ %i1, %h ]", "%r = add i32 %i1, 0")));
    }

    #[test]
    fn a_header_entered_from_a_conditional_branch_has_no_preheader() {
        let ir = "define i32 @f(i32 %n) {
entry:
  %z = icmp eq i32 %n, 0
  br i1 %z, label %x, label %h
h:
  %i = phi i32 [ 0, %entry ], [ %i1, %h ]
  %i1 = add i32 %i, 1
  %c = icmp ult i32 %i1, %n
  br i1 %c, label %h, label %x
x:
  %r = phi i32 [ 0, %entry ], [ %i1, %h ]
  ret i32 %r
}";
        assert!(!check(ir));
    }

    #[test]
    fn two_latches_are_not_in_form() {
        let ir = "define i32 @f(i32 %n) {
entry:
  br label %h
h:
  %i = phi i32 [ 0, %entry ], [ %i1, %a ], [ %i1, %b ]
  %i1 = add i32 %i, 1
  %odd = trunc i32 %i1 to i1
  br i1 %odd, label %a, label %b
a:
  %c = icmp ult i32 %i1, %n
  br i1 %c, label %h, label %x
b:
  br label %h
x:
  %r = phi i32 [ %i1, %a ]
  ret i32 %r
}";
        assert!(!check(ir));
    }

    #[test]
    fn a_header_phi_of_one_value_would_be_folded() {
        let ir = SIMPLE.replace(
            "  %i = phi i32 [ 0, %entry ], [ %i1, %h ]",
            "  %i = phi i32 [ 0, %entry ], [ %i1, %h ]\n  %k = phi i32 [ %n, %entry ], [ %k, %h ]",
        );
        assert!(!check(&ir.replace("%i1 = add i32 %i, 1", "%i1 = add i32 %i, %k")));
    }

    #[test]
    fn an_exit_shared_with_code_outside_the_loop_is_not_dedicated() {
        let ir = "define i32 @f(i32 %n) {
entry:
  %z = icmp eq i32 %n, 0
  br i1 %z, label %x, label %pre
pre:
  br label %h
h:
  %i = phi i32 [ 0, %pre ], [ %i1, %h ]
  %i1 = add i32 %i, 1
  %c = icmp ult i32 %i1, %n
  br i1 %c, label %h, label %x
x:
  %r = phi i32 [ 0, %entry ], [ %i1, %h ]
  ret i32 %r
}";
        assert!(!check(ir));
    }

    #[test]
    fn two_exits_to_one_block_may_be_merged() {
        let ir = "define i32 @f(i32 %n, i32 %m) {
entry:
  br label %h
h:
  %i = phi i32 [ 0, %entry ], [ %i1, %b ]
  %i1 = add i32 %i, 1
  %c = icmp ult i32 %i1, %n
  br i1 %c, label %b, label %x
b:
  %d = icmp ult i32 %m, 7
  br i1 %d, label %h, label %x
x:
  %r = phi i32 [ %i1, %h ], [ %i1, %b ]
  ret i32 %r
}";
        assert!(!check(ir));
    }

    #[test]
    fn nested_loops_in_form_are_in_form() {
        let ir = "define i32 @f(i32 %n) {
entry:
  br label %h
h:
  %i = phi i32 [ 0, %entry ], [ %i1, %l ]
  br label %g
g:
  %j = phi i32 [ %i, %h ], [ %j1, %g ]
  %j1 = add i32 %j, 3
  %e = icmp ult i32 %j1, %n
  br i1 %e, label %g, label %y
y:
  %jo = phi i32 [ %j1, %g ]
  br label %l
l:
  %i1 = add i32 %i, %jo
  %c = icmp ult i32 %i1, %n
  br i1 %c, label %h, label %x
x:
  %r = phi i32 [ %i1, %l ]
  ret i32 %r
}";
        assert!(check(ir));
    }
}
