//! Enzyme's batch API: a call
//!
//! ```text
//! r = __enzyme_batch(f, enzyme_width, N, [marker,] arg, ...)
//! ```
//!
//! asks for `f` applied to `N` lanes at once. This module finds such calls
//! (no flag needed, in the CLI and in the pass plugin), builds `f`'s
//! `N`-lane clone with the ordinary pipeline, and replaces each call with
//! a call of a generated `batch_<f>` that packs the lanes into vectors,
//! calls the clone and unpacks its result. Unlike Enzyme's own batcher,
//! lane-divergent branches and loops and calls with varying arguments
//! work, since the clone is batchify's.
//!
//! The call's arguments, as Enzyme reads them (`docs/enzyme-batch.md`):
//!
//! * `f`: a function with a body in the module (first argument, or second
//!   after a `sret` pointer);
//! * `enzyme_width, N`: exactly once, anywhere, `N` a constant integer;
//! * each of `f`'s parameters in order, introduced by an optional marker:
//!   `enzyme_vector` (the default when `N > 1`): `N` arguments, lane `k`'s
//!   value is the `k`-th; `enzyme_scalar`: one argument shared by all lanes;
//!   `enzyme_buffer, offset, ptr`: lane `k` gets `ptr + k*offset` bytes.
//!
//! A marker is a metadata string (`metadata !"enzyme_vector"` in IR), or a
//! global variable of that name, or a load from one (`extern int
//! enzyme_vector;` in C). The result, `[N x R]` for `f` returning `R`, is
//! delivered in the shape the call site has: the array itself, any type of
//! the same size (a C `struct` of `N` fields, which clang may return in
//! registers as `{ <2 x float>, <2 x float> }`), or stored through the
//! call's `sret` pointer. C's default argument promotions are undone
//! (`double` to a `float` parameter, `int` to a narrower integer).
//!
//! Where the clone cannot be built (a construct batchify does not handle),
//! `batch_<f>` calls `f` once per lane instead, and the report says so.

use crate::error::{Error, Result};
use crate::llvm::{constant, Builder, LLVMGEPNoWrapFlags, LLVMOpcode, LLVMTypeKind, Module, Type, Value};
use crate::spec::CloneSpec;
use crate::vfabi::{Isa, Param, ParamKind, VariantName};
use crate::{CloneReport, Options};

/// Calls of functions whose name starts with this are batch requests.
pub const ENTRY_PREFIX: &str = "__enzyme_batch";

/// How one parameter of the batched function gets its lanes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// One argument per lane.
    Vector,
    /// One argument for every lane.
    Scalar,
    /// A base pointer and a byte offset between lanes.
    Buffer,
}

/// Where one parameter's lanes come from, at one call.
enum Source<'ctx> {
    Lanes(Vec<Value<'ctx>>),
    Shared(Value<'ctx>),
    Buffer { base: Value<'ctx>, offset: Value<'ctx> },
}

impl Source<'_> {
    fn kind(&self) -> Kind {
        match self {
            Source::Lanes(_) => Kind::Vector,
            Source::Shared(_) => Kind::Scalar,
            Source::Buffer { .. } => Kind::Buffer,
        }
    }
}

/// One parsed `__enzyme_batch` call.
struct BatchCall<'ctx> {
    call: Value<'ctx>,
    scalar: Value<'ctx>,
    width: u32,
    sources: Vec<Source<'ctx>>,
    /// The call's `sret` pointer and its pointee type, if it returns
    /// through memory.
    sret: Option<(Value<'ctx>, Type<'ctx>)>,
    /// Marker arguments (loads of `enzyme_*` globals), removed with the call.
    markers: Vec<Value<'ctx>>,
}

impl<'ctx> BatchCall<'ctx> {
    fn kinds(&self) -> Vec<Kind> {
        self.sources.iter().map(Source::kind).collect()
    }

    /// The clone this call needs (none for width 1: `f` itself serves).
    fn spec(&self) -> Option<CloneSpec> {
        (self.width > 1).then(|| clone_spec(&self.scalar.name(), self.width, &self.kinds()))
    }
}

