//! The exported symbol of a clone whose natural LLVM signature LLVM would
//! lower differently from GCC 12 ([`crate::abi::gcc_lowering`]): a function
//! of GCC's lowered type under the variant's name, into which the built
//! clone's body moves (no call, no second function). Its entry reassembles
//! the natural parameters from their register-sized pieces; every `ret v`
//! becomes a store of `v` through the hidden result pointer when the result
//! travels in memory. See `docs/gcc-abi.md`.

use crate::abi::{self, GccLowering};
use crate::llvm::{constant, create_enum_attribute, create_type_attribute, Builder, Module, Type, Value};
use crate::spec::CloneSpec;

/// The vector of type `t` made of the lanes of `pieces`, in order.
pub fn concat<'ctx>(b: &Builder<'ctx>, pieces: &[Value<'ctx>], t: Type<'ctx>) -> Value<'ctx> {
    let mut acc = constant::poison(t);
    let mut lane = 0;
    for &p in pieces {
        for k in 0..p.ty().vector_len() {
            let x = b.extract_element(p, k);
            acc = b.insert_element(acc, x, lane);
            lane += 1;
        }
    }
    acc
}

/// The natural value of type `t` from the pieces it travels in: the value
/// itself, a vector of at most 32 bits from its integer, or the lanes of
/// several pieces.
fn assemble<'ctx>(b: &Builder<'ctx>, pieces: &[Value<'ctx>], t: Type<'ctx>) -> Value<'ctx> {
    match pieces {
        [p] if p.ty() == t => *p,
        [p] => b.cast(crate::llvm::LLVMOpcode::LLVMBitCast, *p, t),
        _ => concat(b, pieces, t),
    }
}

/// The pieces of types `types` that vector `v` splits into, in lane order
/// (one integer piece: `v`'s bits).
pub fn split<'ctx>(b: &Builder<'ctx>, v: Value<'ctx>, types: &[Type<'ctx>]) -> Vec<Value<'ctx>> {
    if let [t] = types {
        return vec![if *t == v.ty() { v } else { b.cast(crate::llvm::LLVMOpcode::LLVMBitCast, v, *t) }];
    }
    let ctx = v.ty().context();
    let mut first = 0;
    let mut out = Vec::new();
    for &t in types {
        let n = t.vector_len();
        let lanes: Vec<Value> = (first..first + n).map(|k| constant::i32(ctx, k)).collect();
        out.push(b.shuffle(v, constant::poison(v.ty()), constant::vector(&lanes)));
        first += n;
    }
    out
}

/// Replaces the built clone `body` (natural type, a working name) by the
/// exported function of GCC's lowered type named `spec.vector_name`, with
/// the clone's symbol and attributes, and returns it. A declaration of that
/// name (of the lowered type) is replaced and its uses redirected.
pub fn lower<'ctx>(
    module: Module<'ctx>,
    scalar: Value<'ctx>,
    body: Value<'ctx>,
    spec: &CloneSpec,
    lowering: &GccLowering<'ctx>,
) -> Value<'ctx> {
    let ctx = body.function_type().context();
    let mut existing = module.function(&spec.vector_name);
    // Callers in this module compiled against the natural type (LLVM's
    // loop vectorizer, given the variant's name) keep calling the body,
    // which then stays as an internal function that the symbol calls.
    let natural_callers = existing.filter(|d| d.function_type() == body.function_type());
    if let Some(decl) = natural_callers {
        decl.replace_all_uses_with(body);
        decl.delete_function();
        existing = None;
    }
    let f = module.add_function(&spec.vector_name, lowering.public_type);
    if let Some(decl) = existing {
        decl.replace_all_uses_with(f);
        decl.delete_function();
        f.set_name(&spec.vector_name);
    }
    super::linkage::apply(module, scalar, f);
    abi::copy_attributes(scalar, f, spec);
    super::target::apply(scalar, f, spec.isa);
    let params = f.params();
    let mut next = 0;
    let sret = lowering.sret.map(|(ty, align)| {
        f.add_attribute(1, create_type_attribute(ctx, "sret", ty));
        f.add_attribute(1, create_enum_attribute(ctx, "noalias", 0));
        f.add_attribute(1, create_enum_attribute(ctx, "align", align as u64));
        // The result is written to the caller's buffer: the scalar
        // function's memory effects no longer describe the clone.
        f.remove_enum_attribute(crate::llvm::FUNCTION_INDEX, "memory");
        next = 1;
        (params[0], align)
    });
    if natural_callers.is_some() {
        call_body(f, body, &params[next..], sret, lowering);
        return f;
    }
    let blocks = body.blocks();
    for block in &blocks {
        block.move_to_function(f);
    }
    let b = Builder::new(ctx);
    b.position_before(blocks[0].instructions()[0]);
    for (old, types) in body.params().into_iter().zip(&lowering.pieces) {
        let pieces = &params[next..next + types.len()];
        next += types.len();
        let new = assemble(&b, pieces, old.ty());
        old.replace_all_uses_with(new);
    }
    // Every `ret v` returns as the symbol does: through the hidden result
    // pointer, or as the integer a small vector travels as.
    if sret.is_some() || lowering.int_ret.is_some() {
        for block in &blocks {
            let Some(ret) = block.terminator().filter(|t| t.opcode() == crate::llvm::LLVMOpcode::LLVMRet) else {
                continue;
            };
            b.position_before(ret);
            match sret {
                Some((ptr, align)) => {
                    b.store(ret.operand(0), ptr, align);
                    b.ret(None);
                }
                None => {
                    let int = lowering.public_type.return_type();
                    b.ret(Some(b.cast(crate::llvm::LLVMOpcode::LLVMBitCast, ret.operand(0), int)));
                }
            }
            ret.erase();
        }
    }
    body.delete_function();
    f
}

