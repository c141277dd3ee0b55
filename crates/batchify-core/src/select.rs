//! Stage 1, select: the clones a module asks for by itself, through
//! clang's `declare simd` attributes (`"_ZGVdN8vv_foo"` string attributes on
//! the scalar function) and LLVM's `vector-function-abi-variant` lists.
//!
//! Reads attributes; changes nothing.

use crate::error::{Error, Result};
use crate::llvm::{attribute_is_string, attribute_string_key, attribute_string_value, Module};
use crate::spec::CloneSpec;
use crate::vfabi::VariantName;

/// Every variant requested by attributes in the module, in module order.
pub fn requested_variants(module: Module) -> Result<Vec<CloneSpec>> {
    let mut out: Vec<CloneSpec> = Vec::new();
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
                let spec = CloneSpec::from_variant(&v)?;
                if !out.iter().any(|s| s.vector_name == spec.vector_name) {
                    out.push(spec);
                }
            }
        }
    }
    Ok(out)
}