/// What [`run`] did.
#[derive(Debug, Default)]
pub struct Outcome {
    /// The clones built for the calls (one per function, width and
    /// argument kinds), as the other front doors report them.
    pub reports: Vec<CloneReport>,
    /// Clones that could not be built, with why (their `batch_<f>` calls
    /// `f` once per lane).
    pub failed: Vec<(CloneSpec, Error)>,
    /// One line per replaced call.
    pub notes: Vec<String>,
}

/// Replaces every `__enzyme_batch` call of the module: builds the clones
/// they need (with `opts`), the `batch_<f>` functions, and the calls.
/// A malformed call is an error, and then nothing is changed.
pub fn run(module: Module, opts: &Options) -> Result<Outcome> {
    let mut out = Outcome::default();
    let before = crate::vector_widths::Snapshot::take(module);
    let calls = parse_all(module)?;
    if calls.is_empty() {
        return Ok(out);
    }
    let mut specs: Vec<CloneSpec> = Vec::new();
    for c in &calls {
        if let Some(s) = c.spec() {
            if !specs.contains(&s) {
                specs.push(s);
            }
        }
    }
    drop(calls);
    for spec in specs {
        if module.function(&spec.vector_name).is_some_and(|f| !f.is_declaration()) {
            continue;
        }
        match crate::batchify_module(module, std::slice::from_ref(&spec), opts) {
            Ok(mut r) => {
                if let Some(clone) = module.function(&spec.vector_name) {
                    clone.set_internal();
                }
                out.reports.append(&mut r);
            }
            Err(e) => out.failed.push((spec, e)),
        }
    }
    // Building clones adds functions; parse again rather than keep handles
    // across it.
    for c in parse_all(module)? {
        out.notes.push(replace(module, &c)?);
    }
    remove_unused_declarations(module);
    // The functions that now call a clone (or `batch_<f>`) pass its vectors
    // in the registers it reads.
    before.cover_changed(module);
    module.verify().map_err(|message| Error::Internal { function: "__enzyme_batch".into(), message })?;
    Ok(out)
}

/// Whether the module holds a `__enzyme_batch` call.
pub fn has_calls(module: Module) -> bool {
    module.functions().into_iter().any(|f| f.name().starts_with(ENTRY_PREFIX) && !f.users().is_empty())
}

/// The clone spec for `f` at `width` lanes: vector and buffer parameters
/// varying, scalar ones uniform; target-independent ISA (the clone is
/// internal, called only by `batch_<f>`), unmasked.
fn clone_spec(scalar: &str, width: u32, kinds: &[Kind]) -> CloneSpec {
    let params: Vec<Param> = kinds
        .iter()
        .map(|k| Param { kind: if *k == Kind::Scalar { ParamKind::Uniform } else { ParamKind::Vector }, align: None })
        .collect();
    CloneSpec {
        scalar_name: scalar.to_string(),
        vector_name: VariantName::mangle(Isa::Llvm, false, width, &params, scalar),
        width,
        params: params.iter().map(|p| p.kind).collect(),
        aligns: vec![None; params.len()],
        mask: None,
        isa: Isa::Llvm,
    }
}

fn parse_all(module: Module) -> Result<Vec<BatchCall>> {
    let mut out = Vec::new();
    for entry in module.functions().into_iter().filter(|f| f.name().starts_with(ENTRY_PREFIX)) {
        for user in entry.users() {
            if user.is_call() && user.called_value() == entry {
                out.push(parse(user)?);
            } else if user.is_invoke() || user.is_callbr() {
                let caller = user.parent_block().parent().name();
                return Err(call_error(&caller, "is an `invoke`; declare `__enzyme_batch` `nounwind` (`noexcept`)"));
            }
        }
    }
    Ok(out)
}

fn call_error(caller: &str, message: &str) -> Error {
    Error::BatchCall { caller: caller.to_string(), message: message.to_string() }
}

/// The marker an argument stands for: a metadata string, a global
/// variable, or a load from one.
fn marker(v: Value) -> Option<String> {
    if let Some(s) = v.metadata_string() {
        return Some(s);
    }
    if v.is_global_variable() {
        return Some(v.name());
    }
    if v.is_instruction() && v.opcode() == LLVMOpcode::LLVMLoad && v.operand(0).is_global_variable() {
        return Some(v.operand(0).name());
    }
    None
}

