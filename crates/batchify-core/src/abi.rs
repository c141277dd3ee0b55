//! The clone's ABI, in one place: its LLVM function type and attributes,
//! how varying values are laid out (vectors or lane arrays), and how the
//! mask parameter and linear parameters are read inside the clone. Used by
//! the clone shell, the emitter, the fallback, the finish stage and the
//! test kit's wrappers. Reads and builds IR; imports no stage.
//!
//! Varying values of an element type `T` (integer, floating point, pointer)
//! are `<N x T>`; varying small aggregates of element types (structs and
//! arrays, nested, at most [`MAX_AGGREGATE_LEAVES`] leaves) are *structs of
//! vectors*, the same aggregate with each leaf `T` widened to `<N x T>`
//! (`{float, i32}` becomes `{<N x float>, <N x i32>}`, `[4 x i32]` becomes
//! `[4 x <N x i32>]`), as LLVM's `toVectorizedTy` widens the struct results
//! of vector function variants; varying values of other types (vectors,
//! larger aggregates, aggregates with vector fields) are lane arrays
//! `[N x T]`. Uniform and linear parameters stay scalar.

use crate::error::{Error, Result};
use crate::llvm::LLVMIntPredicate;
use crate::llvm::LLVMOpcode::*;
use crate::llvm::{
    attribute_enum_kind, attribute_enum_value, attribute_is_string, attribute_string_key, constant,
    create_enum_attribute, enum_attribute_kind, Builder, Type, Value,
};
use crate::spec::{CloneSpec, MaskAbi};
use crate::vfabi::ParamKind;

/// Type of a varying value whose scalar type is `t`, at width `n`.
pub fn varying_type(t: Type, n: u32) -> Type {
    if t.is_vector_element() {
        t.vector_of(n)
    } else if is_struct_of_vectors(t) {
        map_leaf_types(t, &|leaf| leaf.vector_of(n))
    } else {
        t.array_of(n)
    }
}

/// Most leaves a varying aggregate may have to be held as a struct of
/// vectors (one vector per leaf); larger aggregates are lane arrays.
pub const MAX_AGGREGATE_LEAVES: usize = 32;

/// Whether `t` is a struct or array with 1 to [`MAX_AGGREGATE_LEAVES`]
/// leaves (the non-aggregate members reached through nested structs and
/// arrays), each accepted by `leaf`.
pub fn has_leaves(t: Type, leaf: &dyn Fn(Type) -> bool) -> bool {
    fn count(t: Type, leaf: &dyn Fn(Type) -> bool, seen: &mut usize) -> bool {
        if !t.is_aggregate() {
            *seen += 1;
            return leaf(t) && *seen <= MAX_AGGREGATE_LEAVES;
        }
        if t.kind() == crate::llvm::LLVMTypeKind::LLVMArrayTypeKind && t.members().len() > MAX_AGGREGATE_LEAVES {
            return false;
        }
        t.members().into_iter().all(|m| count(m, leaf, seen))
    }
    let mut seen = 0;
    t.is_aggregate() && count(t, leaf, &mut seen) && seen > 0
}

/// Whether a varying value of scalar type `t` is a struct of vectors at the
/// ABI: an aggregate whose leaves are all element types.
pub fn is_struct_of_vectors(t: Type) -> bool {
    has_leaves(t, &|leaf| leaf.is_vector_element())
}

/// The aggregate `t` with each leaf type replaced by `f(leaf)` (structs
/// become literal structs).
pub fn map_leaf_types<'ctx>(t: Type<'ctx>, f: &dyn Fn(Type<'ctx>) -> Type<'ctx>) -> Type<'ctx> {
    match t.kind() {
        crate::llvm::LLVMTypeKind::LLVMStructTypeKind => {
            let fields: Vec<Type> = t.members().into_iter().map(|m| map_leaf_types(m, f)).collect();
            Type::literal_struct(t.context(), &fields)
        }
        crate::llvm::LLVMTypeKind::LLVMArrayTypeKind => {
            map_leaf_types(t.element(), f).array_of(t.members().len() as u32)
        }
        _ => f(t),
    }
}

