//! The caller side of `declare simd`: lets LLVM's loop vectorizer call the
//! variants of the functions a module calls (documented in `docs/cli.md`,
//! "Caller side", and `docs/gcc-abi.md`).
//!
//! clang `-fopenmp-simd` lists a `declare simd` function's variants as
//! string attributes (`"_ZGVdN8v_foo"`) on the function, defined or only
//! declared in this module, but nothing asks the loop vectorizer to use
//! them. [`annotate`] does, for every direct call of such a function:
//!
//! * it picks, per shape (width, masking, parameter kinds), the variant of
//!   the widest x86 ISA that the calling function's `target-features`
//!   allow (AVX-512F `e`, AVX2 `d`, AVX `c`, SSE2 `b`; `_LLVM_` last);
//! * it declares each variant with batchify's type for it
//!   ([`crate::abi::public_type`], GCC's lowering included), unless a
//!   function of that name exists already: with that type it is used, with
//!   another it is left alone (a note says so);
//! * where LLVM's vectorizer would call the variant with another type than
//!   the symbol's (GCC's masks instead of `<N x i1>`, results in memory,
//!   vectors in register-sized pieces), it adds an internal adapter
//!   `__batchify.call.NAME` of the type LLVM derives from the scalar
//!   function, which converts and calls the variant;
//! * it adds `NAME(TARGET)` entries to the call's
//!   `vector-function-abi-variant` attribute (TARGET: the variant or its
//!   adapter) and keeps declarations and adapters alive in
//!   `@llvm.compiler.used`, so that no pass deletes them before the loop
//!   vectorizer runs.
//!
//! An `invoke` of such a function inside an `omp simd` loop whose
//! exception would end the program is made a call first ([`invokes`]); any
//! other `invoke` is left scalar, with a note.
//!
//! Running it twice changes nothing more. Calls inside clones and
//! batchify's helpers are left alone.

pub mod invokes;
pub mod loops;

use crate::abi;
use crate::llvm::{attribute_is_string, attribute_string_key, Builder, Module, Value, FUNCTION_INDEX as FN};
use crate::spec::{CloneSpec, MaskAbi};
use crate::vector_widths;
use crate::vfabi::{Isa, VariantName};
use std::collections::HashMap;

/// Prefix of the adapters between LLVM's call of a variant and its symbol.
pub const ADAPTER_PREFIX: &str = "__batchify.call.";

/// Call-site attribute that lists the vector variants of a call.
const ATTRIBUTE: &str = "vector-function-abi-variant";