fn parse(call: Value<'_>) -> Result<BatchCall<'_>> {
    let caller = call.parent_block().parent().name();
    let fail = |m: String| call_error(&caller, &m);
    let nargs = call.num_arg_operands();
    let args: Vec<Value> = (0..nargs).map(|i| call.operand(i)).collect();
    let sret_ty = call.call_arg_type_attribute(0, "sret");
    let first = usize::from(sret_ty.is_some());
    let sret = sret_ty.map(|t| (args[0], t));
    let f = args.get(first).copied().ok_or_else(|| fail("has no function argument".into()))?;
    let scalar = if f.is_function() {
        f
    } else if f.is_global_alias() && f.aliasee().is_some_and(|a| a.is_function()) {
        f.aliasee().expect("checked")
    } else {
        return Err(fail(format!("its first argument must be a function, found `{}`", f.print().trim())));
    };
    let name = scalar.name();
    if scalar.is_declaration() {
        return Err(fail(format!("`{name}` has no body in this module")));
    }
    let fail = |m: String| call_error(&caller, &format!("`__enzyme_batch({name}, ...)`: {m}"));
    // enzyme_width: exactly once, followed by a constant.
    let mut width = None;
    let mut markers = Vec::new();
    for (i, a) in args.iter().enumerate().skip(first + 1) {
        if marker(*a).as_deref() == Some("enzyme_width") {
            if width.is_some() {
                return Err(fail("`enzyme_width` is given twice".into()));
            }
            let n = args
                .get(i + 1)
                .ok_or_else(|| fail("`enzyme_width` is the last argument; the width must follow".into()))?;
            let n = n
                .const_int_value()
                .ok_or_else(|| fail("the width after `enzyme_width` must be a constant integer".into()))?;
            if !(1..=1024).contains(&n) {
                return Err(fail(format!("width {n} is out of range 1..=1024")));
            }
            width = Some(n as u32);
        }
    }
    let width = width.ok_or_else(|| fail("no `enzyme_width, N` argument".into()))?;
    let params = scalar.function_type().param_types();
    let mut sources = Vec::new();
    let mut i = first + 1;
    while i < args.len() {
        let mut kind = if width == 1 { Kind::Scalar } else { Kind::Vector };
        if let Some(m) = marker(args[i]).filter(|m| m.starts_with("enzyme_")) {
            if args[i].is_instruction() && !markers.contains(&args[i]) {
                markers.push(args[i]);
            }
            kind = match m.as_str() {
                "enzyme_width" => {
                    i += 2;
                    continue;
                }
                "enzyme_vector" => Kind::Vector,
                "enzyme_scalar" => Kind::Scalar,
                "enzyme_buffer" => Kind::Buffer,
                other => {
                    return Err(fail(format!(
                    "unknown marker `{other}` (expected enzyme_vector, enzyme_scalar, enzyme_buffer or enzyme_width)"
                )))
                }
            };
            i += 1;
        }
        let p = sources.len();
        if p >= params.len() {
            return Err(fail(format!("too many arguments: `{name}` takes {} parameter(s)", params.len())));
        }
        let missing = |what: &str| fail(format!("parameter {p} of `{name}`: missing {what}"));
        match kind {
            Kind::Scalar => {
                let v = *args.get(i).ok_or_else(|| missing("its argument"))?;
                sources.push(Source::Shared(v));
                i += 1;
            }
            Kind::Vector => {
                if i + width as usize > args.len() {
                    return Err(missing(&format!("lanes: {width} arguments are needed, {} are left", args.len() - i)));
                }
                sources.push(Source::Lanes(args[i..i + width as usize].to_vec()));
                i += width as usize;
            }
            Kind::Buffer => {
                let (offset, base) = match (args.get(i), args.get(i + 1)) {
                    (Some(o), Some(b)) => (*o, *b),
                    _ => return Err(missing("`enzyme_buffer`'s offset and pointer")),
                };
                if offset.ty().kind() != LLVMTypeKind::LLVMIntegerTypeKind {
                    return Err(fail(format!(
                        "parameter {p}: `enzyme_buffer` must be followed by an integer byte offset"
                    )));
                }
                if base.ty().kind() != LLVMTypeKind::LLVMPointerTypeKind
                    || params[p].kind() != LLVMTypeKind::LLVMPointerTypeKind
                {
                    return Err(fail(format!("parameter {p}: `enzyme_buffer` needs a pointer argument and parameter")));
                }
                sources.push(Source::Buffer { base, offset });
                i += 2;
            }
        }
    }
    if sources.len() < params.len() {
        return Err(fail(format!(
            "too few arguments: `{name}` takes {} parameter(s), {} given",
            params.len(),
            sources.len()
        )));
    }
    // Every argument must convert to its parameter's type.
    for (p, (s, t)) in sources.iter().zip(&params).enumerate() {
        let values: Vec<Value> = match s {
            Source::Lanes(v) => v.clone(),
            Source::Shared(v) => vec![*v],
            Source::Buffer { base, .. } => vec![*base],
        };
        for v in values {
            if !converts(v.ty(), *t) {
                return Err(fail(format!(
                    "parameter {p} of `{name}` is `{}`, the argument is `{}`",
                    t.print(),
                    v.ty().print()
                )));
            }
        }
    }
    Ok(BatchCall { call, scalar, width, sources, sret, markers })
}

/// Whether an argument of type `from` can be passed as `to`: the same
/// type, or what C's default argument promotions made of it.
fn converts(from: Type, to: Type) -> bool {
    use LLVMTypeKind::*;
    from == to
        || matches!((from.kind(), to.kind()), (LLVMDoubleTypeKind, LLVMFloatTypeKind))
        || (from.kind() == LLVMIntegerTypeKind && to.kind() == LLVMIntegerTypeKind && from.int_width() > to.int_width())
}

fn convert<'ctx>(b: &Builder<'ctx>, v: Value<'ctx>, to: Type<'ctx>) -> Value<'ctx> {
    if v.ty() == to {
        v
    } else if to.kind() == LLVMTypeKind::LLVMFloatTypeKind {
        b.cast(LLVMOpcode::LLVMFPTrunc, v, to)
    } else {
        b.cast(LLVMOpcode::LLVMTrunc, v, to)
    }
}