/// Builds a value leaf by leaf over the shape of the scalar aggregate type
/// `t`: at each leaf, `f(leaf type, parts)` gets that leaf of each value of
/// `vals` (values shaped like `t`: the scalar aggregate or a struct of
/// vectors); the results are put together as a value of type `out(t)`.
pub fn zip_leaves<'ctx>(
    b: &Builder<'ctx>,
    t: Type<'ctx>,
    out: &dyn Fn(Type<'ctx>) -> Type<'ctx>,
    vals: &[Value<'ctx>],
    f: &mut dyn FnMut(Type<'ctx>, &[Value<'ctx>]) -> Value<'ctx>,
) -> Value<'ctx> {
    if !t.is_aggregate() {
        return f(t, vals);
    }
    let mut acc = constant::poison(out(t));
    for (i, m) in t.members().into_iter().enumerate() {
        let parts: Vec<Value> = vals.iter().map(|v| b.extract_value(*v, i as u32)).collect();
        let x = zip_leaves(b, m, out, &parts, f);
        acc = b.insert_value(acc, x, i as u32);
    }
    acc
}

/// Lanes of a struct of vectors (the length of its first leaf).
fn lanes_of(mut t: Type) -> u32 {
    while t.is_aggregate() {
        t = t.members()[0];
    }
    t.vector_len()
}

/// The characteristic data type of a function (x86 Vector Function ABI):
/// the return type, else the type of the first vector parameter, else `i32`.
pub fn characteristic_type<'ctx>(scalar_fn_ty: Type<'ctx>, spec: &CloneSpec) -> Type<'ctx> {
    let ret = scalar_fn_ty.return_type();
    if !ret.is_void() && ret.is_vector_element() {
        return ret;
    }
    scalar_fn_ty
        .param_types()
        .into_iter()
        .zip(&spec.params)
        .find(|(t, k)| **k == ParamKind::Vector && t.is_vector_element())
        .map(|(t, _)| t)
        .unwrap_or_else(|| Type::int(scalar_fn_ty.context(), 32))
}

/// The lanes whose values of `fty`'s characteristic type (every
/// parameter varying) fill one vector register of `isa`: 4 doubles or 8
/// floats on AVX2, 8 doubles on AVX-512, as GCC's ABI chooses a `declare
/// simd` function's default length. `None` for ISAs without a fixed
/// register width (`_LLVM_`, AArch64) and types of no size.
pub fn register_lanes(module: crate::llvm::Module, fty: Type, isa: crate::vfabi::Isa) -> Option<u32> {
    let bits = isa.vector_bits()?;
    let spec = CloneSpec::all_varying("", fty.param_types().len(), 1, isa, false);
    let size = module.abi_size_of(characteristic_type(fty, &spec)) * 8;
    (size > 0).then(|| (u64::from(bits) / size).clamp(1, 1024) as u32)
}

/// LLVM type of the mask parameter.
pub fn mask_type<'ctx>(abi: MaskAbi, scalar_fn_ty: Type<'ctx>, spec: &CloneSpec) -> Type<'ctx> {
    let ctx = scalar_fn_ty.context();
    match abi {
        MaskAbi::LaneBits => lane_vector(Type::int(ctx, 1), spec),
        MaskAbi::CharacteristicVector => {
            // A vector of pointers cannot hold mask bits; GCC passes the
            // mask of a pointer characteristic type as pointer-sized integers.
            let c = characteristic_type(scalar_fn_ty, spec);
            let elem = if c.kind() == crate::llvm::LLVMTypeKind::LLVMPointerTypeKind { Type::int(ctx, 64) } else { c };
            elem.vector_of(spec.width)
        }
        MaskAbi::IntegerBitmask => Type::int(ctx, spec.width.max(8).next_power_of_two()),
    }
}

/// One value per lane of `spec`'s clone for a lane type `t`: `<N x t>`,
/// or `<vscale x N x t>` for SVE (scalable) clones.
fn lane_vector<'ctx>(t: Type<'ctx>, spec: &CloneSpec) -> Type<'ctx> {
    if spec.isa == crate::vfabi::Isa::Sve {
        t.scalable_vector_of(spec.width)
    } else {
        t.vector_of(spec.width)
    }
}