/// Annotates every call of a function with `declare simd` variants in
/// `module` (see the module documentation) and returns one note per
/// annotated caller and callee, and per variant left out.
pub fn annotate(module: Module) -> Vec<String> {
    let mut notes = Vec::new();
    let mut keep = Vec::new();
    // Variant name -> its mapping entry and the function the vectorizer
    // will call (`None`: unusable), made once.
    let mut entries: HashMap<String, Option<(String, Value)>> = HashMap::new();
    // Callers whose `invoke`s no longer unwind: `simplifycfg` makes them calls.
    let mut made_calls: Vec<Value> = Vec::new();
    for callee in module.functions() {
        let variants = built_or_promised(module, callee, declared_variants(callee), &mut notes);
        if variants.is_empty() {
            continue;
        }
        // A full LTO link internalizes a `declare simd` function and gives
        // it `fastcc` where only calls use it (the module that calls it is
        // merged with this one); the loop vectorizer then widens no call of
        // it. Kept used, it keeps its convention.
        if !callee.is_declaration() && !keep.contains(&callee) {
            keep.push(callee);
        }
        let calls: Vec<Value> = callee
            .users()
            .into_iter()
            .filter(|u| (u.is_call() || u.is_invoke()) && u.called_value() == callee)
            .collect();
        let mut annotated: Vec<String> = Vec::new();
        let mut has_variants_in_calls = false;
        for call in calls {
            let caller = call.parent_block().parent();
            let caller_name = caller.name();
            if caller_name.starts_with("_ZGV") || caller_name.starts_with(crate::callee_clones::HELPER_PREFIX) {
                continue;
            }
            if call.is_invoke() {
                if let Some(why) = invokes::why_not(call) {
                    notes.push(format!(
                        "`{caller_name}` calls `{}` with an `invoke`, left scalar: {why} (declare `{}` \
                         `noexcept` to make it a call)",
                        callee.name(),
                        callee.name()
                    ));
                    continue;
                }
                invokes::no_unwind(call);
                if !made_calls.contains(&caller) {
                    made_calls.push(caller);
                }
            }
            let mut list: Vec<String> = call
                .call_string_attribute(ATTRIBUTE)
                .map(|s| s.split(',').map(|e| e.trim().to_string()).filter(|e| !e.is_empty()).collect())
                .unwrap_or_default();
            let before = list.len();
            for spec in choose(&variants, caller_level(caller)) {
                let entry = entries
                    .entry(spec.vector_name.clone())
                    .or_insert_with(|| mapping(module, callee, spec, &mut keep, &mut notes))
                    .clone();
                let Some((e, target)) = entry.filter(|(e, _)| !list.contains(e)) else {
                    continue;
                };
                // The loop vectorizer will call `target` from `caller`: the
                // caller must pass its vectors in the registers it reads.
                let before = caller.string_attribute(FN, "min-legal-vector-width");
                let bits = vector_widths::signature_bits(target.function_type());
                vector_widths::cover(caller, bits);
                if !vector_widths::agree(caller, target, bits) {
                    if let Some(w) = before {
                        caller.set_string_attribute(FN, "min-legal-vector-width", &w);
                    }
                    notes.push(format!(
                        "`{}` not used by `{caller_name}`: the caller passes its {bits}-bit vectors {}, `{}` reads them {}",
                        spec.vector_name,
                        vector_widths::registers(caller, bits),
                        target.name(),
                        vector_widths::registers(target, bits)
                    ));
                    continue;
                }
                list.push(e);
            }
            if list.len() > before {
                call.set_call_string_attribute(ATTRIBUTE, &list.join(","));
                if !annotated.contains(&caller_name) {
                    notes.push(format!(
                        "caller `{caller_name}`: calls of `{}` may use {}",
                        callee.name(),
                        list.iter().map(|e| e.split('(').next().unwrap_or(e)).collect::<Vec<_>>().join(", ")
                    ));
                    annotated.push(caller_name);
                }
            }
            has_variants_in_calls |= !list.is_empty();
        }
        // Also where an earlier run annotated the calls: a ThinLTO link
        // infers the attribute again on the imported body.
        if has_variants_in_calls {
            forget_write_only_memory(callee);
        }
    }
    module.append_to_compiler_used(&keep);
    for caller in made_calls {
        // A pass that cannot run leaves `nounwind` invokes: still correct.
        if crate::llvm::run_function_passes(caller, "simplifycfg").is_ok() {
            notes.push(format!(
                "caller `{}`: `invoke`s in `omp simd` loops, whose exception would end the program, are calls now",
                caller.name()
            ));
        }
    }
    if cfg!(debug_assertions) {
        // The adapters' calls of their variants must agree on registers as
        // much as the loops' future calls of the adapters.
        let adapters: Vec<Value> = keep.iter().copied().filter(|f| f.name().starts_with(ADAPTER_PREFIX)).collect();
        let wrong = vector_widths::check_calls(module, &adapters);
        debug_assert!(wrong.is_empty(), "caller-side adapters disagree on vector registers: {}", wrong[0]);
    }
    notes
}