/// Gives the exported function `f` a body that calls the clone's body
/// (made internal) with the reassembled natural arguments `pieces`.
fn call_body<'ctx>(
    f: Value<'ctx>,
    body: Value<'ctx>,
    pieces: &[Value<'ctx>],
    sret: Option<(Value<'ctx>, u32)>,
    lowering: &GccLowering<'ctx>,
) {
    let ctx = f.function_type().context();
    body.set_internal();
    body.clear_comdat();
    let b = Builder::new(ctx);
    b.position_at_end(f.append_block("entry"));
    let mut next = 0;
    let mut args = Vec::new();
    for (old, types) in body.params().into_iter().zip(&lowering.pieces) {
        let p = &pieces[next..next + types.len()];
        next += types.len();
        args.push(assemble(&b, p, old.ty()));
    }
    let r = b.call(body.function_type(), body, &args);
    match sret {
        Some((ptr, align)) => {
            b.store(r, ptr, align);
            b.ret(None);
        }
        None if body.function_type().return_type().is_void() => {
            b.ret(None);
        }
        None if lowering.int_ret.is_some() => {
            let bits = b.cast(crate::llvm::LLVMOpcode::LLVMBitCast, r, f.function_type().return_type());
            b.ret(Some(bits));
        }
        None => {
            b.ret(Some(r));
        }
    }
}

/// Calls `callee` (a variant's symbol of GCC's lowered type, `lowering`)
/// at `b` with the arguments `args` of the natural clone type: splits them
/// into their pieces and, for a result in memory, passes a buffer (an
/// `alloca` at `b`) and loads the result from it. Returns the call and the
/// natural result (`None` for `void`).
pub fn call_lowered<'ctx>(
    b: &Builder<'ctx>,
    callee: Value<'ctx>,
    args: &[Value<'ctx>],
    lowering: &GccLowering<'ctx>,
) -> (Value<'ctx>, Option<Value<'ctx>>) {
    let ctx = callee.function_type().context();
    let buffer = lowering.sret.map(|(ty, align)| {
        let slot = b.alloca(ty);
        slot.set_alignment(align);
        (slot, ty, align)
    });
    let mut lowered: Vec<Value> = buffer.iter().map(|(slot, _, _)| *slot).collect();
    for (&a, types) in args.iter().zip(&lowering.pieces) {
        lowered.extend(split(b, a, types));
    }
    let call = b.call(lowering.public_type, callee, &lowered);
    let result = match buffer {
        Some((slot, ty, align)) => {
            call.add_call_site_attribute(1, create_type_attribute(ctx, "sret", ty));
            call.add_call_site_attribute(1, create_enum_attribute(ctx, "align", align as u64));
            Some(b.load(ty, slot, align))
        }
        None => match lowering.int_ret {
            Some(natural) => Some(b.cast(crate::llvm::LLVMOpcode::LLVMBitCast, call, natural)),
            None => (!lowering.public_type.return_type().is_void()).then_some(call),
        },
    };
    (call, result)
}