/// The clone's function type for `spec`, checking that the scalar function
/// fits. SVE clones (`scalable.rs`) have scalable vectors and take no
/// aggregate result.
pub fn clone_type<'ctx>(scalar: Value<'ctx>, spec: &CloneSpec) -> Result<Type<'ctx>> {
    let fty = scalar.function_type();
    let mismatch = |reason: String| Error::VariantMismatch { variant: spec.vector_name.clone(), reason };
    if fty.is_var_arg() {
        return Err(mismatch("variadic functions cannot be batched".into()));
    }
    check_scalar_abi(scalar).map_err(mismatch)?;
    let ptys = fty.param_types();
    if ptys.len() != spec.params.len() {
        return Err(mismatch(format!(
            "it has {} parameter kind(s) but `{}` takes {} parameter(s)",
            spec.params.len(),
            spec.scalar_name,
            ptys.len()
        )));
    }
    let mut params = Vec::new();
    for (i, (t, k)) in ptys.iter().zip(&spec.params).enumerate() {
        params.push(match k {
            ParamKind::Vector => {
                if !t.is_vector_element() {
                    return Err(mismatch(format!(
                        "parameter {i} has type {} which cannot be a vector lane",
                        t.print()
                    )));
                }
                lane_vector(*t, spec)
            }
            ParamKind::LinearVarStep { .. } if t.kind() == crate::llvm::LLVMTypeKind::LLVMPointerTypeKind => {
                return Err(mismatch(crate::spec::pointer_var_step_reason(i)));
            }
            ParamKind::Linear { .. } | ParamKind::LinearVarStep { .. } => {
                if t.int_width() == 0 && t.kind() != crate::llvm::LLVMTypeKind::LLVMPointerTypeKind {
                    return Err(mismatch(format!(
                        "linear parameter {i} has type {}; linear needs an integer or pointer",
                        t.print()
                    )));
                }
                *t
            }
            _ => *t,
        });
    }
    if let Some(abi) = spec.mask {
        params.push(mask_type(abi, fty, spec));
    }
    let ret = fty.return_type();
    let ret = if ret.is_void() {
        ret
    } else if spec.isa == crate::vfabi::Isa::Sve {
        if !ret.is_vector_element() {
            return Err(mismatch(format!("its result type {} cannot be an SVE lane", ret.print())));
        }
        lane_vector(ret, spec)
    } else {
        varying_type(ret, spec.width)
    };
    Ok(Type::function(ret, &params))
}

// ---------------------------------------------------------------------------
// GCC's lowering of the clone's signature (docs/gcc-abi.md)

/// How GCC 12 passes the values of a clone whose natural LLVM signature
/// ([`clone_type`]) LLVM's own lowering would pass differently.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GccLowering<'ctx> {
    /// The exported function's type: the hidden result pointer first (if
    /// any), then every natural parameter's pieces in order.
    pub public_type: Type<'ctx>,
    /// Per parameter of the natural type (mask included): the types it
    /// travels in, one register-sized piece each (one type: as it is).
    pub pieces: Vec<Vec<Type<'ctx>>>,
    /// The natural return type and the alignment of the caller's buffer,
    /// when the result is returned in memory through a hidden pointer.
    pub sret: Option<(Type<'ctx>, u32)>,
    /// The natural return type, when the result is a vector of at most 32
    /// bits that travels as an integer (in `eax`; see [`gcc_pieces`]).
    pub int_ret: Option<Type<'ctx>>,
}

/// The integer a vector of at most 32 bits travels as (`<2 x i16>` as
/// `i32`, in a general register: the psABI's INTEGER class, as GCC passes
/// it), or `None` for other types. LLVM would pass the vector in an `xmm`
/// register.
pub fn gcc_small_vector_int<'ctx>(t: Type<'ctx>) -> Option<Type<'ctx>> {
    if !t.is_vector() || t.element().kind() == crate::llvm::LLVMTypeKind::LLVMPointerTypeKind {
        return None;
    }
    let bits = scalar_bits(t.element()) * t.vector_len();
    (scalar_bits(t.element()) >= 8 && (16..=32).contains(&bits)).then(|| Type::int(t.context(), bits))
}

/// Bits of the vector register GCC 12 uses for elements of type `elem`
/// under an x86 ISA: 128 for SSE2 (`b`), 256 for AVX (`c`) floating point
/// but 128 for its integers and pointers (AVX has no 256-bit integer
/// instructions), 256 for AVX2 (`d`), 512 for AVX-512F (`e`).
pub fn gcc_register_bits(isa: crate::vfabi::Isa, elem: Type) -> Option<u32> {
    use crate::llvm::LLVMTypeKind::*;
    use crate::vfabi::Isa;
    let float = matches!(elem.kind(), LLVMHalfTypeKind | LLVMBFloatTypeKind | LLVMFloatTypeKind | LLVMDoubleTypeKind);
    match isa {
        Isa::Sse2 => Some(128),
        Isa::Avx if float => Some(256),
        Isa::Avx => Some(128),
        Isa::Avx2 => Some(256),
        Isa::Avx512 => Some(512),
        _ => None,
    }
}

