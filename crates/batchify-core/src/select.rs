//! Stage 1, select: the clones a module asks for by itself, through
//! clang's `declare simd` attributes (`"_ZGVdN8vv_foo"` string attributes on
//! the scalar function) and LLVM's `vector-function-abi-variant` lists.
//!
//! Reads attributes; changes nothing.
//!
//! For the AVX (`c`) family with an integer or pointer characteristic type,
//! clang names 256-bit variants (`_ZGVcN8v_foo` for `int foo(int)`) where
//! GCC 12 names 128-bit ones (`_ZGVcN4v_foo`: AVX has no 256-bit integer
//! instructions); GCC's name is requested too, so that callers of both
//! compilers link (see [`gcc_avx_twin`] and `docs/gcc-abi.md`).

use crate::error::{Error, Result};
use crate::llvm::Type;
use crate::llvm::{attribute_is_string, attribute_string_key, attribute_string_value, Module};
use crate::spec::CloneSpec;
use crate::vfabi::{Isa, VariantName, VectorLength};

/// Every variant requested by attributes in the module, in module order
/// (without the SVE ones [`requested_variants_skipping`] skips).
pub fn requested_variants(module: Module) -> Result<Vec<CloneSpec>> {
    Ok(requested_variants_skipping(module)?.0)
}

/// Every variant requested by attributes in the module, in module order,
/// and one message per SVE variant that batchify cannot build (fixed-length
/// ones, which clang asks for under `simdlen(N)` with `+sve`, and types such
/// as `bool` that LLVM's VFABI gives no SVE lane count): those are skipped
/// so that the module's other variants are built (nothing calls them but
/// code written for them). Any other variant that does not fit is an error.
pub fn requested_variants_skipping(module: Module) -> Result<(Vec<CloneSpec>, Vec<String>)> {
    let mut out: Vec<CloneSpec> = Vec::new();
    let mut skipped = Vec::new();
    for f in module.functions() {
        if f.is_declaration() {
            continue;
        }
        for a in f.attributes(crate::llvm::FUNCTION_INDEX) {
            if !attribute_is_string(a) {
                continue;
            }
            let key = attribute_string_key(a);
            let names: Vec<String> = if key.starts_with("_ZGV") {
                vec![key]
            } else if key == "vector-function-abi-variant" {
                attribute_string_value(a).split(',').map(|s| s.trim().to_string()).collect()
            } else {
                continue;
            };
            for name in names {
                let v = VariantName::parse(&name).map_err(|e| Error::BadVariant(e.to_string()))?;
                let spec = match CloneSpec::for_function(&v, f.function_type()) {
                    Ok(spec) => spec,
                    Err(e) if v.isa == Isa::Sve || crate::spec::pointer_var_step(&v, f.function_type()).is_some() => {
                        skipped.push(format!("{e}; the variant is not built"));
                        continue;
                    }
                    Err(e) => return Err(e),
                };
                let gcc = gcc_avx_twin(f.function_type(), &v, &spec);
                for spec in std::iter::once(spec).chain(gcc) {
                    if !out.iter().any(|s| s.vector_name == spec.vector_name) {
                        out.push(spec);
                    }
                }
            }
        }
    }
    Ok((out, skipped))
}

/// GCC's name for the AVX variant that clang names `v` (a spec `spec` of a
/// function of type `scalar_fn_ty`): the same variant at half the width,
/// when `v` is a `c` variant whose characteristic type is an integer or a
/// pointer and whose width fills 256 bits (clang's choice). `None` when
/// the names agree.
pub fn gcc_avx_twin(scalar_fn_ty: Type, v: &VariantName, spec: &CloneSpec) -> Option<CloneSpec> {
    if v.isa != Isa::Avx || spec.width < 2 || spec.params.len() != scalar_fn_ty.param_types().len() {
        return None;
    }
    let c = crate::abi::characteristic_type(scalar_fn_ty, spec);
    let integer = c.int_width() > 0 || c.kind() == crate::llvm::LLVMTypeKind::LLVMPointerTypeKind;
    if !integer || spec.width * crate::abi::scalar_bits(c) != 256 {
        return None;
    }
    let half = VariantName { vlen: VectorLength::Fixed(spec.width / 2), ..v.clone() };
    let name = half.mangled();
    CloneSpec::from_variant(&VariantName { vector_name: name, ..half }).ok()
}
