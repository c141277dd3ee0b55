//! Stage 5, legality: decides, before anything is emitted, whether the
//! prepared scalar function can be vectorized, and if not, says why (the
//! reason becomes the per-lane fallback's report line). Reads the prepared
//! function and its CFG; changes nothing.
//!
//! Checked here, in this order: `byval` parameters (each call needs a
//! private copy), irreducible control flow (found by the loop analysis and
//! passed in), and then, block by block in reverse post-order, instruction
//! by instruction: stack memory of a computed size or outside the entry
//! block (fixed-size allocas become private memory), atomics,
//! volatile accesses, `va_arg`, landing pads, inline assembly, `musttail`
//! calls, token and scalable-vector values, and terminators other than
//! `ret`, `br`, `switch` and `unreachable`.

use crate::analysis::cfg::Cfg;
use crate::error::FallbackKind::{self, *};
use crate::error::{Error, Result};
use crate::llvm::LLVMOpcode::*;
use crate::llvm::{Type, Value};

/// Why `scalar` (the original function) cannot be vectorized, from its
/// signature alone.
pub fn check_signature(scalar: Value, function: &str) -> Result<()> {
    let nparams = scalar.function_type().param_types().len() as u32;
    if let Some(i) = (0..nparams).find(|i| scalar.has_attribute_at(i + 1, "byval")) {
        // Lanes would share, or write through to the caller, what the scalar
        // function changes in its private copy; the per-lane loop copies.
        return Err(unsupported(
            function,
            FallbackKind::ByvalParameter,
            format!("parameter {i} is passed `byval` (a private copy per call) and is not vectorized yet"),
        ));
    }
    Ok(())
}

/// Why the prepared function `f` (with CFG `cfg`) cannot be vectorized:
/// the first obstacle in reverse post-order.
pub fn check_body(f: Value, cfg: &Cfg, function: &str) -> Result<()> {
    debug_assert!(!f.is_declaration());
    for b in &cfg.rpo {
        for i in b.instructions() {
            if let Some((kind, what)) = obstacle(i) {
                return Err(unsupported(function, kind, what));
            }
        }
    }
    Ok(())
}

/// Whether the prepared function `f` calls cross-lane operations
/// (`analysis::cross_lane`), after checking each call: its signature fits
/// the operation at `spec`'s width, a stored-through pointer or an
/// inserted-at lane is uniform, `--for-autodiff` clones (`for_autodiff`)
/// hold only the operations whose results carry no derivative. A call of
/// a module function that uses them counts as a use (it must become a call
/// of the callee's clone: [`check_group_calls`]). Errors are
/// [`Error::CrossLane`]: no per-lane loop stands in for a group's meaning.
pub fn check_cross_lane(
    f: Value,
    uniformity: &crate::analysis::uniformity::Uniformity,
    spec: &crate::spec::CloneSpec,
    for_autodiff: bool,
) -> Result<bool> {
    use crate::analysis::cross_lane;
    let error = |message: String| Error::CrossLane { function: spec.scalar_name.clone(), message };
    let mut uses = !cross_lane::group_callees(f).is_empty();
    for b in f.blocks() {
        for i in b.instructions() {
            if !i.is_call() || !i.called_value().is_function() || i.called_value().intrinsic_id() != 0 {
                continue;
            }
            let callee = i.called_value();
            let Some(op) = cross_lane::op_of(i) else { continue };
            uses = true;
            let name = callee.name();
            cross_lane::check_call(i, op, spec.width, |k| uniformity.is_varying(i.operand(k)))
                .map_err(|why| error(format!("the cross-lane operation `{name}` {why}")))?;
            if for_autodiff && !op.differentiable_free() {
                return Err(error(format!(
                    "the cross-lane operation `{name}` is not accepted in clones for differentiation \
                     (--for-autodiff): only lane_id, num_lanes, any, all, ballot, popcount and index are, \
                     whose results carry no derivative"
                )));
            }
        }
    }
    Ok(uses)
}

/// The per-lane fallback's reason for `what`, of `kind`.
pub fn unsupported(function: &str, kind: FallbackKind, what: impl Into<String>) -> Error {
    Error::Unsupported { function: function.to_string(), kind, what: what.into() }
}