/// The register-sized pieces GCC passes vector type `t` in (`[t]` when it
/// fits one register or is no vector; one integer for a vector of at most
/// 32 bits, [`gcc_small_vector_int`]).
fn gcc_pieces<'ctx>(isa: crate::vfabi::Isa, t: Type<'ctx>) -> Vec<Type<'ctx>> {
    if !t.is_vector() {
        return vec![t];
    }
    if let Some(int) = gcc_small_vector_int(t) {
        return vec![int];
    }
    let (e, n) = (t.element(), t.vector_len());
    let Some(reg) = gcc_register_bits(isa, e) else { return vec![t] };
    let per = (reg / scalar_bits(e)).max(1);
    if n <= per || n % per != 0 {
        return vec![t];
    }
    vec![e.vector_of(per); (n / per) as usize]
}

/// GCC 12's lowering of the natural clone type `natural` of `spec`, when
/// LLVM's lowering of `natural` differs from it (`None` otherwise, and for
/// non-x86 ISAs):
///
/// * a result wider than its register is returned in memory: the caller
///   passes a buffer (aligned to the register size) as a hidden first
///   argument, GCC's clone stores the result there (`vmovdqa %ymm0,
///   (%rdi)` in `_ZGVdN8vvv_bar` returning 8 `long`s);
/// * under AVX (`c`), integer and pointer vectors wider than 128 bits
///   travel in several `xmm` registers, where LLVM would use one `ymm`;
/// * a vector of at most 32 bits (`<2 x i16>`, `<4 x i8>`: `short` and
///   `char` parameters of a 2- or 4-lane variant) travels as an integer in
///   a general register, where LLVM would use an `xmm` register.
///
/// Other wide vectors (wider than the register under `b`, `d`, `e`) are
/// split alike by LLVM when the function's own features are the ISA's;
/// they are split explicitly all the same, so that a caller compiled for
/// a wider ISA (whose subtarget lowers the call) passes them as GCC does.
/// A scalar function with a `byval` parameter keeps the natural type.
pub fn gcc_lowering<'ctx>(scalar: Value<'ctx>, natural: Type<'ctx>, spec: &CloneSpec) -> Option<GccLowering<'ctx>> {
    gcc_register_bits(spec.isa, Type::int(natural.context(), 32))?;
    let ret = natural.return_type();
    let wide_ret = ret.is_vector() && gcc_pieces(spec.isa, ret).len() > 1;
    let params = natural.param_types();
    let pieces: Vec<Vec<Type>> = params.iter().map(|&t| gcc_pieces(spec.isa, t)).collect();
    let split = pieces.iter().zip(&params).any(|(p, &t)| p.as_slice() != [t]);
    let ret_int = gcc_small_vector_int(ret);
    if !(wide_ret || split || ret_int.is_some())
        || (0..spec.params.len() as u32).any(|i| scalar.has_attribute_at(i + 1, "byval"))
    {
        return None;
    }
    let ctx = natural.context();
    let sret = wide_ret.then(|| (ret, gcc_register_bits(spec.isa, ret.element()).unwrap_or(128) / 8));
    let mut params: Vec<Type> = sret.iter().map(|_| Type::ptr(ctx)).collect();
    params.extend(pieces.iter().flatten().copied());
    let public_ret = match ret_int {
        _ if wide_ret => Type::void(ctx),
        Some(int) => int,
        None => ret,
    };
    let int_ret = ret_int.map(|_| ret);
    Some(GccLowering { public_type: Type::function(public_ret, &params), pieces, sret, int_ret })
}

/// A clone's ABI, computed once: its natural LLVM type and, where GCC
/// passes its values differently, GCC's lowering, which its symbol has.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CloneAbi<'ctx> {
    /// The clone's natural type ([`clone_type`]): the type it is built with.
    pub natural: Type<'ctx>,
    /// GCC's lowering of it ([`gcc_lowering`]), if it differs.
    pub lowering: Option<GccLowering<'ctx>>,
}

impl<'ctx> CloneAbi<'ctx> {
    /// The ABI of the clone `spec` of `scalar`, checking that the scalar
    /// function fits.
    pub fn of(scalar: Value<'ctx>, spec: &CloneSpec) -> Result<CloneAbi<'ctx>> {
        let natural = clone_type(scalar, spec)?;
        Ok(CloneAbi { natural, lowering: gcc_lowering(scalar, natural, spec) })
    }

    /// The type the variant's symbol has: GCC's lowering if there is one,
    /// else the natural type.
    pub fn public_type(&self) -> Type<'ctx> {
        self.lowering.as_ref().map_or(self.natural, |l| l.public_type)
    }
}

/// The type a variant's symbol has ([`CloneAbi::public_type`]).
pub fn public_type<'ctx>(scalar: Value<'ctx>, spec: &CloneSpec) -> Result<Type<'ctx>> {
    Ok(CloneAbi::of(scalar, spec)?.public_type())
}

