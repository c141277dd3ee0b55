//! The clone's target: the x86 instruction set its variant letter names
//! fixes the vector registers it may use, whatever the module was compiled
//! for (documented in `docs/gcc-abi.md`, "Target features"). An AArch64
//! Advanced SIMD clone gets `+neon` added to the scalar function's features
//! and keeps its CPU: every AArch64 Advanced SIMD register is 128 bits, so
//! no feature changes how vectors are passed (docs/aarch64-abi.md).
//!
//! A `b` clone of a function compiled with `-march=x86-64-v3` must not
//! carry `+avx2`: LLVM would then pass a `<4 x ptr>` argument in one `ymm`
//! register where GCC's callers pass two `xmm` registers, and the body
//! would use VEX-encoded AVX2 instructions. So the clone's `target-cpu`
//! becomes the baseline `x86-64` (a named CPU implies its vector
//! extensions), and every vector feature of the scalar function's
//! `target-features` above the ISA's level is dropped; the ISA's own
//! feature is added. Features at or below the level (SSE4.2 under `b`, FMA
//! under `c` and `d`) and scalar ones (BMI, POPCNT, ...) are kept, as GCC
//! keeps the translation unit's options on its clones. The scalar
//! function's `tune-cpu` (or else its `target-cpu`) becomes the clone's
//! `tune-cpu`: scheduling does not change the ABI. A scalar function that
//! pins no `target-cpu` (hand-written IR) is compiled for whatever CPU the
//! final compile is given, and so is its clone: only the ISA's feature is
//! added then.

use crate::llvm::{Value, FUNCTION_INDEX as FN};
use crate::vfabi::Isa;

/// The vector level of an x86 ISA: 0 SSE, 1 AVX, 2 AVX2, 3 AVX-512.
fn isa_level(isa: Isa) -> Option<u8> {
    Some(match isa {
        Isa::Sse2 => 0,
        Isa::Avx => 1,
        Isa::Avx2 => 2,
        Isa::Avx512 => 3,
        Isa::Llvm | Isa::AdvSimd | Isa::Sve => return None,
    })
}

/// The vector level an LLVM x86 feature name implies (see
/// `llvm/lib/Target/X86/X86.td`): 0 for SSE-level and scalar features.
pub fn feature_level(name: &str) -> u8 {
    match name {
        "avx" | "f16c" | "fma" | "fma4" | "xop" | "vpclmulqdq" | "sm3" => 1,
        "avx2" | "vaes" | "sha512" | "sm4" => 2,
        _ if name.starts_with("avx512") || name.starts_with("amx") || name.starts_with("avx10") => 3,
        "evex512" => 3,
        // avxvnni, avxifma, avxneconvert, avxvnniint8, avxvnniint16: AVX2.
        _ if name.starts_with("avx") => 2,
        _ => 0,
    }
}

/// `target-features` of a clone for `isa`, from the scalar function's list
/// (`None`: it has none): vector features above the ISA's level dropped,
/// the ISA's features added (replacing a `-feature` of the same name).
pub fn clone_features(scalar_features: Option<&str>, isa: Isa) -> Option<String> {
    let (level, own) = (isa_level(isa)?, isa.target_features()?);
    let mut list: Vec<&str> = scalar_features
        .unwrap_or_default()
        .split(',')
        .filter(|f| !f.is_empty())
        .filter(|f| !(f.starts_with('+') && feature_level(&f[1..]) > level))
        .collect();
    for f in own.split(',') {
        let name = f.trim_start_matches(['+', '-']);
        list.retain(|g| g.trim_start_matches(['+', '-']) != name);
        list.push(f);
    }
    Some(list.join(","))
}

/// `features` (a comma-separated list, `None`: empty) with `feature`
/// (`+name`) in place of any `+name`/`-name` it has.
fn with_feature(features: Option<&str>, feature: &str) -> String {
    let name = feature.trim_start_matches(['+', '-']);
    let mut list: Vec<&str> = features
        .unwrap_or_default()
        .split(',')
        .filter(|f| !f.is_empty() && f.trim_start_matches(['+', '-']) != name)
        .collect();
    list.push(feature);
    list.join(",")
}

