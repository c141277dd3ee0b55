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

use batchify_core::abi::{extract_lane, insert_lane};
use batchify_core::llvm::{
    attribute_enum_kind, constant, enum_attribute_kind, Block, Builder, LLVMIntPredicate, LLVMOpcode, LLVMTypeKind,
    Module, OwnedModule, Type, Value, FUNCTION_INDEX,
};
use batchify_core::vfabi::ParamKind;
use batchify_core::{CloneSpec, MaskAbi};

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

pub(crate) fn load_scalar<'ctx>(b: &Builder<'ctx>, t: Type<'ctx>, base: Value<'ctx>, offset: usize) -> Value<'ctx> {
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

pub(crate) fn new_wrapper<'ctx>(
    module: Module<'ctx>,
    name: &str,
    like: Value<'ctx>,
    nparams: usize,
) -> (Value<'ctx>, Builder<'ctx>, Vec<Value<'ctx>>) {
    let ctx = module.context();
    let ptr = Type::ptr(ctx);
    let f = module.add_function(name, Type::function(Type::void(ctx), &vec![ptr; nparams]));
    // The wrapper must share the callee's target features, so vector
    // arguments are passed in the registers the callee expects.
    for key in ["target-cpu", "tune-cpu", "target-features", "min-legal-vector-width"] {
        if let Some(v) = like.string_attribute(FUNCTION_INDEX, key) {
            f.set_string_attribute(FUNCTION_INDEX, key, &v);
        }
    }
    let entry: Block = f.append_block("entry");
    let b = Builder::new(ctx);
    b.position_at_end(entry);
    let ps = f.params();
    (f, b, ps)
}

/// Enum attributes that change how arguments and results are passed, which
/// a call must repeat from the callee's declaration.
const ABI_ATTRIBUTES: &[&str] =
    &["byval", "sret", "zeroext", "signext", "noext", "inreg", "align", "swiftself", "swiftasync", "nest", "byref"];

/// Gives `call` the calling convention of `callee` and repeats the
/// callee's ABI-relevant parameter and return attributes ([`ABI_ATTRIBUTES`])
/// on the call site.
pub fn copy_call_abi(call: Value, callee: Value) {
    call.set_call_conv(callee.call_conv());
    let kinds: Vec<u32> = ABI_ATTRIBUTES.iter().map(|n| enum_attribute_kind(n)).filter(|k| *k != 0).collect();
    let n = callee.params().len() as u32;
    for idx in 0..=n {
        for a in callee.attributes(idx) {
            if (a.is_enum() || a.is_type()) && kinds.contains(&attribute_enum_kind(a)) {
                call.add_call_site_attribute(idx, a);
            }
        }
    }
}

/// Adds `void name(ptr in, ptr out)` calling the scalar function once
/// (lane 0 of the layout).
pub fn add_scalar_wrapper(module: Module, scalar: Value, spec: &CloneSpec, name: &str) {
    let (_, b, ps) = new_wrapper(module, name, scalar, 2);
    let (inp, out) = (ps[0], ps[1]);
    let fty = scalar.function_type();
    let n = spec.width as usize;
    let args: Vec<Value> =
        fty.param_types().iter().enumerate().map(|(i, t)| load_scalar(&b, *t, inp, i * n * SLOT)).collect();
    let r = b.call(fty, scalar, &args);
    copy_call_abi(r, scalar);
    if !fty.return_type().is_void() {
        store_scalar(&b, r, out, 0);
    }
    b.ret(None);
}

/// Adds `void name(ptr in, ptr out)` calling the clone once on all lanes.
pub fn add_vector_wrapper<'ctx>(
    module: Module<'ctx>,
    scalar: Value<'ctx>,
    clone: Value<'ctx>,
    spec: &CloneSpec,
    name: &str,
) {
    let (_, b, ps) = new_wrapper(module, name, clone, 2);
    emit_vector_call(&b, ps[0], ps[1], scalar, clone, spec, &|_, _| None);
    b.ret(None);
}