/// Parameter attributes whose semantics no clone (vector or per-lane loop)
/// can keep: they tie the argument to the caller's frame or registers.
const UNBATCHABLE_PARAM_ATTRIBUTES: &[&str] = &["swifterror", "inalloca", "preallocated"];

/// LLVM calling conventions that cannot be called from ordinary code
/// (interrupt handlers, GPU kernels and shader entry points), by id.
const UNCALLABLE_CONVENTIONS: &[(u32, &str)] = &[
    (83, "x86_intrcc"),
    (71, "ptx_kernel"),
    (75, "spir_kernel"),
    (88, "amdgpu_vs"),
    (89, "amdgpu_gs"),
    (90, "amdgpu_ps"),
    (91, "amdgpu_kernel"),
    (93, "amdgpu_cs"),
    (94, "amdgpu_hs"),
    (95, "amdgpu_es"),
    (96, "amdgpu_ls"),
];

/// Rejects scalar functions whose ABI no clone can reproduce: scalable
/// vector types in the signature, parameters that are bound to the caller
/// (`swifterror`, `inalloca`, `preallocated`), and calling conventions that
/// ordinary code cannot call.
fn check_scalar_abi(scalar: Value) -> std::result::Result<(), String> {
    let fty = scalar.function_type();
    if fty.contains_scalable_vector() {
        return Err(format!(
            "its type `{}` has a scalable vector, and batchify builds fixed-width clones only",
            fty.print()
        ));
    }
    for i in 0..fty.param_types().len() as u32 {
        for name in UNBATCHABLE_PARAM_ATTRIBUTES {
            if scalar.has_attribute_at(i + 1, name) {
                return Err(format!("parameter {i} is `{name}`, which binds it to the caller and cannot be batched"));
            }
        }
    }
    let cc = scalar.call_conv();
    if let Some((_, name)) = UNCALLABLE_CONVENTIONS.iter().find(|(id, _)| *id == cc) {
        return Err(format!("its calling convention `{name}` cannot be called from a clone"));
    }
    Ok(())
}

/// LLVM's id of the AArch64 vector procedure call standard
/// (`aarch64_vector_pcs`, `CallingConv::AArch64_VectorCall`).
pub const AARCH64_VECTOR_PCS: u32 = 97;

/// The calling convention of clones for `isa`, when it is not C's: the
/// AArch64 Advanced SIMD ones follow the vector procedure call standard
/// (AAVPCS: `v8`-`v23` preserved whole), as GCC's `_ZGVn` clones do and
/// their callers expect (`.variant_pcs` in GCC 12's assembly).
pub fn clone_call_conv(isa: crate::vfabi::Isa) -> Option<u32> {
    (isa == crate::vfabi::Isa::AdvSimd).then_some(AARCH64_VECTOR_PCS)
}

/// Gives `f`, a clone or a declaration of one for `isa`, the clone calling
/// convention. Every declaration needs it, not only the definition: a call
/// whose convention differs from its callee's is undefined behaviour, and
/// LLVM's instcombine deletes the path through it.
pub fn apply_call_conv(f: Value, isa: crate::vfabi::Isa) {
    if let Some(cc) = clone_call_conv(isa) {
        f.set_function_call_conv(cc);
    }
}

/// Function attributes that stay valid on the clone (`memory` after
/// [`translate_memory`]).
const KEPT_ENUM_ATTRIBUTES: &[&str] = &[
    "nounwind",
    "willreturn",
    "nofree",
    "nosync",
    "norecurse",
    "mustprogress",
    "memory",
    "uwtable",
    "nocallback",
    "speculatable",
    // The target's range of `vscale` (clang puts it on AArch64 functions).
    "vscale_range",
];

