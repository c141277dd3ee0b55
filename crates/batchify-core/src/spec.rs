//! What one batched clone must look like: its name, width, per-parameter
//! kinds, mask and ISA. Every front door (CLI flags, `declare simd`
//! attributes, later the Rust macro and `__enzyme_batch`) produces a
//! [`CloneSpec`]; the transform only ever sees this.

use crate::error::{Error, Result};
use crate::vfabi::{Isa, Param, ParamKind, VariantName, VectorLength};

/// How the clone receives its execution mask (masked variants only).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MaskAbi {
    /// `<N x i1>`: the target-independent form.
    LaneBits,
    /// A vector of the characteristic data type, nonzero = active
    /// (GCC's ABI for SSE/AVX/AVX2 variants).
    CharacteristicVector,
    /// An integer with one bit per lane, bit k = lane k (GCC's AVX-512 ABI).
    IntegerBitmask,
}

/// A fully resolved request for one batched clone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CloneSpec {
    /// Name of the scalar function in the module.
    pub scalar_name: String,
    /// Name the clone is emitted under.
    pub vector_name: String,
    /// Number of lanes.
    pub width: u32,
    /// One kind per scalar parameter.
    pub params: Vec<ParamKind>,
    /// Alignment (bytes) promised per parameter, if any.
    pub aligns: Vec<Option<u32>>,
    /// `Some` for masked variants.
    pub mask: Option<MaskAbi>,
    /// Target ISA of the clone.
    pub isa: Isa,
}

impl CloneSpec {
    /// A clone of `name` with every parameter varying (the CLI's
    /// `--function`), named with the Vector Function ABI mangling.
    pub fn all_varying(name: &str, param_count: usize, width: u32, isa: Isa, masked: bool) -> CloneSpec {
        let params = vec![ParamKind::Vector; param_count];
        let ps: Vec<Param> = params.iter().map(|&kind| Param { kind, align: None }).collect();
        CloneSpec {
            scalar_name: name.to_string(),
            vector_name: VariantName::mangle(isa, masked, width, &ps, name),
            width,
            aligns: vec![None; param_count],
            params,
            mask: masked.then(|| mask_abi_for(isa)),
            isa,
        }
    }

    /// [`CloneSpec::all_varying`] for a function of type `fty` (the CLI's
    /// and the plugin's `--function`): an SVE clone (`Isa::Sve`) has the
    /// scalable length (`_ZGVsNx...`, lanes from the types; `width` does
    /// not apply).
    pub fn all_varying_for(name: &str, fty: crate::llvm::Type, width: u32, isa: Isa) -> Result<CloneSpec> {
        let params = fty.param_types().len();
        if isa != Isa::Sve {
            return Ok(Self::all_varying(name, params, width, isa, false));
        }
        let v = VariantName::parse(&format!("_ZGVsNx{}_{name}", "v".repeat(params)))
            .map_err(|e| Error::BadVariant(e.to_string()))?;
        Self::for_function(&v, fty)
    }

    /// The spec a parsed Vector Function ABI name asks for. Rejects the
    /// parts of the ABI that batchify does not support (scalable vectors,
    /// SVE, reference parameters). SVE variants need the scalar function's
    /// type: [`CloneSpec::for_function`].
    pub fn from_variant(v: &VariantName) -> Result<CloneSpec> {
        let mangled = v.mangled();
        let mismatch = |reason: String| Error::VariantMismatch { variant: mangled.clone(), reason };
        if v.isa == Isa::Sve {
            return Err(mismatch(
                "SVE (`s`) variants are built for the functions of an AArch64 module only (not as callee or map \
                 variants); Advanced SIMD (`n`), x86 and _LLVM_ variants are"
                    .into(),
            ));
        }
        let width = match v.vlen {
            VectorLength::Fixed(n) if (1..=1024).contains(&n) => n,
            VectorLength::Fixed(n) => return Err(mismatch(format!("vector length {n} is out of range 1..=1024"))),
            VectorLength::Scalable => return Err(mismatch("scalable vector lengths are not supported".into())),
        };
        Self::with_width(v, width)
    }

