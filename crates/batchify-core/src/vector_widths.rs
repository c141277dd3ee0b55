//! Calls agree on vector registers: the `"min-legal-vector-width"` of the
//! functions batchify creates or changes, and a check that every call's
//! caller and callee pass its wide vectors in the same registers.
//!
//! x86 passes a vector wider than 256 bits in one `zmm` register only in a
//! function whose subtarget "uses AVX-512 registers": AVX-512F is on and
//! either the CPU's tuning does not prefer 256-bit vectors or the
//! function's `"min-legal-vector-width"` exceeds 256 (no attribute counts
//! as unlimited). Otherwise it travels in two `ymm` registers. Every Intel
//! AVX-512 CPU LLVM knows, and `x86-64-v4`, prefer 256-bit vectors; Zen 4
//! does not. So a clone whose own signature is 256 bits wide that calls a
//! helper taking `<8 x i64>` passes it in `ymm2:ymm3` on Intel while the
//! helper reads `zmm2`, and every later argument arrives one register off.
//! clang avoids this by raising a caller's width to cover the vector
//! arguments of the calls it makes; [`cover_calls`] does the same for
//! batchify's functions, and [`check_calls`] finds any call where the two
//! sides would still disagree (docs/gcc-abi.md, "Vector registers across
//! calls").

use crate::llvm::{Module, Type, Value, FUNCTION_INDEX as FN};
use crate::vfabi::{Isa, VariantName};
use std::collections::HashSet;

/// The attribute LLVM's x86 back end reads.
const MIN_LEGAL: &str = "min-legal-vector-width";

/// Vectors up to this width travel the same way whatever the tuning.
const SAFE_BITS: u64 = 256;

/// Width in bits of the widest vector in `t`, looking into structs and
/// arrays (an aggregate travels in the registers of its vectors).
pub fn widest_vector_bits(t: Type) -> u64 {
    if t.is_vector() {
        crate::abi::scalar_bits(t.element()) as u64 * t.vector_len() as u64
    } else {
        t.members().into_iter().map(widest_vector_bits).max().unwrap_or(0)
    }
}

/// Width of the widest vector among a function type's parameters and result.
pub fn signature_bits(fty: Type) -> u64 {
    fty.param_types().into_iter().chain([fty.return_type()]).map(widest_vector_bits).max().unwrap_or(0)
}

/// `f`'s `"min-legal-vector-width"`; `None` without one (unlimited).
fn min_legal(f: Value) -> Option<u64> {
    f.string_attribute(FN, MIN_LEGAL).and_then(|s| s.parse().ok())
}

/// Raises `f`'s `"min-legal-vector-width"` to at least `bits` (a function
/// without the attribute is unlimited already and stays so).
pub fn cover(f: Value, bits: u64) {
    if let Some(old) = min_legal(f) {
        if old < bits {
            f.set_string_attribute(FN, MIN_LEGAL, &bits.to_string());
        }
    }
}

/// The calls and invokes in `f` that are calls at the machine level (not
/// intrinsics), each with its callee when that is a function (`None`: an
/// indirect call).
fn machine_calls<'ctx>(f: Value<'ctx>) -> Vec<(Value<'ctx>, Option<Value<'ctx>>)> {
    let calls = f.blocks().into_iter().flat_map(|b| b.instructions()).filter(|i| i.is_call() || i.is_invoke());
    calls
        .filter_map(|i| {
            let callee = i.called_value();
            match callee.is_function() {
                true if callee.intrinsic_id() != 0 => None,
                true => Some((i, Some(callee))),
                false => Some((i, None)),
            }
        })
        .collect()
}

/// The calls in `f` of a function, with that function.
fn direct_calls<'ctx>(f: Value<'ctx>) -> Vec<(Value<'ctx>, Value<'ctx>)> {
    machine_calls(f).into_iter().filter_map(|(call, callee)| Some((call, callee?))).collect()
}

/// Raises `f`'s `"min-legal-vector-width"` to cover its own signature,
/// the vector types of every call it makes (indirect ones too) and those
/// of its x86 target intrinsics, as clang does for the functions it emits
/// (its intrinsic wrappers carry `min_vector_width`). A target intrinsic's
/// vectors cannot be split: a 512-bit `vpermi2var` in a function whose
/// width is 256 under an Intel tuning stops the back end ("Do not know how
/// to split the result of this operator").
pub fn cover_calls(f: Value) {
    let calls = machine_calls(f).into_iter().map(|(c, _)| signature_bits(c.called_function_type()));
    let intrinsics = target_intrinsic_calls(f).into_iter().map(|c| signature_bits(c.called_function_type()));
    cover(f, calls.chain(intrinsics).chain([signature_bits(f.function_type())]).max().unwrap_or(0));
}