/// Adds `feature` (`+name`) to `f`'s `target-features`, replacing any
/// `+name`/`-name` it has.
pub fn add_feature(f: Value, feature: &str) {
    let features = with_feature(f.string_attribute(FN, "target-features").as_deref(), feature);
    f.set_string_attribute(FN, "target-features", &features);
}

/// Sets the clone's `target-cpu`, `tune-cpu` and `target-features` for its
/// ISA (x86 ISAs; Advanced SIMD adds `+neon`, SVE `+sve`; other clones keep
/// the scalar function's strings).
/// A scalar function that pins no `target-cpu` (hand-written IR) leaves the
/// CPU to the final compile, as before: only the ISA's feature is added.
pub fn apply(scalar: Value, clone: Value, isa: Isa) {
    if isa.is_aarch64() {
        let own = isa.target_features().expect("AArch64 ISAs have a feature");
        let features = with_feature(scalar.string_attribute(FN, "target-features").as_deref(), own);
        clone.set_string_attribute(FN, "target-features", &features);
        return;
    }
    let Some(features) = clone_features(scalar.string_attribute(FN, "target-features").as_deref(), isa) else {
        return;
    };
    if let Some(cpu) = scalar.string_attribute(FN, "target-cpu") {
        if cpu != "x86-64" && scalar.string_attribute(FN, "tune-cpu").is_none() {
            clone.set_string_attribute(FN, "tune-cpu", &cpu);
        }
        clone.set_string_attribute(FN, "target-cpu", "x86-64");
    }
    clone.set_string_attribute(FN, "target-features", &features);
}

#[cfg(test)]
mod tests {
    use super::*;

    const V3: &str = "+avx,+avx2,+bmi,+bmi2,+cmov,+crc32,+cx16,+cx8,+f16c,+fma,+fxsr,+lzcnt,+mmx,+movbe,+popcnt,\
                      +sse,+sse2,+sse3,+sse4.1,+sse4.2,+ssse3,+x87,+xsave";

    #[test]
    fn sse_clone_of_a_v3_function_loses_every_avx_feature() {
        let f = clone_features(Some(V3), Isa::Sse2).unwrap();
        for gone in ["+avx", "+avx2", "+f16c", "+fma"] {
            assert!(!f.split(',').any(|x| x == gone), "{gone} in {f}");
        }
        for kept in ["+sse4.2", "+bmi2", "+popcnt", "+sse2"] {
            assert!(f.split(',').any(|x| x == kept), "{kept} missing from {f}");
        }
    }

    #[test]
    fn avx_keeps_fma_and_avx2_drops_avx512() {
        let f = clone_features(Some(V3), Isa::Avx).unwrap();
        assert!(f.contains("+fma") && !f.contains("+avx2"), "{f}");
        let f = clone_features(Some("+avx512f,+avx512vl,+evex512,+avx2,+fma"), Isa::Avx2).unwrap();
        assert_eq!(f, "+fma,+avx2");
        let f = clone_features(Some("+avx512f,+avx512vl,+evex512"), Isa::Avx512).unwrap();
        assert_eq!(f, "+avx512vl,+evex512,+avx512f");
    }

    #[test]
    fn the_isa_feature_replaces_its_removal_and_non_x86_is_untouched() {
        assert_eq!(clone_features(Some("-avx2,+bmi"), Isa::Avx2).unwrap(), "+bmi,+avx2");
        assert_eq!(clone_features(None, Isa::Sse2).unwrap(), "+sse2");
        assert_eq!(clone_features(Some("+avx2"), Isa::Llvm), None);
    }

    #[test]
    fn advanced_simd_adds_neon_once() {
        assert_eq!(with_feature(Some("+fp-armv8,+neon,+v8a"), "+neon"), "+fp-armv8,+v8a,+neon");
        assert_eq!(with_feature(Some("+v8a,-neon"), "+neon"), "+v8a,+neon");
        assert_eq!(with_feature(None, "+neon"), "+neon");
    }
}