/// Copies the scalar function's still-valid attributes to the clone and
/// sets the minimum legal vector width (the shell then fixes the ISA's
/// target, `shell::target`).
pub fn copy_attributes(scalar: Value, clone: Value, spec: &CloneSpec) {
    use crate::llvm::FUNCTION_INDEX as FN;
    let kept: Vec<u32> = KEPT_ENUM_ATTRIBUTES.iter().map(|n| enum_attribute_kind(n)).collect();
    for a in scalar.attributes(FN) {
        if attribute_is_string(a) {
            let key = attribute_string_key(a);
            if key.starts_with("_ZGV") || key == "min-legal-vector-width" || key == "vector-function-abi-variant" {
                continue;
            }
            clone.add_attribute(FN, a);
        } else if attribute_enum_kind(a) == enum_attribute_kind("memory") {
            let m = translate_memory(attribute_enum_value(a), clone.function_type());
            clone.add_attribute(FN, create_enum_attribute(clone.function_type().context(), "memory", m));
        } else if kept.contains(&attribute_enum_kind(a)) {
            clone.add_attribute(FN, a);
        }
    }
    // Parameter and return attributes describe scalar values and are
    // dropped, except `byval` (with its `align`) on a uniform parameter: it
    // is part of the calling convention (the caller passes a copy), as for
    // the scalar function.
    let (byval, align) = (enum_attribute_kind("byval"), enum_attribute_kind("align"));
    for (i, kind) in spec.params.iter().enumerate() {
        let index = i as u32 + 1;
        if !matches!(kind, ParamKind::Uniform) || !scalar.has_attribute_at(index, "byval") {
            continue;
        }
        for a in scalar.attributes(index) {
            if !attribute_is_string(a) && [byval, align].contains(&attribute_enum_kind(a)) {
                clone.add_attribute(index, a);
            }
        }
    }
    // Vector arguments must travel in full-width registers (GCC's ABI).
    let bits = widest_vector_bits(clone.function_type());
    let old: u64 = scalar.string_attribute(FN, "min-legal-vector-width").and_then(|s| s.parse().ok()).unwrap_or(0);
    clone.set_string_attribute(FN, "min-legal-vector-width", &bits.max(old).to_string());
}

/// The clone's `memory(...)` effects, from the scalar function's. LLVM's
/// alias analysis counts only pointer-typed arguments as `argmem`; memory
/// that the scalar function reaches through a pointer argument is reached
/// by the clone through a `<N x ptr>` argument, which is "other" memory.
/// So when the clone has such a parameter, the argument-memory effects are
/// also granted on other memory (`memory(argmem: read)` becomes
/// `memory(argmem: read, other: read)`).
pub fn translate_memory(scalar_effects: u64, clone_ty: Type) -> u64 {
    // MemoryEffects packs two bits (Ref = 1, Mod = 2) per location:
    // argmem is location 0, "other" location 3 (llvm/Support/ModRef.h).
    const ARGMEM_SHIFT: u64 = 0;
    const OTHER_SHIFT: u64 = 6;
    let vector_of_pointers =
        |t: &Type| t.is_vector() && t.element().kind() == crate::llvm::LLVMTypeKind::LLVMPointerTypeKind;
    if !clone_ty.param_types().iter().any(vector_of_pointers) {
        return scalar_effects;
    }
    let argmem = (scalar_effects >> ARGMEM_SHIFT) & 3;
    scalar_effects | (argmem << OTHER_SHIFT)
}

/// Bit width of a scalar element type (pointers count as 64 bits).
pub fn scalar_bits(e: Type) -> u32 {
    use crate::llvm::LLVMTypeKind::*;
    match e.kind() {
        LLVMIntegerTypeKind => e.int_width(),
        LLVMHalfTypeKind | LLVMBFloatTypeKind => 16,
        LLVMFloatTypeKind => 32,
        LLVMX86_FP80TypeKind => 80,
        LLVMFP128TypeKind => 128,
        _ => 64,
    }
}

/// Width of the widest vector among a function type's parameters and
/// result. (`vector_widths::signature_bits` is the same measure; it sits
/// above `abi` in the module layering, so `abi` keeps its own.)
fn widest_vector_bits(fty: Type) -> u64 {
    fn bits(t: Type) -> u64 {
        if t.is_vector() {
            scalar_bits(t.element()) as u64 * t.vector_len() as u64
        } else {
            // A struct of vectors (an aggregate result) travels in the
            // registers of its widest vector.
            t.members().into_iter().map(bits).max().unwrap_or(0)
        }
    }
    fty.param_types().into_iter().chain([fty.return_type()]).map(bits).max().unwrap_or(0)
}

/// Element width of full-width lane masks for ISAs without mask registers
/// (SSE2, AVX, AVX2, Advanced SIMD): the characteristic type's width, as
/// their compares produce and their blends consume. `None` for AVX-512 and
/// generic clones, which keep `<N x i1>`.
pub fn lane_mask_bits(scalar_fn_ty: Type, spec: &CloneSpec) -> Option<u32> {
    use crate::vfabi::Isa;
    match spec.isa {
        Isa::Sse2 | Isa::Avx | Isa::Avx2 | Isa::AdvSimd => {
            Some(scalar_bits(characteristic_type(scalar_fn_ty, spec)).clamp(8, 64).next_power_of_two())
        }
        _ => None,
    }
}

// ---------------------------------------------------------------------------
// Varying values: a vector, or an array of lanes for types vectors cannot hold