/// The calls in `f` of x86 target intrinsics (`llvm.x86.*`).
fn target_intrinsic_calls<'ctx>(f: Value<'ctx>) -> Vec<Value<'ctx>> {
    let calls = f.blocks().into_iter().flat_map(|b| b.instructions()).filter(|i| i.is_call());
    calls
        .filter(|i| {
            let callee = i.called_value();
            callee.is_function() && callee.intrinsic_id() != 0 && callee.name().starts_with("llvm.x86.")
        })
        .collect()
}

/// The module's functions before batchify ran: [`Snapshot::changed`] tells
/// which functions it created or gave calls of new functions afterwards.
pub struct Snapshot {
    names: HashSet<String>,
    defined: HashSet<String>,
}

impl Snapshot {
    /// Records the module's functions as they are now.
    pub fn take(module: Module) -> Snapshot {
        let fs = module.functions();
        Snapshot {
            names: fs.iter().map(|f| f.name()).collect(),
            defined: fs.iter().filter(|f| !f.is_declaration()).map(|f| f.name()).collect(),
        }
    }

    /// Whether `f` is new: absent before, or only declared then.
    fn is_new(&self, f: Value) -> bool {
        let name = f.name();
        !self.names.contains(&name) || (!f.is_declaration() && !self.defined.contains(&name))
    }

    /// The defined functions batchify created since the snapshot (or gave
    /// the body of a declaration), and those that now call a function whose
    /// name is new since then. A function that called a declaration before
    /// and calls its new body now is the caller's own: batchify made no
    /// call there (a user's hand-written call of a variant).
    pub fn changed<'ctx>(&self, module: Module<'ctx>) -> Vec<Value<'ctx>> {
        module
            .functions()
            .into_iter()
            .filter(|f| !f.is_declaration())
            .filter(|&f| self.is_new(f) || direct_calls(f).iter().any(|&(_, g)| !self.names.contains(&g.name())))
            .collect()
    }

    /// [`cover_calls`] on every function [`Snapshot::changed`] returns;
    /// returns them.
    pub fn cover_changed<'ctx>(&self, module: Module<'ctx>) -> Vec<Value<'ctx>> {
        let changed = self.changed(module);
        for &f in &changed {
            cover_calls(f);
        }
        changed
    }
}

/// How a function passes a vector argument or result of a given width.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Registers {
    /// In `xmm` registers (or pieces of them): no AVX.
    Xmm,
    /// In `ymm` registers (or pieces of them): AVX, no AVX-512F.
    Ymm,
    /// In `zmm` registers: AVX-512F, and a `"min-legal-vector-width"` above
    /// 256 (or none), so whatever the tuning.
    Zmm,
    /// As the tuning named by the string decides: AVX-512F (or the final
    /// compile's CPU) with a width of at most 256, so `zmm` unless the CPU
    /// prefers 256-bit vectors.
    ByTuning(String),
    /// As the final compile's CPU decides (the function names no CPU, and
    /// its features do not settle it).
    ByCpu,
}

impl std::fmt::Display for Registers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Registers::Xmm => write!(f, "in xmm registers (no AVX)"),
            Registers::Ymm => write!(f, "in ymm registers (AVX, no AVX-512F)"),
            Registers::Zmm => write!(f, "in zmm registers"),
            Registers::ByTuning(t) if t.is_empty() => {
                write!(f, "as the CPU's tuning decides (min-legal-vector-width <= 256)")
            }
            Registers::ByTuning(t) => write!(f, "as `{t}`'s tuning decides (min-legal-vector-width <= 256)"),
            Registers::ByCpu => write!(f, "as the final compile's CPU decides"),
        }
    }
}

/// x86 vector levels (0 SSE, 1 AVX, 2 AVX2, 3 AVX-512F) a function may
/// have: at least `min`; at most `max`, or as the final compile's CPU
/// allows (`None`: it names no CPU).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Levels {
    min: u8,
    max: Option<u8>,
}