    /// The spec `v` asks for of a scalar function of type `scalar_fn_ty`:
    /// as [`CloneSpec::from_variant`], and SVE variants of scalable length,
    /// whose `width` is the lane count per 128 bits of vector length
    /// ([`min_lanes`]): the clone has `vscale x width`
    /// lanes.
    pub fn for_function(v: &VariantName, scalar_fn_ty: crate::llvm::Type) -> Result<CloneSpec> {
        let mismatch = |reason: String| Error::VariantMismatch { variant: v.mangled(), reason };
        if let Some(i) = pointer_var_step(v, scalar_fn_ty) {
            return Err(mismatch(pointer_var_step_reason(i)));
        }
        if v.isa != Isa::Sve {
            return Self::from_variant(v);
        }
        if v.vlen != VectorLength::Scalable {
            return Err(mismatch(
                "fixed-length SVE variants are not supported; SVE variants of scalable length (`x`) are".into(),
            ));
        }
        let width = min_lanes(scalar_fn_ty, &v.params).map_err(mismatch)?;
        Self::with_width(v, width)
    }

    /// The spec `v` asks for in `module`: [`CloneSpec::for_function`] of its
    /// scalar function, or [`CloneSpec::from_variant`] when the module has
    /// none (the build then reports the missing function).
    pub fn for_variant_in(v: &VariantName, module: crate::llvm::Module) -> Result<CloneSpec> {
        match module.function(&v.scalar_name) {
            Some(f) => Self::for_function(v, f.function_type()),
            None => Self::from_variant(v),
        }
    }

    /// The spec of `v` at `width` lanes (the parameter kinds checked).
    fn with_width(v: &VariantName, width: u32) -> Result<CloneSpec> {
        let mangled = v.mangled();
        let mismatch = |reason: String| Error::VariantMismatch { variant: mangled.clone(), reason };
        let mut params: Vec<ParamKind> = Vec::with_capacity(v.params.len());
        for (i, p) in v.params.iter().enumerate() {
            params.push(match p.kind {
                // `linear(ref(x):s)`: the reference itself is linear, lane k's
                // is `&x + k*s` bytes, one pointer in the clone's signature
                // (GCC 12 passes one register): a linear pointer.
                ParamKind::LinearRef { kind: 'R', step } => ParamKind::Linear { step },
                // `linear(val(x):s)`: the referenced values are linear but
                // every lane has its own reference; GCC 12 passes a vector of
                // N pointers, so the parameter is varying (the promise about
                // the values is not needed).
                ParamKind::LinearRef { kind: 'L', .. } => ParamKind::Vector,
                ParamKind::LinearRef { kind, .. } => {
                    return Err(mismatch(format!(
                        "parameter {i}: `{}` linear references are not supported (only `R<step>`, linear(ref), and \
                         `L`, linear(val))",
                        match kind {
                            'U' => "U (linear(uval))".to_string(),
                            k => format!("{k} (variable step)"),
                        }
                    )))
                }
                ParamKind::LinearVarStep { param }
                    if v.params.get(param).map(|q| q.kind) != Some(ParamKind::Uniform) =>
                {
                    return Err(mismatch(format!("parameter {i}: the step parameter {param} must be uniform")));
                }
                kind => kind,
            });
        }
        Ok(CloneSpec {
            scalar_name: v.scalar_name.clone(),
            vector_name: v.vector_name.clone(),
            width,
            params,
            aligns: v.params.iter().map(|p| p.align).collect(),
            mask: v.masked.then(|| mask_abi_for(v.isa)),
            isa: v.isa,
        })
    }
}

/// The mask ABI of an ISA: GCC's conventions on x86 and AArch64 Advanced
/// SIMD (a vector of the characteristic type, as GCC 12's `_ZGVnM...`
/// clones read it), `<N x i1>` otherwise (for SVE: the predicate
/// `<vscale x N x i1>`).
pub fn mask_abi_for(isa: Isa) -> MaskAbi {
    match isa {
        Isa::Sse2 | Isa::Avx | Isa::Avx2 | Isa::AdvSimd => MaskAbi::CharacteristicVector,
        Isa::Avx512 => MaskAbi::IntegerBitmask,
        _ => MaskAbi::LaneBits,
    }
}

/// The first parameter of `v` that is a pointer with a variable linear step
/// (`ls<pos>`) in a function of type `fty`. Its step counts elements of
/// the pointee type (GCC 12's clones multiply it by the element size, as
/// OpenMP's `linear(p:s)` means), and LLVM IR's pointers do not say that
/// size, so no such clone is built.
pub fn pointer_var_step(v: &VariantName, fty: crate::llvm::Type) -> Option<usize> {
    let ptys = fty.param_types();
    v.params.iter().zip(&ptys).position(|(p, t)| {
        matches!(p.kind, ParamKind::LinearVarStep { .. }) && t.kind() == crate::llvm::LLVMTypeKind::LLVMPointerTypeKind
    })
}