/// Where a pointer argument of the optimised caller points: its input slot
/// holds an `i64` offset from `base` (`i64::MIN` for null).
type PtrBase<'a, 'ctx> = &'a dyn Fn(usize, usize) -> Option<Value<'ctx>>;

fn load_arg<'ctx>(
    b: &Builder<'ctx>,
    t: Type<'ctx>,
    inp: Value<'ctx>,
    at: usize,
    base: Option<Value<'ctx>>,
) -> Value<'ctx> {
    let Some(base) = base else { return load_scalar(b, t, inp, at) };
    let ctx = b.context();
    let i64t = Type::int(ctx, 64);
    let off = load_scalar(b, i64t, inp, at);
    let p = b.gep(Type::int(ctx, 8), base, &[off], Default::default());
    let is_null = b.icmp(LLVMIntPredicate::LLVMIntEQ, off, constant::int(i64t, i64::MIN as u64));
    b.select(is_null, constant::null(t), p)
}

/// Emits, at `b`, the clone's arguments read from `inp`, the call, and the
/// stores of its lanes' results to `out`. A clone whose symbol has GCC's
/// lowered type (`batchify_core::shell::gcc_adapter`) is called through it.
fn emit_vector_call<'ctx>(
    b: &Builder<'ctx>,
    inp: Value<'ctx>,
    out: Value<'ctx>,
    scalar: Value<'ctx>,
    clone: Value<'ctx>,
    spec: &CloneSpec,
    base: PtrBase<'_, 'ctx>,
) {
    let args = vector_call_args(b, inp, scalar, clone, spec, base);
    if let Some(r) = call_clone(b, scalar, clone, spec, &args) {
        store_lane_results(b, r, scalar, spec, out);
    }
}

/// The natural type of `clone` (GCC's lowered symbols: the type before lowering).
fn natural_clone_type<'ctx>(scalar: Value<'ctx>, clone: Value<'ctx>, spec: &CloneSpec) -> Type<'ctx> {
    batchify_core::abi::clone_type(scalar, spec).unwrap_or(clone.function_type())
}

/// Emits, at `b`, the clone's arguments (of its natural type, the mask
/// last) read from the input layout at `inp` (see the module documentation).
pub fn clone_call_args<'ctx>(
    b: &Builder<'ctx>,
    inp: Value<'ctx>,
    scalar: Value<'ctx>,
    clone: Value<'ctx>,
    spec: &CloneSpec,
) -> Vec<Value<'ctx>> {
    vector_call_args(b, inp, scalar, clone, spec, &|_, _| None)
}