/// `batch_<f>`'s return type: `[N x R]` (`R` for width 1), or void.
fn batch_return(scalar: Value, width: u32) -> Type {
    let r = scalar.function_type().return_type();
    if r.is_void() || width == 1 {
        r
    } else {
        r.array_of(width)
    }
}

/// Replaces one call; returns its note.
fn replace<'ctx>(module: Module<'ctx>, c: &BatchCall<'ctx>) -> Result<String> {
    let caller_fn = c.call.parent_block().parent();
    let caller = caller_fn.name();
    let name = c.scalar.name();
    let (batch, vectorized) = batch_function(module, c)?;
    let b = Builder::new(module.context());
    b.position_before(c.call);
    let ctx = module.context();
    let i8t = Type::int(ctx, 8);
    let params = c.scalar.function_type().param_types();
    let mut args = Vec::new();
    for (s, t) in c.sources.iter().zip(&params) {
        args.push(match s {
            Source::Shared(v) => convert(&b, *v, *t),
            Source::Lanes(vs) if c.width == 1 => convert(&b, vs[0], *t),
            Source::Lanes(vs) => {
                let mut arr = constant::poison(t.array_of(c.width));
                for (k, v) in vs.iter().enumerate() {
                    arr = b.insert_value(arr, convert(&b, *v, *t), k as u32);
                }
                arr
            }
            Source::Buffer { base, offset } => {
                let mut arr = constant::poison(t.array_of(c.width));
                for k in 0..c.width {
                    let off = b.binop(LLVMOpcode::LLVMMul, *offset, constant::int(offset.ty(), u64::from(k)));
                    let p = b.gep(i8t, *base, &[off], LLVMGEPNoWrapFlags::default());
                    arr = b.insert_value(arr, p, k);
                }
                arr
            }
        });
    }
    let result = b.call(batch.function_type(), batch, &args);
    deliver(module, &b, c, result).map_err(|m| call_error(&caller, &format!("`__enzyme_batch({name}, ...)`: {m}")))?;
    c.call.erase();
    for m in &c.markers {
        if m.users().is_empty() {
            m.erase();
        }
    }
    let how = match (vectorized, c.spec()) {
        (true, Some(s)) => format!("calls `{}`", s.vector_name),
        _ => format!("calls `{name}` once per lane"),
    };
    Ok(format!("{caller}: __enzyme_batch({name}, width {}) -> `{}` ({how})", c.width, batch.name()))
}