/// The reason [`pointer_var_step`] gives for parameter `i`.
pub fn pointer_var_step_reason(i: usize) -> String {
    format!(
        "parameter {i} is a pointer with a variable linear step (`ls`), which counts elements of the pointee type \
         (GCC's clones multiply it by the element's size), and LLVM IR does not say that size; use a constant step \
         (`linear(p:2)`) or a uniform pointer with a linear integer index"
    )
}

/// Lanes per 128 bits of an SVE variant of a function of type `fty` with
/// parameters `params`: the smallest count over the varying parameters and
/// the result (2 for 64-bit types and pointers, 4 for 32-bit, 8 for 16-bit,
/// 16 for 8-bit), as LLVM's VFABI demangler computes it; 4 (GCC's `int`)
/// for a function without a varying parameter or a result.
pub fn min_lanes(fty: crate::llvm::Type, params: &[crate::vfabi::Param]) -> std::result::Result<u32, String> {
    let ptys = fty.param_types();
    if ptys.len() != params.len() {
        return Err(format!("it has {} parameter kind(s) but the function takes {}", params.len(), ptys.len()));
    }
    let mut types: Vec<crate::llvm::Type> =
        ptys.iter().zip(params).filter(|(_, p)| p.kind == ParamKind::Vector).map(|(t, _)| *t).collect();
    let ret = fty.return_type();
    if !ret.is_void() {
        types.push(ret);
    }
    if types.is_empty() {
        // No varying value to size the lanes (LLVM's demangler gives up
        // here): GCC's characteristic type for such functions, `int`.
        return Ok(4);
    }
    use crate::llvm::LLVMTypeKind::*;
    let mut lanes = u32::MAX;
    for t in types {
        let k = match (t.kind(), t.int_width()) {
            (LLVMIntegerTypeKind, 8) => 16,
            (LLVMIntegerTypeKind, 16) | (LLVMHalfTypeKind | LLVMBFloatTypeKind, _) => 8,
            (LLVMIntegerTypeKind, 32) | (LLVMFloatTypeKind, _) => 4,
            (LLVMIntegerTypeKind, 64) | (LLVMDoubleTypeKind | LLVMPointerTypeKind, _) => 2,
            _ => return Err(format!("type {} cannot be an SVE lane", t.print())),
        };
        lanes = lanes.min(k);
    }
    Ok(lanes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn function_flag_gets_a_vfabi_name() {
        let s = CloneSpec::all_varying("foo", 2, 8, Isa::Llvm, false);
        assert_eq!(s.vector_name, "_ZGV_LLVM_N8vv_foo");
        assert_eq!(s.params, vec![ParamKind::Vector; 2]);
    }

    #[test]
    fn variant_fields_are_carried_over() {
        let v = VariantName::parse("_ZGVdN8uuv_smoothstep").unwrap();
        let s = CloneSpec::from_variant(&v).unwrap();
        assert_eq!(s.width, 8);
        assert_eq!(s.isa, Isa::Avx2);
        assert_eq!(s.params, vec![ParamKind::Uniform, ParamKind::Uniform, ParamKind::Vector]);
        assert_eq!(s.vector_name, "_ZGVdN8uuv_smoothstep");
        assert_eq!(s.mask, None);
    }

    #[test]
    fn masked_x86_variants_use_gcc_mask_abis() {
        let v = VariantName::parse("_ZGVeM16v_f").unwrap();
        assert_eq!(CloneSpec::from_variant(&v).unwrap().mask, Some(MaskAbi::IntegerBitmask));
        let v = VariantName::parse("_ZGVbM4v_f").unwrap();
        assert_eq!(CloneSpec::from_variant(&v).unwrap().mask, Some(MaskAbi::CharacteristicVector));
    }

    #[test]
    fn unsupported_parts_are_rejected() {
        for name in ["_ZGVsNxv_f", "_ZGVsN4v_f", "_ZGVdN4U_f", "_ZGVdN4vls0_f"] {
            let v = VariantName::parse(name).unwrap();
            assert!(CloneSpec::from_variant(&v).is_err(), "{name}");
        }
    }
}