fn vector_call_args<'ctx>(
    b: &Builder<'ctx>,
    inp: Value<'ctx>,
    scalar: Value<'ctx>,
    clone: Value<'ctx>,
    spec: &CloneSpec,
    base: PtrBase<'_, 'ctx>,
) -> Vec<Value<'ctx>> {
    let ctx = b.context();
    let n = spec.width as usize;
    let sty = scalar.function_type();
    let vty = natural_clone_type(scalar, clone, spec);
    let vparams = vty.param_types();
    let mut args = Vec::new();
    for (i, t) in sty.param_types().iter().enumerate() {
        let at = |k: usize| (i * n + k) * SLOT;
        args.push(match spec.params[i] {
            ParamKind::Vector => {
                let mut acc = constant::poison(vparams[i]);
                for k in 0..n {
                    let x = load_arg(b, *t, inp, at(k), base(i, k));
                    acc = insert_lane(b, acc, *t, x, k as u32);
                }
                acc
            }
            _ => load_arg(b, *t, inp, at(0), base(i, 0)),
        });
    }
    if let Some(abi) = spec.mask {
        let mty = vparams[sty.param_types().len()];
        let i1 = Type::int(ctx, 1);
        let bit = |k: usize| load_scalar(b, i1, inp, (spec.params.len() * n + k) * SLOT);
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
                let bits = batchify_core::abi::scalar_bits(elem);
                let ity = Type::int(ctx, bits);
                let mut acc = constant::poison(mty);
                for k in 0..n {
                    let x = b.cast(LLVMOpcode::LLVMSExt, bit(k), ity);
                    let x = if elem == ity {
                        x
                    } else if elem.kind() == LLVMTypeKind::LLVMPointerTypeKind {
                        // A pointer characteristic type: all-ones or null.
                        b.cast(LLVMOpcode::LLVMIntToPtr, x, elem)
                    } else {
                        b.cast(LLVMOpcode::LLVMBitCast, x, elem)
                    };
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
    args
}

/// Emits, at `b`, a call of `clone` with `args` of its natural type
/// ([`clone_call_args`]), through GCC's lowered type when its symbol has
/// it (which may emit an `alloca` at `b` for a result in memory); returns
/// the natural result (`None` for `void`).
pub fn call_clone<'ctx>(
    b: &Builder<'ctx>,
    scalar: Value<'ctx>,
    clone: Value<'ctx>,
    spec: &CloneSpec,
    args: &[Value<'ctx>],
) -> Option<Value<'ctx>> {
    let abi = batchify_core::abi::CloneAbi::of(scalar, spec).ok();
    let vty = abi.as_ref().map_or(clone.function_type(), |a| a.natural);
    let lowering =
        abi.and_then(|a| a.lowering).filter(|l| clone.function_type() != vty && clone.function_type() == l.public_type);
    match &lowering {
        Some(l) => {
            let (call, r) = batchify_core::shell::gcc_adapter::call_lowered(b, clone, args, l);
            copy_call_abi(call, clone);
            r
        }
        None => {
            let call = b.call(vty, clone, args);
            copy_call_abi(call, clone);
            (!vty.return_type().is_void()).then_some(call)
        }
    }
}

/// Emits, at `b`, the stores of each lane of the clone's result `r` to its
/// result slot at `out` (see the module documentation).
pub fn store_lane_results<'ctx>(
    b: &Builder<'ctx>,
    r: Value<'ctx>,
    scalar: Value<'ctx>,
    spec: &CloneSpec,
    out: Value<'ctx>,
) {
    let ret = scalar.function_type().return_type();
    for k in 0..spec.width as usize {
        let x = extract_lane(b, r, ret, k as u32);
        store_scalar(b, x, out, k * RESULT_SLOT);
    }
}

/// What an optimised caller does with the pointer buffers after the call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CallerKind {
    /// Copies each buffer out after the call (sees the clone's writes).
    Writer,
    /// Lets each local buffer die after the call, so that the copy-in
    /// before the call is dead unless the call reads the buffer.
    Reader,
}

/// One buffer the optimised caller manages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CallerRegion {
    /// The pointer parameter it belongs to.
    pub param: usize,
    /// The lane it belongs to (`None`: all lanes share it).
    pub lane: Option<u32>,
    /// Its length in bytes.
    pub len: u64,
    /// Its offset in the caller's one local array, the same as its offset
    /// from the base of the oracle's copies of the buffers (so that
    /// pointers into different buffers compare alike).
    pub offset: u64,
}