/// Hands `result` (`[N x R]`) to the call's users in the shape they expect.
fn deliver<'ctx>(
    module: Module<'ctx>,
    b: &Builder<'ctx>,
    c: &BatchCall<'ctx>,
    result: Value<'ctx>,
) -> std::result::Result<(), String> {
    let rty = result.ty();
    let want = c.call.ty();
    let size = |t: Type| module.abi_size_of(t);
    if rty.is_void() {
        if !want.is_void() {
            c.call.replace_all_uses_with(constant::poison(want));
        }
        return Ok(());
    }
    if let Some((ptr, pointee)) = c.sret {
        if size(pointee) < size(rty) {
            return Err(format!(
                "the result `{}` ({} bytes) does not fit the `sret` type `{}` ({} bytes)",
                rty.print(),
                size(rty),
                pointee.print(),
                size(pointee)
            ));
        }
        let align = module.abi_alignment_of(pointee).min(module.abi_alignment_of(rty));
        b.store(result, ptr, align);
        if !want.is_void() {
            c.call.replace_all_uses_with(constant::poison(want));
        }
        return Ok(());
    }
    if want.is_void() {
        return Ok(());
    }
    if want == rty {
        c.call.replace_all_uses_with(result);
        return Ok(());
    }
    if size(want) != size(rty) {
        return Err(format!(
            "the result `{}` ({} bytes) cannot be returned as `{}` ({} bytes)",
            rty.print(),
            size(rty),
            want.print(),
            size(want)
        ));
    }
    // Same size, other type (a C struct, maybe coerced to registers):
    // through memory, as a C union would.
    let entry = c.call.parent_block().parent().blocks()[0];
    let eb = Builder::new(module.context());
    eb.position_before(entry.instructions()[0]);
    // The two types have the same size; the slot is aligned for both.
    let slot = eb.alloca(want);
    let align = module.abi_alignment_of(want).max(module.abi_alignment_of(rty));
    slot.set_alignment(align);
    b.store(result, slot, align);
    let v = b.load(want, slot, align);
    c.call.replace_all_uses_with(v);
    Ok(())
}

