//! Array-form requests: a front end that cannot express vector types (Rust
//! without `core::arch`, a C caller that wants plain arrays) asks for a
//! variant by *defining* a function named [`ARRAY_PREFIX`] + the variant's
//! Vector Function ABI name, e.g. `__batchify_array__ZGVdN8vv_foo`, with
//! this C signature (documented in `docs/plugin.md`):
//!
//! ```text
//! void __batchify_array_<variant>([R *out,] P0 a0, P1 a1, ... [, const uint8_t *mask])
//! ```
//!
//! * `out` (when the scalar function returns `R`): `N` results;
//! * a varying parameter of scalar type `T` is a `const T *` to `N`
//!   values; a uniform or linear one is passed as the scalar function
//!   takes it (for linear: lane 0's value);
//! * masked (`M`) variants take `N` bytes, nonzero = active; inactive
//!   lanes' results are not written.
//!
//! The definition's own body must compute the same thing with scalar calls
//! (it is what runs when batchify does not). Where the scalar function's
//! body is in the module, batchify builds the variant and replaces the
//! request's body with one call of it ([`complete`]).

use crate::abi;
use crate::error::{Error, Result};
use crate::llvm::{constant, Builder, LLVMIntPredicate, LLVMOpcode, Module, Type, Value, FUNCTION_INDEX};
use crate::spec::CloneSpec;
use crate::vfabi::{ParamKind, VariantName};

/// The name prefix of an array-form request.
pub const ARRAY_PREFIX: &str = "__batchify_array_";

/// One array-form request found in a module.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArrayRequest {
    /// The request function's name.
    pub name: String,
    /// The variant it asks for.
    pub spec: CloneSpec,
}

/// Every defined request in the module whose name parses as a variant.
/// Names that do not parse are errors: the prefix is reserved.
pub fn requests(module: Module) -> Result<Vec<ArrayRequest>> {
    Ok(defined_requests(module, ARRAY_PREFIX)?.into_iter().map(|(name, spec)| ArrayRequest { name, spec }).collect())
}

/// The functions the module defines named `prefix` + a variant's name
/// (requests: array forms, maps), with the variant's spec. A name that
/// does not parse is an error: the prefix is reserved.
pub(crate) fn defined_requests(module: Module, prefix: &str) -> Result<Vec<(String, CloneSpec)>> {
    let mut out = Vec::new();
    for f in module.functions() {
        let name = f.name();
        let Some(variant) = name.strip_prefix(prefix) else { continue };
        if f.is_declaration() {
            continue;
        }
        let v = VariantName::parse(variant).map_err(|e| Error::BadVariant(format!("`{name}`: {e}")))?;
        let spec = CloneSpec::from_variant(&v)?;
        out.push((name, spec));
    }
    Ok(out)
}

/// Whether `request`'s body already calls its variant (built by an
/// earlier run).
pub fn is_complete(module: Module, request: &ArrayRequest) -> bool {
    let Some(f) = module.function(&request.name) else { return true };
    let Some(variant) = module.function(&request.spec.vector_name) else { return false };
    f.blocks().len() == 1 && f.blocks()[0].instructions().iter().any(|i| i.is_call() && i.called_value() == variant)
}

/// Replaces the request's body with loads of its arrays, one call of the
/// built variant, and the store of its results. Fails (changing nothing)
/// when the request's signature does not fit the variant.
pub fn complete(module: Module, request: &ArrayRequest) -> Result<()> {
    let spec = &request.spec;
    let mismatch = |reason: String| Error::VariantMismatch {
        variant: request.name.clone(),
        reason: format!("array form: {reason}"),
    };
    let f = module.function(&request.name).ok_or_else(|| mismatch("the request function is gone".into()))?;
    let scalar = module.function(&spec.scalar_name).ok_or_else(|| mismatch("no scalar function".into()))?;
    let variant = module
        .function(&spec.vector_name)
        .filter(|v| !v.is_declaration())
        .ok_or_else(|| mismatch("the variant was not built".into()))?;
    let ctx = module.context();
    let ptr = Type::ptr(ctx);
    let sty = scalar.function_type();
    // The variant's natural type; its symbol may have GCC's lowered one
    // (results in memory, arguments in register-sized pieces).
    let abi::CloneAbi { natural: vty, lowering } = abi::CloneAbi::of(scalar, spec)?;
    let returns = !sty.return_type().is_void();
    let want: Vec<Type> = returns
        .then_some(ptr)
        .into_iter()
        .chain(sty.param_types().iter().zip(&spec.params).map(|(t, k)| if *k == ParamKind::Vector { ptr } else { *t }))
        .chain(spec.mask.map(|_| ptr))
        .collect();
    let have = f.function_type().param_types();
    if have != want || !f.function_type().return_type().is_void() {
        return Err(mismatch(format!(
            "its type is `{}`, the variant needs `void ({})`",
            f.function_type().print(),
            want.iter().map(|t| t.print()).collect::<Vec<_>>().join(", ")
        )));
    }
    let n = spec.width;
    f.delete_body();
    copy_target_attributes(variant, f);
    let b = Builder::new(ctx);
    b.position_at_end(f.append_block("entry"));
    let ps = f.params();
    let first = usize::from(returns);
    let unread = unread_params(scalar, Some(f), first);
    let mut args = Vec::new();
    for (i, (t, kind)) in sty.param_types().iter().zip(&spec.params).enumerate() {
        let p = ps[first + i];
        args.push(match kind {
            ParamKind::Vector if unread[i] => zero_lanes(*t, n),
            ParamKind::Vector => load_lanes(module, &b, *t, n, p),
            _ => p,
        });
    }
    let lanes_on = spec.mask.map(|abi| {
        let bytes = b.load(Type::int(ctx, 8).vector_of(n), ps[ps.len() - 1], 1);
        let on = b.icmp(LLVMIntPredicate::LLVMIntNE, bytes, constant::null(bytes.ty()));
        args.push(abi::encode_mask(&b, abi, on, vty.param_types()[args.len()]));
        on
    });
    let result = match &lowering {
        Some(l) => crate::shell::gcc_adapter::call_lowered(&b, variant, &args, l).1,
        None => {
            let r = b.call(vty, variant, &args);
            r.set_call_conv(variant.call_conv());
            (!vty.return_type().is_void()).then_some(r)
        }
    };
    if let (true, Some(r)) = (returns, result) {
        store_lanes(module, &b, r, ps[0], lanes_on);
    }
    b.ret(None);
    Ok(())
}