/// Broadcasts a scalar (or aggregate) value to all `n` lanes at the builder's position.
pub fn splat<'ctx>(b: &Builder<'ctx>, u: Value<'ctx>, n: u32) -> Value<'ctx> {
    let ty = varying_type(u.ty(), n);
    if is_struct_of_vectors(u.ty()) {
        return zip_leaves(b, u.ty(), &|t| varying_type(t, n), &[u], &mut |_, p| splat(b, p[0], n));
    }
    if ty.is_vector() {
        let ins = b.insert_element(constant::poison(ty), u, 0);
        let zeros = constant::null(Type::int(b.context(), 32).vector_of(n));
        b.shuffle(ins, constant::poison(ty), zeros)
    } else {
        let mut acc = constant::poison(ty);
        for k in 0..n {
            acc = b.insert_value(acc, u, k);
        }
        acc
    }
}

/// Lane `k` of a varying value of scalar type `t` in the ABI's form
/// (vector, struct of vectors or lane array).
pub fn extract_lane<'ctx>(b: &Builder<'ctx>, v: Value<'ctx>, t: Type<'ctx>, k: u32) -> Value<'ctx> {
    if t.is_vector_element() {
        b.extract_element(v, k)
    } else if is_struct_of_vectors(t) {
        zip_leaves(b, t, &|t| t, &[v], &mut |_, p| b.extract_element(p[0], k))
    } else {
        b.extract_value(v, k)
    }
}

/// Sets lane `k` of a varying value of scalar type `t` in the ABI's form
/// (vector, struct of vectors or lane array) to `x`.
pub fn insert_lane<'ctx>(b: &Builder<'ctx>, acc: Value<'ctx>, t: Type<'ctx>, x: Value<'ctx>, k: u32) -> Value<'ctx> {
    if t.is_vector_element() {
        b.insert_element(acc, x, k)
    } else if is_struct_of_vectors(t) {
        let n = lanes_of(acc.ty());
        zip_leaves(b, t, &|t| varying_type(t, n), &[acc, x], &mut |_, p| b.insert_element(p[0], p[1], k))
    } else {
        b.insert_value(acc, x, k)
    }
}

// ---------------------------------------------------------------------------
// The mask parameter and linear parameters, read inside the clone

/// The clone's execution mask as `<N x i1>`, decoded from its mask
/// parameter `m` (the emitter's entry mask).
pub fn decode_mask<'ctx>(b: &Builder<'ctx>, abi: MaskAbi, m: Value<'ctx>, n: u32) -> Value<'ctx> {
    let ctx = b.context();
    match abi {
        MaskAbi::LaneBits => m,
        MaskAbi::CharacteristicVector => {
            let elem = m.ty().element();
            let ity = Type::int(ctx, scalar_bits(elem)).vector_of(n);
            let as_int = if elem.int_width() > 0 { m } else { b.cast(LLVMBitCast, m, ity) };
            b.icmp(LLVMIntPredicate::LLVMIntNE, as_int, constant::null(ity))
        }
        MaskAbi::IntegerBitmask => {
            let bits = Type::int(ctx, n);
            let t = if m.ty().int_width() == n { m } else { b.cast(LLVMTrunc, m, bits) };
            b.cast(LLVMBitCast, t, Type::int(ctx, 1).vector_of(n))
        }
    }
}

/// The mask argument of type `mty` that a masked clone with mask ABI `abi`
/// expects, from the caller's `<N x i1>` execution mask `m` (the inverse
/// of [`decode_mask`]; a call of a callee's masked clone).
pub fn encode_mask<'ctx>(b: &Builder<'ctx>, abi: MaskAbi, m: Value<'ctx>, mty: Type<'ctx>) -> Value<'ctx> {
    let ctx = b.context();
    let n = m.ty().vector_len();
    match abi {
        MaskAbi::LaneBits => m,
        MaskAbi::CharacteristicVector => {
            let elem = mty.element();
            let ity = Type::int(ctx, scalar_bits(elem)).vector_of(n);
            let wide = b.cast(LLVMSExt, m, ity);
            if elem.int_width() > 0 {
                wide
            } else {
                b.cast(LLVMBitCast, wide, mty)
            }
        }
        MaskAbi::IntegerBitmask => {
            let bits = b.cast(LLVMBitCast, m, Type::int(ctx, n));
            if mty.int_width() == n {
                bits
            } else {
                b.cast(LLVMZExt, bits, mty)
            }
        }
    }
}