/// Keeps the calls in `omp simd` loops (calls carrying clang's
/// `!llvm.access.group`) of `declare simd` functions whose inlined body the
/// loop vectorizer could not widen (`needs_its_variants`) from being
/// inlined: a `noinline` call-site attribute. Run before the inliner (the plugin does,
/// at the pipeline's start), so that such a call survives until
/// [`annotate`] points it at the variants, and the loop vectorizer calls
/// them: inlined, a body with a lane-divergent loop leaves the `omp simd`
/// loop scalar. That holds for a function defined in the module and for
/// one only declared here, whose body a ThinLTO link imports and would
/// inline. Returns how many calls it marked.
pub fn keep_simd_calls(module: Module) -> usize {
    let mut marked = 0;
    for callee in module.functions() {
        if declared_variants(callee).is_empty() || !needs_its_variants(callee) {
            continue;
        }
        for call in callee.users() {
            let direct = (call.is_call() || call.is_invoke()) && call.called_value() == callee;
            if !direct
                || call.metadata_operands("llvm.access.group").is_none()
                || call.call_has_fn_attribute("noinline")
            {
                continue;
            }
            let ctx = callee.function_type().context();
            call.add_call_site_attribute(FN, crate::llvm::create_enum_attribute(ctx, "noinline", 0));
            marked += 1;
        }
    }
    marked
}

/// Whether a call of `f` inlined into an `omp simd` loop would leave the
/// loop to LLVM's vectorizer with code it cannot widen: `f` has a loop
/// (lanes may leave it at different trips) or calls a function that is not
/// an intrinsic (a libm call, which it widens only with a vector library).
/// Straight-line code inlined is widened as well as the variant would be,
/// without the call. A function only declared here counts: a ThinLTO link
/// may import a body of either kind.
fn needs_its_variants(f: Value) -> bool {
    use crate::analysis::{cfg::Cfg, dominance::Dominators, loops::Loops};
    if f.is_declaration() {
        return true;
    }
    let cfg = Cfg::new(f);
    let has_loop = Loops::new(&cfg, &Dominators::new(&cfg)).map_or(true, |l| !l.loops.is_empty());
    let calls = cfg
        .rpo
        .iter()
        .flat_map(|b| b.instructions())
        .any(|i| (i.is_call() || i.is_invoke()) && crate::analysis::calls::called_intrinsic(i).is_none());
    has_loop || calls
}

/// Drops an inferred `memory(...)` attribute of defined function `f` that
/// says it writes but never reads memory (`memory(errnomem: write)`: a
/// `declare simd` function calling libm under clang's default
/// `-fmath-errno`). LLVM's loop vectorizer widens a call with vector
/// variants that may read memory, but refuses one that only writes
/// (LoopAccessAnalysis: "instruction cannot be vectorized"), so such a
/// loop would stay scalar. Without the attribute the call may read and
/// write, which is less than LLVM knew and so always true; the variants
/// write `errno` as the scalar calls would.
fn forget_write_only_memory(f: Value) {
    if f.is_declaration() {
        return;
    }
    if f.fn_attribute_value("memory").is_some_and(only_writes) {
        f.remove_enum_attribute(FN, "memory");
    }
}

/// Whether a `memory(...)` attribute's value (two bits per location: bit
/// 0 reads, bit 1 writes) says the function writes memory and reads none.
fn only_writes(effects: u64) -> bool {
    const READS: u64 = 0x5555_5555_5555_5555;
    effects != 0 && effects & READS == 0
}

/// The variants `f` lists as `_ZGV` string attributes that batchify can
/// give a type (x86 and `_LLVM_`, fixed width, no reference parameters).
///
/// AVX (`c`) variants with an integer characteristic type filling 256 bits
/// are left out: clang's `_ZGVcN8v_foo` is GCC's `_ZGVcN4v_foo` unless
/// `simdlen(8)` was written, and the attributes do not say which (see
/// `select::gcc_avx_twin` and docs/gcc-abi.md). batchify builds both names,
/// GCC only one, so a caller naming either may not link against GCC's
/// clones. Such callers use the SSE (`b`) variant, which both compilers
/// name alike.
fn declared_variants(f: Value) -> Vec<CloneSpec> {
    let name = f.name();
    f.attributes(FN)
        .into_iter()
        .filter(|a| attribute_is_string(*a))
        .map(attribute_string_key)
        .filter(|k| k.starts_with("_ZGV"))
        .filter_map(|k| VariantName::parse(&k).ok())
        .filter(|v| v.scalar_name == name)
        .filter_map(|v| {
            let spec = CloneSpec::for_function(&v, f.function_type()).ok()?;
            crate::select::gcc_avx_twin(f.function_type(), &v, &spec).is_none().then_some(spec)
        })
        .collect()
}