/// Gives `caller` the target attributes of the variant `variant` it
/// calls. Vector arguments travel in the registers the caller's features
/// allow: a caller must have the variant's, or the two disagree on where
/// `<8 x float>` is (two `xmm` registers against one `ymm`).
pub(crate) fn copy_target_attributes(variant: Value, caller: Value) {
    for key in ["target-cpu", "tune-cpu", "target-features", "min-legal-vector-width"] {
        if let Some(v) = variant.string_attribute(FUNCTION_INDEX, key) {
            caller.set_string_attribute(FUNCTION_INDEX, key, &v);
        }
    }
}

/// The type lanes are kept in memory as: `i1` as one byte (as C's and
/// Rust's `bool` are), other integers whose width is not a power of two
/// bytes in the next power of two bytes (`i17` and `i24` in four).
pub(crate) fn memory_element(t: Type) -> Type {
    let w = t.int_width();
    if w > 0 && (w < 8 || !w.is_power_of_two()) {
        // A power of two bytes: a vector of `N` such elements covers exactly
        // `N` array elements (a vector of `i24` would be packed, an array not).
        Type::int(t.context(), w.div_ceil(8).next_power_of_two() * 8)
    } else {
        t
    }
}

/// Which of `scalar`'s parameters an entry point that takes them in arrays
/// (an array-form request or a map, `entry`, whose parameter `first + i`
/// holds the scalar's parameter `i`) must not read: those the scalar
/// function does not use, and those some call of `entry` passes as `undef`
/// or `poison`. LLVM gives a request's caller `poison` for an array the
/// request's scalar body never read (a Rust `#[batch]` function that
/// ignores a parameter: the slice API then passed a poison pointer, and the
/// completed request loaded through it and crashed). The result of the
/// function does not depend on such a parameter, so the entry point passes
/// zeros in its place ([`zero_lanes`]).
pub(crate) fn unread_params(scalar: Value, entry: Option<Value>, first: usize) -> Vec<bool> {
    let calls: Vec<Value> = entry
        .map(|e| e.users().into_iter().filter(|u| u.is_call() && u.called_value() == e).collect())
        .unwrap_or_default();
    let defined = !scalar.is_declaration();
    let params = scalar.params();
    (0..params.len())
        .map(|i| {
            (defined && params[i].users().is_empty())
                || calls
                    .iter()
                    .any(|c| (first + i) < c.num_arg_operands() as usize && c.operand((first + i) as u32).is_undef())
        })
        .collect()
}

/// `n` lanes of zero of type `t`: what an entry point passes for a
/// parameter it must not read ([`unread_params`]).
pub(crate) fn zero_lanes(t: Type, n: u32) -> Value {
    constant::null(t.vector_of(n))
}

pub(crate) fn load_lanes<'ctx>(
    module: Module<'ctx>,
    b: &Builder<'ctx>,
    t: Type<'ctx>,
    n: u32,
    p: Value<'ctx>,
) -> Value<'ctx> {
    let m = memory_element(t);
    let v = b.load(m.vector_of(n), p, module.abi_alignment_of(m));
    if m != t {
        b.cast(LLVMOpcode::LLVMTrunc, v, t.vector_of(n))
    } else {
        v
    }
}

pub(crate) fn store_lanes<'ctx>(
    module: Module<'ctx>,
    b: &Builder<'ctx>,
    v: Value<'ctx>,
    p: Value<'ctx>,
    on: Option<Value<'ctx>>,
) {
    let t = v.ty().element();
    let m = memory_element(t);
    let n = v.ty().vector_len();
    let v = if m != t { b.cast(LLVMOpcode::LLVMZExt, v, m.vector_of(n)) } else { v };
    let align = module.abi_alignment_of(m);
    match on {
        None => {
            b.store(v, p, align);
        }
        Some(on) => {
            let store = module
                .intrinsic("llvm.masked.store", &[v.ty(), p.ty()])
                .expect("llvm.masked.store exists for every vector type");
            let call = b.call(store.function_type(), store, &[v, p, on]);
            call.add_call_arg_attribute(1, "align", align as u64);
        }
    }
}