/// Whether lane `k` is active, as an `i1`, from the mask parameter `m`
/// (the per-lane fallback's test).
pub fn lane_is_active<'ctx>(b: &Builder<'ctx>, abi: MaskAbi, m: Value<'ctx>, k: u32) -> Value<'ctx> {
    let ctx = b.context();
    match abi {
        MaskAbi::LaneBits => b.extract_element(m, k),
        MaskAbi::CharacteristicVector => {
            let e = b.extract_element(m, k);
            let ity = Type::int(ctx, scalar_bits(e.ty()));
            let as_int = if e.ty().int_width() > 0 { e } else { b.cast(LLVMBitCast, e, ity) };
            b.icmp(LLVMIntPredicate::LLVMIntNE, as_int, constant::null(ity))
        }
        MaskAbi::IntegerBitmask => {
            let sh = b.binop(LLVMLShr, m, constant::int(m.ty(), k as u64));
            b.cast(LLVMTrunc, sh, Type::int(ctx, 1))
        }
    }
}

/// The step of a parameter linear with a variable step, as `i64`: the
/// step parameter's value, sign-extended.
pub fn step_as_i64<'ctx>(b: &Builder<'ctx>, step: Value<'ctx>) -> Value<'ctx> {
    if step.ty().int_width() == 64 {
        step
    } else {
        b.cast(LLVMSExt, step, Type::int(b.context(), 64))
    }
}

/// `<base, base+step, base+2*step, ...>` for an integer or pointer base
/// (pointer steps are in bytes, as the Vector Function ABI says).
pub fn linear_lanes<'ctx>(b: &Builder<'ctx>, base: Value<'ctx>, step64: Value<'ctx>, n: u32) -> Value<'ctx> {
    let ctx = b.context();
    let i64t = Type::int(ctx, 64);
    let lanes: Vec<Value> = (0..n).map(|k| constant::int(i64t, k as u64)).collect();
    let lane_ids = constant::vector(&lanes);
    let steps = splat(b, step64, n);
    let offsets = b.binop(LLVMMul, lane_ids, steps);
    let ty = base.ty();
    if ty.int_width() > 0 {
        let offs = if ty.int_width() == 64 { offsets } else { b.cast(LLVMTrunc, offsets, ty.vector_of(n)) };
        let vb = splat(b, base, n);
        b.binop(LLVMAdd, vb, offs)
    } else {
        b.gep(Type::int(ctx, 8), base, &[offsets], crate::llvm::LLVMGEPNoWrapFlags::default())
    }
}

/// One lane of a linear parameter: `base + off64` for an integer or
/// pointer (bytes) base of type `t`.
pub fn linear_lane<'ctx>(b: &Builder<'ctx>, base: Value<'ctx>, t: Type<'ctx>, off64: Value<'ctx>) -> Value<'ctx> {
    if t.int_width() > 0 {
        let off = if t.int_width() == 64 { off64 } else { b.cast(LLVMTrunc, off64, t) };
        b.binop(LLVMAdd, base, off)
    } else {
        b.gep(Type::int(b.context(), 8), base, &[off64], Default::default())
    }
}

#[cfg(test)]
mod tests {
    use super::varying_type;
    use crate::llvm::{Module, Type};
    // Links libLLVM into the test binary.
    use batchify_llvm_link as _;

    /// Small aggregates of element types are structs of vectors at the ABI;
    /// vectors, aggregates with vector fields, large and empty ones are lane
    /// arrays.
    #[test]
    fn aggregate_layouts() {
        let context = inkwell::context::Context::create();
        let module = context.create_module("m");
        let ctx = Module::from_inkwell(&module).context();
        let (f32t, i32t, i1t) = (Type::float(ctx), Type::int(ctx, 32), Type::int(ctx, 1));
        let s = |fields: &[Type]| Type::literal_struct(ctx, fields).print();
        fn v(t: Type) -> Type {
            t.vector_of(8)
        }
        let pair = Type::literal_struct(ctx, &[f32t, i32t]);
        assert_eq!(varying_type(pair, 8).print(), s(&[v(f32t), v(i32t)]));
        assert_eq!(varying_type(i32t.array_of(4), 8).print(), v(i32t).array_of(4).print());
        let nested = Type::literal_struct(ctx, &[i1t, pair.array_of(2)]);
        let want = Type::literal_struct(ctx, &[v(i1t), Type::literal_struct(ctx, &[v(f32t), v(i32t)]).array_of(2)]);
        assert_eq!(varying_type(nested, 8).print(), want.print());
        for lane_array in [
            f32t.vector_of(2),
            Type::literal_struct(ctx, &[f32t.vector_of(2), f32t]),
            i32t.array_of(33),
            Type::literal_struct(ctx, &[]),
        ] {
            assert_eq!(varying_type(lane_array, 8).print(), lane_array.array_of(8).print());
        }
    }
}