/// The variants of `callee` that calls may be pointed at: for a function
/// defined here, those built in this module (a `--variant` subset builds
/// only some; the rest would be undefined references); for a declaration,
/// every variant it lists (its own module builds them). A note names each
/// variant left out.
fn built_or_promised(
    module: Module,
    callee: Value,
    variants: Vec<CloneSpec>,
    notes: &mut Vec<String>,
) -> Vec<CloneSpec> {
    if callee.is_declaration() {
        return variants;
    }
    let (built, missing): (Vec<CloneSpec>, Vec<CloneSpec>) =
        variants.into_iter().partition(|s| module.function(&s.vector_name).is_some_and(|f| !f.is_declaration()));
    if !missing.is_empty() {
        let names: Vec<&str> = missing.iter().map(|s| s.vector_name.as_str()).collect();
        notes.push(format!("calls of `{}` do not use {}: not built in this module", callee.name(), names.join(", ")));
    }
    built
}

/// Vector level of an ISA (`_LLVM_` lowest), as the caller must allow it.
/// SVE ranks above every x86 level and needs an SVE caller
/// ([`CallerLevel::sve`]). Advanced SIMD variants are never called from
/// the loop vectorizer's code: their convention is `aarch64_vector_pcs`,
/// and the vectorizer's calls take the C convention (a call whose
/// convention differs from its callee's is undefined behaviour).
fn isa_rank(isa: Isa) -> i32 {
    match isa {
        Isa::Llvm => -1,
        Isa::Sse2 => 0,
        Isa::Avx => 1,
        Isa::Avx2 => 2,
        Isa::Avx512 => 3,
        Isa::Sve => 4,
        Isa::AdvSimd => i32::MAX,
    }
}

/// What the calling function's `target-features` enable.
#[derive(Debug, Clone, Copy)]
struct CallerLevel {
    /// The widest x86 vector level (0: SSE2, the x86-64 baseline).
    x86: i32,
    /// Whether it has SVE (`+sve`, or a later SVE feature).
    sve: bool,
}

fn caller_level(caller: Value) -> CallerLevel {
    let features = caller.string_attribute(FN, "target-features").unwrap_or_default();
    let has = |f: &str| features.split(',').any(|x| x == f);
    let x86 = if has("+avx512f") {
        3
    } else if has("+avx2") {
        2
    } else if has("+avx") {
        1
    } else {
        0
    };
    CallerLevel { x86, sve: has("+sve") || has("+sve2") }
}

/// Whether a caller of level `level` may call a variant of `isa`.
fn allows(level: CallerLevel, isa: Isa) -> bool {
    match isa {
        Isa::Sve => level.sve,
        _ => isa_rank(isa) <= level.x86,
    }
}

/// Per shape, the variant of the widest ISA the caller allows (widest
/// first, unmasked before masked).
fn choose(variants: &[CloneSpec], level: CallerLevel) -> Vec<&CloneSpec> {
    let mut sorted: Vec<&CloneSpec> = variants.iter().filter(|s| allows(level, s.isa)).collect();
    // Widest ISA first; unmasked before masked, so that a call that needs
    // no mask finds its unmasked variant first.
    sorted.sort_by_key(|s| (-isa_rank(s.isa), s.mask.is_some()));
    // The shape: the variant's name under the `_LLVM_` ISA.
    let shape_of = |s: &CloneSpec| {
        let ps: Vec<crate::vfabi::Param> =
            s.params.iter().zip(&s.aligns).map(|(&kind, &align)| crate::vfabi::Param { kind, align }).collect();
        VariantName::mangle(Isa::Llvm, s.mask.is_some(), s.width, &ps, &s.scalar_name)
    };
    let mut shapes: Vec<String> = Vec::new();
    let mut out = Vec::new();
    for s in sorted {
        let shape = shape_of(s);
        if !shapes.contains(&shape) {
            shapes.push(shape);
            out.push(s);
        }
    }
    out
}