/// Adds `void name(ptr in, ptr out, ptr table)`, a caller of the clone
/// optimised with `default<O2>` in a module of its own that only *declares*
/// the clone (with all of its attributes), then linked into `module`.
///
/// `table` holds two pointers per region `r` (`init`, `save`). The input
/// layout is [`add_vector_wrapper`]'s, except that a pointer argument's
/// slot holds an `i64` offset into its region (`i64::MIN` for null).
/// `name` loads the table and calls `name.inner`, which gives every region
/// a local buffer (a part of one `alloca`, laid out like the oracle's
/// copies of the buffers),
/// copies `init` into it, calls the clone with pointers into the local
/// buffers, and then, for [`CallerKind::Writer`], copies each local buffer
/// to its `save`; for [`CallerKind::Reader`], the local buffers just die.
/// Attributes of the clone that lie about its memory effects let the
/// optimiser forward the copy-in to the copy-out (writer) or delete the
/// copy-in (reader), which the oracle then sees.
pub fn add_optimized_caller(
    module: Module,
    scalar: Value,
    clone: Value,
    spec: &CloneSpec,
    regions: &[CallerRegion],
    name: &str,
    kind: CallerKind,
) -> Result<(), String> {
    let ctx = module.context();
    let cname = clone.name();
    std::ffi::CString::new(cname.as_str()).map_err(|e| e.to_string())?;
    let ptr = Type::ptr(ctx);
    let i64t = Type::int(ctx, 64);
    // The new module is consumed by the link below (or disposed on failure).
    let owned = OwnedModule::new_in(ctx, "oracle.caller");
    let m = owned.module();
    m.copy_target_from(module);
    let decl = m.add_function(&cname, clone.function_type());
    decl.set_function_call_conv(clone.call_conv());
    let n = clone.params().len() as u32;
    for idx in (0..=n).chain([FUNCTION_INDEX]) {
        for a in clone.attributes(idx) {
            decl.add_attribute(idx, a);
        }
    }
    let inner_name = format!("{name}.inner");
    let (_, b, ps) = new_wrapper(m, &inner_name, clone, 2 + 2 * regions.len());
    let (inp, out) = (ps[0], ps[1]);
    let i8t = Type::int(ctx, 8);
    let mut local = Vec::new();
    let span = regions.iter().map(|r| r.offset + r.len).max().unwrap_or(1);
    let all = b.alloca(i8t.array_of(span as u32));
    all.set_alignment(4096);
    for (r, reg) in regions.iter().enumerate() {
        let a = b.gep(i8t, all, &[constant::int(i64t, reg.offset)], Default::default());
        mem_intrinsic(&b, m, "llvm.memcpy", a, ps[2 + 2 * r], constant::int(i64t, reg.len));
        local.push(a);
    }
    let base = |i: usize, k: usize| {
        regions.iter().position(|g| g.param == i && g.lane.is_none_or(|l| l as usize == k)).map(|r| local[r])
    };
    emit_vector_call(&b, inp, out, scalar, decl, spec, &base);
    if kind == CallerKind::Writer {
        for (r, reg) in regions.iter().enumerate() {
            mem_intrinsic(&b, m, "llvm.memcpy", ps[3 + 2 * r], local[r], constant::int(i64t, reg.len));
        }
    }
    b.ret(None);
    drop(b);
    if let Err(e) = run_o2(m) {
        return Err(format!("default<O2> on the caller failed: {e}"));
    }
    // The trampoline, added after optimisation so that nothing inlines
    // `inner` into it.
    let (_, b, ps) = new_wrapper(m, name, clone, 3);
    let mut args = vec![ps[0], ps[1]];
    for k in 0..2 * regions.len() {
        let p = b.gep(ptr, ps[2], &[constant::int(i64t, k as u64)], Default::default());
        args.push(b.load(ptr, p, 8));
    }
    let inner = m.function(&inner_name).ok_or_else(|| format!("no `{inner_name}` after default<O2>"))?;
    b.call(inner.function_type(), inner, &args);
    b.ret(None);
    drop(b);
    owned.link_into(module).map_err(|_| "linking the optimised caller failed".to_string())
}

/// Emits `call @llvm.memcpy/memset(dst, src_or_byte, len, i1 false)`.
fn mem_intrinsic(b: &Builder, m: Module, name: &str, dst: Value, src: Value, len: Value) {
    let mut tys = vec![dst.ty()];
    if name == "llvm.memcpy" {
        tys.push(src.ty());
    }
    tys.push(len.ty());
    let f = m.intrinsic(name, &tys).expect("a memory intrinsic");
    b.call(f.global_value_type(), f, &[dst, src, len, constant::int(Type::int(b.context(), 1), 0)]);
}

/// Runs `default<O2>` on a whole module (no target machine: the caller is
/// target-independent IR apart from its function attributes).
pub fn run_o2(module: Module) -> Result<(), String> {
    batchify_core::llvm::run_module_passes(module, "default<O2>")
}