/// The vector level of an x86 CPU name LLVM knows (`None`: not in this
/// table, treated like a function that names no CPU).
fn cpu_level(cpu: &str) -> Option<u8> {
    const AVX512: &[&str] = &[
        "x86-64-v4",
        "knl",
        "knm",
        "skylake-avx512",
        "skx",
        "cascadelake",
        "cooperlake",
        "cannonlake",
        "icelake-client",
        "icelake-server",
        "rocketlake",
        "tigerlake",
        "sapphirerapids",
        "emeraldrapids",
        "graniterapids",
        "graniterapids-d",
        "diamondrapids",
        "znver4",
        "znver5",
    ];
    const AVX2: &[&str] = &[
        "x86-64-v3",
        "haswell",
        "core-avx2",
        "broadwell",
        "skylake",
        "alderlake",
        "raptorlake",
        "meteorlake",
        "arrowlake",
        "arrowlake-s",
        "lunarlake",
        "gracemont",
        "pantherlake",
        "sierraforest",
        "grandridge",
        "clearwaterforest",
        "znver1",
        "znver2",
        "znver3",
        "bdver4",
    ];
    const AVX: &[&str] =
        &["sandybridge", "corei7-avx", "ivybridge", "core-avx-i", "bdver1", "bdver2", "bdver3", "btver2"];
    const SSE: &[&str] = &[
        "x86-64",
        "x86-64-v2",
        "generic",
        "nocona",
        "core2",
        "penryn",
        "nehalem",
        "corei7",
        "westmere",
        "bonnell",
        "atom",
        "silvermont",
        "slm",
        "goldmont",
        "goldmont-plus",
        "tremont",
        "k8",
        "opteron",
        "athlon64",
        "amdfam10",
        "barcelona",
        "btver1",
    ];
    [(AVX512, 3), (AVX2, 2), (AVX, 1), (SSE, 0)].into_iter().find(|(names, _)| names.contains(&cpu)).map(|(_, l)| l)
}

/// The vector levels of `f`, from its `target-cpu` and `target-features`.
/// Without a `target-features` attribute, the final compile's features
/// (`-mattr`, the JIT's host features) apply on top of the CPU's, so the
/// level is open upwards.
fn levels(f: Value) -> Levels {
    use crate::shell::target::feature_level;
    let own_features = f.string_attribute(FN, "target-features");
    let features = own_features.clone().unwrap_or_default();
    let listed: Vec<&str> = features.split(',').filter(|x| !x.is_empty()).collect();
    let added = listed.iter().filter_map(|x| x.strip_prefix('+')).map(feature_level).max().unwrap_or(0);
    // A removed feature caps the level below it.
    let cap = listed
        .iter()
        .filter_map(|x| x.strip_prefix('-'))
        .filter_map(|x| match x {
            "avx" => Some(0),
            "avx2" => Some(1),
            "avx512f" => Some(2),
            _ => None,
        })
        .min();
    let cpu = f.string_attribute(FN, "target-cpu").and_then(|c| cpu_level(&c));
    let floor = cpu.unwrap_or(0).max(added).min(cap.unwrap_or(3));
    // A named CPU with its own feature list fixes the level; otherwise the
    // CPU and the features give a floor.
    let max = match (cpu, own_features) {
        (Some(_), Some(_)) => Some(floor),
        _ => cap,
    };
    Levels { min: floor, max }
}

/// Whether `f` may run with AVX-512 mask registers: its CPU and features
/// allow AVX-512F, or leave it to the final compile's CPU.
pub fn may_have_mask_registers(f: Value) -> bool {
    levels(f).max.is_none_or(|m| m >= 3)
}

/// How `f` passes a vector of `bits` bits. A declaration of a GCC-ABI x86
/// variant (`_ZGVe...`, `_ZGVd...`) follows its ISA, as GCC and glibc's
/// libmvec compile it; other declarations are assumed compiled as clang or
/// batchify compile their definitions (a width covering their signature).
pub fn registers(f: Value, bits: u64) -> Registers {
    let levels = match f.is_declaration().then(|| VariantName::parse(&f.name()).ok()).flatten().map(|v| v.isa) {
        Some(Isa::Avx512) => return if bits > 128 { Registers::Zmm } else { Registers::Xmm },
        Some(Isa::Avx2) => Levels { min: 2, max: Some(2) },
        Some(Isa::Avx) => Levels { min: 1, max: Some(1) },
        Some(Isa::Sse2) => Levels { min: 0, max: Some(0) },
        _ => levels(f),
    };
    if bits <= 128 || levels.max == Some(0) {
        return Registers::Xmm;
    }
    if bits <= SAFE_BITS {
        return if levels.min >= 1 { Registers::Ymm } else { Registers::ByCpu };
    }
    if levels.max.is_some_and(|m| m < 3) {
        return Registers::Ymm;
    }
    match min_legal(f) {
        Some(w) if w <= SAFE_BITS => {
            let tune = f.string_attribute(FN, "tune-cpu").or_else(|| f.string_attribute(FN, "target-cpu"));
            let prefer = f.string_attribute(FN, "prefer-vector-width").map(|p| format!(", prefer {p}"));
            Registers::ByTuning(format!("{}{}", tune.unwrap_or_default(), prefer.unwrap_or_default()))
        }
        _ => Registers::Zmm,
    }
}