/// The mapping entry for variant `spec` of `callee`, declaring the variant
/// and its adapter if needed; `None` (with a note) when it cannot be used.
fn mapping<'ctx>(
    module: Module<'ctx>,
    callee: Value<'ctx>,
    spec: &CloneSpec,
    keep: &mut Vec<Value<'ctx>>,
    notes: &mut Vec<String>,
) -> Option<(String, Value<'ctx>)> {
    let name = &spec.vector_name;
    let clone_abi = abi::CloneAbi::of(callee, spec).ok()?;
    let public = clone_abi.public_type();
    let lowering = clone_abi.lowering;
    let variant = match module.function(name) {
        Some(f) if f.function_type() == public => f,
        Some(f) => {
            notes.push(format!(
                "`{name}` not used: the module has it as `{}`, batchify's type for it is `{}`",
                f.function_type().print(),
                public.print()
            ));
            return None;
        }
        None if module.has_global_named(name) => {
            notes.push(format!("`{name}` not used: a global of that name is not a function"));
            return None;
        }
        None => {
            let f = module.add_function(name, public);
            crate::shell::target::apply(callee, f, spec.isa);
            crate::abi::apply_call_conv(f, spec.isa);
            f
        }
    };
    keep.push(variant);
    let gcc_mask = spec.mask.filter(|m| *m != MaskAbi::LaneBits);
    if lowering.is_none() && gcc_mask.is_none() {
        return Some((format!("{name}({name})"), variant));
    }
    // LLVM calls the variant with the type it derives from the scalar
    // function: the natural type with an `<N x i1>` mask.
    let llvm_spec = CloneSpec { mask: spec.mask.map(|_| MaskAbi::LaneBits), ..spec.clone() };
    let llvm_ty = abi::clone_type(callee, &llvm_spec).ok()?;
    let adapter_name = format!("{ADAPTER_PREFIX}{name}");
    let adapter = match module.function(&adapter_name) {
        Some(a) if a.function_type() == llvm_ty => a,
        Some(_) => {
            notes.push(format!("`{name}` not used: `{adapter_name}` exists with another type"));
            return None;
        }
        None => build_adapter(module, callee, variant, spec, &adapter_name, llvm_ty, lowering.as_ref()),
    };
    keep.push(adapter);
    Some((format!("{name}({adapter_name})"), adapter))
}

/// `internal llvm_ty @adapter_name(...)`: encodes the `<N x i1>` mask in
/// the variant's mask ABI and calls the variant through its GCC lowering.
fn build_adapter<'ctx>(
    module: Module<'ctx>,
    callee: Value<'ctx>,
    variant: Value<'ctx>,
    spec: &CloneSpec,
    adapter_name: &str,
    llvm_ty: crate::llvm::Type<'ctx>,
    lowering: Option<&abi::GccLowering<'ctx>>,
) -> Value<'ctx> {
    let ctx = llvm_ty.context();
    let f = module.add_function(adapter_name, llvm_ty);
    f.set_internal();
    abi::copy_attributes(callee, f, spec);
    crate::shell::target::apply(callee, f, spec.isa);
    let b = Builder::new(ctx);
    b.position_at_end(f.append_block("entry"));
    let mut args = f.params();
    if let Some(m) = spec.mask.filter(|m| *m != MaskAbi::LaneBits) {
        let mty = abi::mask_type(m, callee.function_type(), spec);
        let last = args.len() - 1;
        args[last] = abi::encode_mask(&b, m, args[last], mty);
    }
    let result = match lowering {
        Some(l) => crate::shell::gcc_adapter::call_lowered(&b, variant, &args, l).1,
        None => {
            let call = b.call(variant.function_type(), variant, &args);
            (!llvm_ty.return_type().is_void()).then_some(call)
        }
    };
    b.ret(result);
    vector_widths::cover_calls(f);
    f
}