/// What keeps instruction `i` from being vectorized, if anything.
fn obstacle(i: Value) -> Option<(FallbackKind, String)> {
    let op = i.opcode();
    if matches!(op, LLVMUserOp1 | LLVMUserOp2) {
        return Some((
            UnknownInstruction,
            format!("`{}` is an instruction this build of batchify does not know", i.print()),
        ));
    }
    if op == LLVMAlloca && !(crate::analysis::private::is_static(i) && is_in_entry_block(i)) {
        return Some((
            StackMemory,
            format!(
                "stack memory of a computed size or outside the entry block (`{}`) is not supported yet",
                i.print()
            ),
        ));
    }
    if matches!(op, LLVMAtomicRMW | LLVMAtomicCmpXchg | LLVMFence | LLVMVAArg | LLVMLandingPad)
        || (matches!(op, LLVMLoad | LLVMStore) && (i.is_volatile() || i.is_atomic()))
    {
        return Some((Instruction, format!("`{}` is not supported yet", i.print())));
    }
    if op == LLVMCall && i.called_value().is_inline_asm() {
        return Some((InlineAssembly, format!("inline assembly `{}` is not supported", i.print())));
    }
    if op == LLVMCall && i.is_musttail() {
        // A `musttail` call needs the caller's exact prototype.
        return Some((MustTailCall, format!("`musttail` call `{}` is not supported", i.print())));
    }
    if is_unbatchable_type(i.ty()) || i.operands().iter().any(|o| is_unbatchable_type(o.ty())) {
        return Some((UnbatchableType, format!("`{}`: token and scalable vector values are not supported", i.print())));
    }
    if is_terminator(op) && !matches!(op, LLVMRet | LLVMBr | LLVMSwitch | LLVMUnreachable) {
        return Some((Terminator, format!("terminator `{}` is not supported", i.print())));
    }
    None
}

/// Whether `i` is in its function's entry block.
fn is_in_entry_block(i: Value) -> bool {
    let b = i.parent_block();
    b.parent().blocks().first() == Some(&b)
}

/// Whether values of this type cannot be batched (tokens, scalable vectors).
fn is_unbatchable_type(t: Type) -> bool {
    t.is_token() || t.contains_scalable_vector()
}

/// Whether `op` ends a block.
pub fn is_terminator(op: crate::llvm::LLVMOpcode) -> bool {
    matches!(
        op,
        LLVMRet
            | LLVMBr
            | LLVMSwitch
            | LLVMIndirectBr
            | LLVMInvoke
            | LLVMUnreachable
            | LLVMResume
            | LLVMCleanupRet
            | LLVMCatchRet
            | LLVMCatchSwitch
            | LLVMCallBr
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llvm::{parse_ir, Module};
    // Links libLLVM into the test binary.
    use batchify_llvm_link as _;

    /// The legality verdict on function `f` of `ir`: the signature, then
    /// the body.
    fn verdict(ir: &str) -> Result<()> {
        let ctx = inkwell::context::Context::create();
        let m = parse_ir(&ctx, ir, "t").expect("valid IR");
        let f = Module::from_inkwell(&m).function("f").expect("a function f");
        check_signature(f, "f")?;
        check_body(f, &Cfg::new(f), "f")
    }

    fn kind(r: Result<()>) -> Option<FallbackKind> {
        match r {
            Err(Error::Unsupported { kind, .. }) => Some(kind),
            _ => None,
        }
    }

    #[test]
    fn plain_code_is_legal() {
        let ir = "define i32 @f(i32 %x) {\n  %a = alloca i32\n  store i32 %x, ptr %a\n  %v = load i32, ptr %a\n  ret i32 %v\n}";
        assert_eq!(verdict(ir), Ok(()));
    }

    #[test]
    fn each_obstacle_has_its_kind() {
        let cases = [
            ("define void @f(ptr byval(i32) %p) {\n  ret void\n}", ByvalParameter),
            ("define void @f(i64 %n) {\n  %a = alloca i32, i64 %n\n  ret void\n}", StackMemory),
            ("define i32 @f(ptr %p) {\n  %v = load volatile i32, ptr %p\n  ret i32 %v\n}", Instruction),
            ("define i32 @f(ptr %p) {\n  %v = atomicrmw add ptr %p, i32 1 seq_cst\n  ret i32 %v\n}", Instruction),
            ("define void @f() {\n  call void asm sideeffect \"nop\", \"\"()\n  ret void\n}", InlineAssembly),
            ("define i32 @f(i32 %x) {\n  %r = musttail call i32 @f(i32 %x)\n  ret i32 %r\n}", MustTailCall),
            ("define void @f(ptr %t) {\n  indirectbr ptr %t, []\n}", Terminator),
        ];
        for (ir, want) in cases {
            assert_eq!(kind(verdict(ir)), Some(want), "{ir}");
        }
    }

    #[test]
    fn the_first_obstacle_in_block_order_is_the_reason() {
        let ir = "define void @f(ptr %p) {\nentry:\n  br label %b\nb:\n  call void asm sideeffect \"nop\", \"\"()\n  \
                  %v = load volatile i32, ptr %p\n  ret void\n}";
        assert_eq!(kind(verdict(ir)), Some(InlineAssembly));
    }
}
