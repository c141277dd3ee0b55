//! The clone's ABI: its LLVM function type, attributes and mask parameter.
//!
//! Varying values of an element type `T` (integer, floating point, pointer)
//! are `<N x T>`; varying values of other types (structs, arrays, vectors)
//! are lane arrays `[N x T]`. Uniform and linear parameters stay scalar.

use crate::error::{Error, Result};
use crate::llvm::{attribute_enum_kind, attribute_is_string, attribute_string_key, enum_attribute_kind, Type, Value};
use crate::spec::{CloneSpec, MaskAbi};
use crate::vfabi::ParamKind;

/// Type of a varying value whose scalar type is `t`, at width `n`.
pub fn varying_type(t: Type, n: u32) -> Type {
    if t.is_vector_element() {
        t.vector_of(n)
    } else {
        t.array_of(n)
    }
}

/// The characteristic data type of a function (x86 Vector Function ABI):
/// the return type, else the type of the first vector parameter, else `i32`.
pub fn characteristic_type(scalar_fn_ty: Type, spec: &CloneSpec) -> Type {
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

/// LLVM type of the mask parameter.
pub fn mask_type(abi: MaskAbi, scalar_fn_ty: Type, spec: &CloneSpec) -> Type {
    let ctx = scalar_fn_ty.context();
    match abi {
        MaskAbi::LaneBits => Type::int(ctx, 1).vector_of(spec.width),
        MaskAbi::CharacteristicVector => characteristic_type(scalar_fn_ty, spec).vector_of(spec.width),
        MaskAbi::IntegerBitmask => Type::int(ctx, spec.width.max(8).next_power_of_two()),
    }
}

/// The clone's function type for `spec`, checking that the scalar function fits.
pub fn clone_type(scalar: Value, spec: &CloneSpec) -> Result<Type> {
    let fty = scalar.function_type();
    let mismatch = |reason: String| Error::VariantMismatch { variant: spec.vector_name.clone(), reason };
    if fty.is_var_arg() {
        return Err(mismatch("variadic functions cannot be batched".into()));
    }
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
                t.vector_of(spec.width)
            }
            ParamKind::Linear { .. } | ParamKind::LinearVarStep { .. } => {
                if t.int_width() == 0 && t.kind() != llvm_sys::LLVMTypeKind::LLVMPointerTypeKind {
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
    let ret = if ret.is_void() { ret } else { varying_type(ret, spec.width) };
    Ok(Type::function(ret, &params))
}

/// Function attributes that stay valid on the clone.
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
];

/// Copies the scalar function's still-valid attributes to the clone, and
/// the ISA's target features and minimum legal vector width.
pub fn copy_attributes(scalar: Value, clone: Value, spec: &CloneSpec) {
    use llvm_sys::LLVMAttributeFunctionIndex as FN;
    let kept: Vec<u32> = KEPT_ENUM_ATTRIBUTES.iter().map(|n| enum_attribute_kind(n)).collect();
    for a in scalar.attributes(FN) {
        if attribute_is_string(a) {
            let key = attribute_string_key(a);
            if key.starts_with("_ZGV") || key == "min-legal-vector-width" {
                continue;
            }
            clone.add_attribute(FN, a);
        } else if kept.contains(&attribute_enum_kind(a)) {
            clone.add_attribute(FN, a);
        }
    }
    if let Some(features) = spec.isa.target_features() {
        let mut list: Vec<String> = clone
            .string_attribute(FN, "target-features")
            .map(|old| old.split(',').filter(|f| !f.is_empty()).map(str::to_string).collect())
            .unwrap_or_default();
        for f in features.split(',') {
            // The ISA's feature wins over a `-feature` of the scalar function.
            let name = f.trim_start_matches(['+', '-']);
            list.retain(|g| g.trim_start_matches(['+', '-']) != name);
            list.push(f.to_string());
        }
        let merged = list.join(",");
        clone.set_string_attribute(FN, "target-features", &merged);
    }
    // Vector arguments must travel in full-width registers (GCC's ABI).
    let bits = widest_vector_bits(clone.function_type());
    let old: u64 = scalar.string_attribute(FN, "min-legal-vector-width").and_then(|s| s.parse().ok()).unwrap_or(0);
    clone.set_string_attribute(FN, "min-legal-vector-width", &bits.max(old).to_string());
}

/// Bit width of a scalar element type (pointers count as 64 bits).
pub fn scalar_bits(e: Type) -> u32 {
    use llvm_sys::LLVMTypeKind::*;
    match e.kind() {
        LLVMIntegerTypeKind => e.int_width(),
        LLVMHalfTypeKind | LLVMBFloatTypeKind => 16,
        LLVMFloatTypeKind => 32,
        LLVMX86_FP80TypeKind => 80,
        LLVMFP128TypeKind => 128,
        _ => 64,
    }
}

fn widest_vector_bits(fty: Type) -> u64 {
    let bits = |t: Type| -> u64 {
        if t.is_vector() {
            scalar_bits(t.element()) as u64 * t.vector_len() as u64
        } else {
            0
        }
    };
    fty.param_types().into_iter().chain([fty.return_type()]).map(bits).max().unwrap_or(0)
}

/// Element width of full-width lane masks for ISAs without mask registers
/// (SSE2, AVX, AVX2): the characteristic type's width, as their compares
/// produce and their blends consume. `None` for AVX-512 and generic clones,
/// which keep `<N x i1>`.
pub fn lane_mask_bits(scalar_fn_ty: Type, spec: &CloneSpec) -> Option<u32> {
    use crate::vfabi::Isa;
    match spec.isa {
        Isa::Sse2 | Isa::Avx | Isa::Avx2 => {
            Some(scalar_bits(characteristic_type(scalar_fn_ty, spec)).clamp(8, 64).next_power_of_two())
        }
        _ => None,
    }
}
