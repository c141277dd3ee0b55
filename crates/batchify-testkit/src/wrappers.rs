//! Calling wrappers added to the module under test, so that Rust can call
//! any scalar function and its clone through one C signature,
//! `void(ptr in, ptr out)`, whatever their LLVM types.
//!
//! Memory layout (all accesses unaligned-safe, `align 1`):
//! * input: parameter `i`, lane `k` at `in + (i * width + k) * SLOT`; the mask
//!   (masked clones) is parameter `params.len()`, one byte per lane (0/1);
//! * output: lane `k`'s result at `out + k * RESULT_SLOT`.
//!
//! Each scalar value is stored in its *memory form*: integers whose width is
//! not a multiple of 8 (`i1`, `i17`) are zero-extended to whole bytes. The
//! vector wrapper builds the clone's arguments lane by lane (insertelement /
//! insertvalue) and takes its result apart the same way, so both wrappers
//! write identical layouts and the oracle compares bytes.

use batchify_core::llvm::{constant, Block, Builder, Module, Type, Value};
use batchify_core::transform::widen::{extract_lane, insert_lane};
use batchify_core::vfabi::ParamKind;
use batchify_core::{CloneSpec, MaskAbi};
use llvm_sys::LLVMOpcode;

/// Bytes per input slot.
pub const SLOT: usize = 16;
/// Bytes per result slot.
pub const RESULT_SLOT: usize = 64;

/// Memory form of a scalar type: integers rounded up to whole bytes.
pub fn memory_type(t: Type) -> Type {
    let w = t.int_width();
    if w > 0 && !w.is_multiple_of(8) {
        Type::int(t.context(), w.div_ceil(8) * 8)
    } else {
        t
    }
}

fn load_scalar(b: &Builder, t: Type, base: Value, offset: usize) -> Value {
    let ctx = b.context();
    let p = b.gep(Type::int(ctx, 8), base, &[constant::int(Type::int(ctx, 64), offset as u64)], Default::default());
    let m = memory_type(t);
    let v = b.load(m, p, 1);
    if m != t {
        b.cast(LLVMOpcode::LLVMTrunc, v, t)
    } else {
        v
    }
}

fn store_scalar(b: &Builder, v: Value, base: Value, offset: usize) {
    let ctx = b.context();
    let p = b.gep(Type::int(ctx, 8), base, &[constant::int(Type::int(ctx, 64), offset as u64)], Default::default());
    let m = memory_type(v.ty());
    let v = if m != v.ty() { b.cast(LLVMOpcode::LLVMZExt, v, m) } else { v };
    b.store(v, p, 1);
}

fn new_wrapper(module: Module, name: &str, like: Value) -> (Value, Builder, Value, Value) {
    let ctx = module.context();
    let ptr = Type::ptr(ctx);
    let f = module.add_function(name, Type::function(Type::void(ctx), &[ptr, ptr]));
    // The wrapper must share the callee's target features, so vector
    // arguments are passed in the registers the callee expects.
    for key in ["target-cpu", "target-features", "min-legal-vector-width"] {
        if let Some(v) = like.string_attribute(llvm_sys::LLVMAttributeFunctionIndex, key) {
            f.set_string_attribute(llvm_sys::LLVMAttributeFunctionIndex, key, &v);
        }
    }
    let entry: Block = f.append_block("entry");
    let b = Builder::new(ctx);
    b.position_at_end(entry);
    let ps = f.params();
    (f, b, ps[0], ps[1])
}

/// Adds `void name(ptr in, ptr out)` calling the scalar function once
/// (lane 0 of the layout).
pub fn add_scalar_wrapper(module: Module, scalar: Value, spec: &CloneSpec, name: &str) {
    let (_, b, inp, out) = new_wrapper(module, name, scalar);
    let fty = scalar.function_type();
    let n = spec.width as usize;
    let args: Vec<Value> =
        fty.param_types().iter().enumerate().map(|(i, t)| load_scalar(&b, *t, inp, i * n * SLOT)).collect();
    let r = b.call(fty, scalar, &args);
    if !fty.return_type().is_void() {
        store_scalar(&b, r, out, 0);
    }
    b.ret(None);
}

/// Adds `void name(ptr in, ptr out)` calling the clone once on all lanes.
pub fn add_vector_wrapper(module: Module, scalar: Value, clone: Value, spec: &CloneSpec, name: &str) {
    let (_, b, inp, out) = new_wrapper(module, name, clone);
    let ctx = module.context();
    let n = spec.width as usize;
    let sty = scalar.function_type();
    let vty = clone.function_type();
    let vparams = vty.param_types();
    let mut args = Vec::new();
    for (i, t) in sty.param_types().iter().enumerate() {
        let at = |k: usize| (i * n + k) * SLOT;
        args.push(match spec.params[i] {
            ParamKind::Vector => {
                let mut acc = constant::poison(vparams[i]);
                for k in 0..n {
                    let x = load_scalar(&b, *t, inp, at(k));
                    acc = insert_lane(&b, acc, x, k as u32);
                }
                acc
            }
            _ => load_scalar(&b, *t, inp, at(0)),
        });
    }
    if let Some(abi) = spec.mask {
        let mty = vparams[sty.param_types().len()];
        let i1 = Type::int(ctx, 1);
        let bit = |k: usize| load_scalar(&b, i1, inp, (spec.params.len() * n + k) * SLOT);
        let mask = match abi {
            MaskAbi::LaneBits => {
                let mut acc = constant::poison(mty);
                for k in 0..n {
                    let x = bit(k);
                    acc = b.insert_element(acc, x, k as u32);
                }
                acc
            }
            MaskAbi::CharacteristicVector => {
                let elem = mty.element();
                let bits = batchify_core::transform::signature::scalar_bits(elem);
                let ity = Type::int(ctx, bits);
                let mut acc = constant::poison(mty);
                for k in 0..n {
                    let x = b.cast(LLVMOpcode::LLVMSExt, bit(k), ity);
                    let x = if elem == ity { x } else { b.cast(LLVMOpcode::LLVMBitCast, x, elem) };
                    acc = b.insert_element(acc, x, k as u32);
                }
                acc
            }
            MaskAbi::IntegerBitmask => {
                let mut acc = constant::null(mty);
                for k in 0..n {
                    let x = b.cast(LLVMOpcode::LLVMZExt, bit(k), mty);
                    let sh = b.binop(LLVMOpcode::LLVMShl, x, constant::int(mty, k as u64));
                    acc = b.binop(LLVMOpcode::LLVMOr, acc, sh);
                }
                acc
            }
        };
        args.push(mask);
    }
    let r = b.call(vty, clone, &args);
    if !vty.return_type().is_void() {
        for k in 0..n {
            let x = extract_lane(&b, r, k as u32);
            store_scalar(&b, x, out, k * RESULT_SLOT);
        }
    }
    b.ret(None);
}