/// One call whose caller and callee may pass a vector differently.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Disagreement {
    /// The calling function.
    pub caller: String,
    /// The called function.
    pub callee: String,
    /// Width of the call's widest vector.
    pub bits: u64,
    /// How the caller passes it.
    pub caller_passes: Registers,
    /// How the callee reads it.
    pub callee_reads: Registers,
}

impl std::fmt::Display for Disagreement {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "`{}` calls `{}` with a {}-bit vector: the caller passes it {}, the callee reads it {}",
            self.caller, self.callee, self.bits, self.caller_passes, self.callee_reads
        )
    }
}

/// Whether a call from `caller` to `callee` whose widest vector has `bits`
/// bits passes it the same way on both sides on every CPU that can run
/// both. A side whose CPU is left to the final compile agrees with one
/// that has AVX for vectors of up to 256 bits: the call runs only on a CPU
/// with AVX.
pub fn agree(caller: Value, callee: Value, bits: u64) -> bool {
    let (a, b) = (registers(caller, bits), registers(callee, bits));
    a == b
        || (bits <= SAFE_BITS
            && matches!((&a, &b), (Registers::ByCpu, Registers::Ymm) | (Registers::Ymm, Registers::ByCpu)))
}

/// Every direct call in `functions` whose caller and callee would pass a
/// vector of its type in different registers on some x86 CPU (its widest
/// vector decides). Only x86 modules are checked (an empty list otherwise).
pub fn check_calls(module: Module, functions: &[Value]) -> Vec<Disagreement> {
    let triple = module.target_triple();
    if !triple.starts_with("x86_64") && !triple.is_empty() {
        return Vec::new();
    }
    let mut out = Vec::new();
    for &f in functions {
        for (call, callee) in direct_calls(f) {
            let bits = signature_bits(call.called_function_type());
            if !agree(f, callee, bits) {
                let (caller_passes, callee_reads) = (registers(f, bits), registers(callee, bits));
                out.push(Disagreement { caller: f.name(), callee: callee.name(), bits, caller_passes, callee_reads });
            }
        }
    }
    out
}