/// The `batch_<f>` function for this call's function, width and argument
/// kinds: found if an earlier call made it, else made. Returns it and
/// whether it calls the vector clone (else it calls `f` once per lane).
fn batch_function<'ctx>(module: Module<'ctx>, c: &BatchCall<'ctx>) -> Result<(Value<'ctx>, bool)> {
    let ctx = module.context();
    let name = c.scalar.name();
    let spec = c.spec();
    let key = spec.as_ref().map_or_else(|| format!("{name}:1"), |s| s.vector_name.clone());
    let clone = spec.as_ref().and_then(|s| module.function(&s.vector_name)).filter(|f| !f.is_declaration());
    let params = c.scalar.function_type().param_types();
    let arg_types: Vec<Type> = params
        .iter()
        .zip(c.kinds())
        .map(|(t, k)| if k == Kind::Scalar || c.width == 1 { *t } else { t.array_of(c.width) })
        .collect();
    let fty = Type::function(batch_return(c.scalar, c.width), &arg_types);
    // Reuse: same key attribute.
    for f in module.functions() {
        if f.name().starts_with("batch_")
            && f.string_attribute(crate::llvm::FUNCTION_INDEX, BATCH_KEY).as_deref() == Some(&key)
        {
            return Ok((f, clone.is_some()));
        }
    }
    let mut fname = format!("batch_{name}");
    let mut n = 1;
    while module.has_global_named(&fname) {
        fname = format!("batch_{name}.{n}");
        n += 1;
    }
    let f = module.add_function(&fname, fty);
    f.set_internal();
    f.set_string_attribute(crate::llvm::FUNCTION_INDEX, BATCH_KEY, &key);
    let caller = c.call.parent_block().parent();
    for k in ["target-cpu", "target-features"] {
        if let Some(v) = caller.string_attribute(crate::llvm::FUNCTION_INDEX, k) {
            f.set_string_attribute(crate::llvm::FUNCTION_INDEX, k, &v);
        }
    }
    let b = Builder::new(ctx);
    b.position_at_end(f.append_block("entry"));
    let ps = f.params();
    let ret = match (clone, &spec) {
        (Some(clone), Some(spec)) => {
            let vty = crate::abi::clone_type(c.scalar, spec)?;
            let vparams = vty.param_types();
            let mut args = Vec::new();
            for (i, k) in c.kinds().into_iter().enumerate() {
                args.push(if k == Kind::Scalar {
                    ps[i]
                } else {
                    let lanes: Vec<Value> = (0..c.width).map(|l| b.extract_value(ps[i], l)).collect();
                    pack(&b, &lanes, vparams[i])
                });
            }
            let r = b.call(vty, clone, &args);
            r.set_call_conv(clone.call_conv());
            let sret = c.scalar.function_type().return_type();
            (!sret.is_void()).then(|| {
                let mut arr = constant::poison(sret.array_of(c.width));
                for l in 0..c.width {
                    arr = b.insert_value(arr, unpack(&b, r, sret, l), l);
                }
                arr
            })
        }
        _ => {
            let sty = c.scalar.function_type();
            let mut arr = (!sty.return_type().is_void() && c.width > 1)
                .then(|| constant::poison(sty.return_type().array_of(c.width)));
            let mut single = None;
            for l in 0..c.width {
                let args: Vec<Value> = c
                    .kinds()
                    .into_iter()
                    .enumerate()
                    .map(|(i, k)| if k == Kind::Scalar || c.width == 1 { ps[i] } else { b.extract_value(ps[i], l) })
                    .collect();
                let r = b.call(sty, c.scalar, &args);
                r.set_call_conv(c.scalar.call_conv());
                if let Some(a) = arr {
                    arr = Some(b.insert_value(a, r, l));
                } else if !sty.return_type().is_void() {
                    single = Some(r);
                }
            }
            arr.or(single)
        }
    };
    b.ret(ret);
    Ok((f, clone.is_some()))
}

/// The string attribute naming what a `batch_<f>` computes (the clone's
/// name, or `f:1`), so that calls with the same shape share one.
const BATCH_KEY: &str = "batchify-enzyme-batch";

/// The clone's form of `lanes` (scalar values, one per lane) for a
/// parameter of clone type `vty`: a vector, or a struct/array of them.
fn pack<'ctx>(b: &Builder<'ctx>, lanes: &[Value<'ctx>], vty: Type<'ctx>) -> Value<'ctx> {
    if vty.is_aggregate() {
        let mut agg = constant::poison(vty);
        for (i, m) in vty.members().into_iter().enumerate() {
            let parts: Vec<Value> = lanes.iter().map(|l| b.extract_value(*l, i as u32)).collect();
            agg = b.insert_value(agg, pack(b, &parts, m), i as u32);
        }
        agg
    } else {
        let mut v = constant::poison(vty);
        for (k, l) in lanes.iter().enumerate() {
            v = b.insert_element(v, *l, k as u32);
        }
        v
    }
}

/// Lane `lane` of a clone value `v` (a vector, or a struct/array of them),
/// as a value of the scalar type `sty`.
fn unpack<'ctx>(b: &Builder<'ctx>, v: Value<'ctx>, sty: Type<'ctx>, lane: u32) -> Value<'ctx> {
    if sty.is_aggregate() {
        let mut agg = constant::poison(sty);
        for (i, m) in sty.members().into_iter().enumerate() {
            agg = b.insert_value(agg, unpack(b, b.extract_value(v, i as u32), m, lane), i as u32);
        }
        agg
    } else {
        b.extract_element(v, lane)
    }
}

/// Removes what the replaced calls leave unused: `__enzyme_batch*`
/// declarations and declared `enzyme_*` marker globals (so that the
/// program links without defining them).
fn remove_unused_declarations(module: Module) {
    for f in module.functions() {
        if f.name().starts_with(ENTRY_PREFIX) && f.is_declaration() && f.users().is_empty() {
            f.delete_function();
        }
    }
    for g in module.global_variables() {
        if g.name().starts_with("enzyme_") && g.initializer().is_none() && g.users().is_empty() {
            g.delete_global();
        }
    }
}