/// [`check_calls`] over every defined function of the module.
pub fn check_module(module: Module) -> Vec<Disagreement> {
    let defined: Vec<Value> = module.functions().into_iter().filter(|f| !f.is_declaration()).collect();
    check_calls(module, &defined)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llvm::parse_ir;

    /// The shape of the Intel defect: a 256-bit clone calls a helper whose
    /// signature holds an `<8 x i64>` (`shared/repro/min-legal-vector-width`).
    const CLONE_CALLS_HELPER: &str = r#"
target triple = "x86_64-unknown-linux-gnu"
define internal <8 x i32> @helper(<8 x i64> %p, <8 x i32> %m) #1 {
  %t = trunc <8 x i64> %p to <8 x i32>
  %r = add <8 x i32> %t, %m
  ret <8 x i32> %r
}
define <8 x i32> @clone(<8 x i32> %a) #0 {
  %w = sext <8 x i32> %a to <8 x i64>
  %r = call <8 x i32> @helper(<8 x i64> %w, <8 x i32> %a)
  ret <8 x i32> %r
}
define <8 x i32> @unlimited(<8 x i32> %a) {
  %w = sext <8 x i32> %a to <8 x i64>
  %r = call <8 x i32> @helper(<8 x i64> %w, <8 x i32> %a)
  ret <8 x i32> %r
}
declare <8 x double> @_ZGVdN8v_g(<8 x double>)
define <8 x double> @avx512_caller(<8 x double> %x) #2 {
  %r = call <8 x double> @_ZGVdN8v_g(<8 x double> %x)
  ret <8 x double> %r
}
attributes #0 = { "min-legal-vector-width"="256" }
attributes #1 = { "min-legal-vector-width"="512" }
attributes #2 = { "target-cpu"="x86-64" "target-features"="+avx2,+avx512f" "min-legal-vector-width"="512" }
"#;

    #[test]
    fn a_narrow_caller_of_a_wide_helper_disagrees_until_covered() {
        let ctx = inkwell::context::Context::create();
        let m = parse_ir(&ctx, CLONE_CALLS_HELPER, "t").unwrap();
        let module = Module::from_inkwell(&m);
        let found = check_module(module);
        let pairs: Vec<(&str, &str)> = found.iter().map(|d| (d.caller.as_str(), d.callee.as_str())).collect();
        assert_eq!(pairs, [("clone", "helper"), ("avx512_caller", "_ZGVdN8v_g")], "{found:?}");
        assert_eq!(found[0].caller_passes, Registers::ByTuning(String::new()));
        assert_eq!(found[0].callee_reads, Registers::Zmm);
        assert!(found[0].to_string().contains("512-bit vector"), "{}", found[0]);

        let clone = module.function("clone").unwrap();
        cover_calls(clone);
        assert_eq!(clone.string_attribute(FN, MIN_LEGAL).as_deref(), Some("512"));
        // No attribute means unlimited: covering leaves it unset.
        let unlimited = module.function("unlimited").unwrap();
        cover_calls(unlimited);
        assert_eq!(unlimited.string_attribute(FN, MIN_LEGAL), None);
        // A GCC-ABI AVX2 variant reads ymm pieces: no width fixes an AVX-512 caller.
        let rest: Vec<String> = check_module(module).iter().map(|d| d.caller.clone()).collect();
        assert_eq!(rest, ["avx512_caller"]);
    }

    /// An AVX-512 loop calling an SSE variant's adapter with a 256-bit
    /// vector passes it in `ymm0`; the SSE adapter reads `xmm0:xmm1`.
    #[test]
    fn an_sse_callee_of_an_avx_caller_disagrees_on_256_bit_vectors() {
        let ir = r#"
target triple = "x86_64-unknown-linux-gnu"
define internal <4 x float> @sse(<4 x double> %d) #0 {
  %r = fptrunc <4 x double> %d to <4 x float>
  ret <4 x float> %r
}
define <4 x float> @v4(<4 x double> %d) #1 {
  %r = call <4 x float> @sse(<4 x double> %d)
  ret <4 x float> %r
}
define <4 x float> @v3(<2 x double> %d) #2 {
  %w = shufflevector <2 x double> %d, <2 x double> %d, <4 x i32> <i32 0, i32 1, i32 0, i32 1>
  %r = call <4 x float> @sse(<4 x double> %w)
  ret <4 x float> %r
}
define <4 x float> @open(<2 x double> %d) {
  %r = call <4 x float> @v3(<2 x double> %d)
  ret <4 x float> %r
}
attributes #0 = { "target-cpu"="x86-64" "target-features"="+sse2" "min-legal-vector-width"="256" }
attributes #1 = { "target-cpu"="x86-64-v4" "min-legal-vector-width"="256" }
attributes #2 = { "target-features"="+avx2" }
"#;
        let ctx = inkwell::context::Context::create();
        let m = parse_ir(&ctx, ir, "t").unwrap();
        let module = Module::from_inkwell(&m);
        let found = check_module(module);
        let pairs: Vec<(&str, &str)> = found.iter().map(|d| (d.caller.as_str(), d.callee.as_str())).collect();
        // `open` passes only 128 bits: it agrees with anything.
        assert_eq!(pairs, [("v4", "sse"), ("v3", "sse")], "{found:?}");
        assert_eq!((&found[0].caller_passes, &found[0].callee_reads), (&Registers::Ymm, &Registers::Xmm));
    }

    #[test]
    fn snapshot_finds_new_functions_and_their_callers() {
        let ctx = inkwell::context::Context::create();
        let m = parse_ir(&ctx, CLONE_CALLS_HELPER, "t").unwrap();
        let module = Module::from_inkwell(&m);
        let before = Snapshot::take(module);
        assert!(before.changed(module).is_empty());
        let helper = module.function("helper").unwrap();
        helper.set_name("helper.old");
        let renamed: Vec<String> = before.changed(module).iter().map(|f| f.name()).collect();
        // `helper.old` is new by name; `clone` and `unlimited` call it.
        assert_eq!(renamed, ["helper.old", "clone", "unlimited"]);
    }

    #[test]
    fn widths_look_into_aggregates() {
        let ctx = inkwell::context::Context::create();
        let m = parse_ir(&ctx, "declare { <8 x float>, [2 x <8 x double>] } @f(<4 x i64>)", "t").unwrap();
        let f = Module::from_inkwell(&m).function("f").unwrap();
        assert_eq!(signature_bits(f.function_type()), 512);
    }
}
