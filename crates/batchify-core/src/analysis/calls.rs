//! Calls: which calls give the same result in every lane when their
//! arguments are uniform, and how LLVM intrinsics map to their vector forms.
//!
//! Part of the analyses: reads calls, changes nothing.

use crate::llvm::{intrinsic_base_name, Type, Value};

/// How an intrinsic's overloaded types are derived from its scalar call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Overload {
    /// One overloaded type: the return type (`llvm.fabs.v8f32`).
    Ret,
    /// Two: the return type and the type of argument 1 (`llvm.powi`, `llvm.ldexp`).
    RetArg1,
    /// Two: the return type and the type of argument 0 (`llvm.lrint`, `llvm.fptosi.sat`).
    RetArg0,
    /// One: the type of argument 0 (`llvm.is.fpclass`).
    Arg0,
}

/// A lane-wise intrinsic: its overloads and which arguments must stay
/// scalar (immediate arguments, or a scalar exponent).
#[derive(Debug, Clone, Copy)]
pub struct LaneWise {
    /// Overloaded-type rule.
    pub overload: Overload,
    /// Argument indices that must be uniform (kept scalar) in the vector form.
    pub scalar_args: &'static [u32],
}

/// The vector form of an intrinsic call, if it has one.
pub fn lane_wise_intrinsic(base: &str) -> Option<LaneWise> {
    const NONE: &[u32] = &[];
    let (overload, scalar_args) = match base {
        "llvm.fabs" | "llvm.sqrt" | "llvm.fma" | "llvm.fmuladd" | "llvm.minnum" | "llvm.maxnum" | "llvm.minimum"
        | "llvm.maximum" | "llvm.minimumnum" | "llvm.maximumnum" | "llvm.copysign" | "llvm.floor" | "llvm.ceil"
        | "llvm.trunc" | "llvm.rint" | "llvm.nearbyint" | "llvm.round" | "llvm.roundeven" | "llvm.canonicalize"
        | "llvm.sin" | "llvm.cos" | "llvm.tan" | "llvm.asin" | "llvm.acos" | "llvm.atan" | "llvm.atan2"
        | "llvm.sinh" | "llvm.cosh" | "llvm.tanh" | "llvm.exp" | "llvm.exp2" | "llvm.exp10" | "llvm.log"
        | "llvm.log2" | "llvm.log10" | "llvm.pow" | "llvm.ctpop" | "llvm.bswap" | "llvm.bitreverse" | "llvm.smax"
        | "llvm.smin" | "llvm.umax" | "llvm.umin" | "llvm.sadd.sat" | "llvm.uadd.sat" | "llvm.ssub.sat"
        | "llvm.usub.sat" | "llvm.sshl.sat" | "llvm.ushl.sat" | "llvm.fshl" | "llvm.fshr" => (Overload::Ret, NONE),
        "llvm.ctlz" | "llvm.cttz" | "llvm.abs" => (Overload::Ret, &[1][..]),
        "llvm.powi" => (Overload::RetArg1, &[1][..]),
        "llvm.ldexp" => (Overload::RetArg1, NONE),
        "llvm.lrint" | "llvm.llrint" | "llvm.lround" | "llvm.llround" | "llvm.fptosi.sat" | "llvm.fptoui.sat" => {
            (Overload::RetArg0, NONE)
        }
        "llvm.is.fpclass" => (Overload::Arg0, &[1][..]),
        _ => return None,
    };
    Some(LaneWise { overload, scalar_args })
}

/// Intrinsics without effect on the result that can be dropped when their
/// operands are varying (hints only).
pub fn is_droppable_hint(base: &str) -> bool {
    matches!(
        base,
        "llvm.assume"
            | "llvm.lifetime.start"
            | "llvm.lifetime.end"
            | "llvm.experimental.noalias.scope.decl"
            | "llvm.dbg.value"
            | "llvm.dbg.declare"
            | "llvm.dbg.assign"
            | "llvm.dbg.label"
            | "llvm.invariant.start"
            | "llvm.invariant.end"
            | "llvm.sideeffect"
            | "llvm.pseudoprobe"
    )
}

/// The base name (`llvm.fabs`) of the intrinsic a call targets, if any.
pub fn called_intrinsic(call: Value) -> Option<String> {
    let callee = call.called_value();
    if !callee.is_function() {
        return None;
    }
    let id = callee.intrinsic_id();
    (id != 0).then(|| intrinsic_base_name(id))
}

/// `memory(...)` effects of a call (call site or callee), if known.
fn memory_effects(call: Value) -> Option<u64> {
    call.fn_attribute_value("memory").or_else(|| {
        let callee = call.called_value();
        if callee.is_function() {
            callee.fn_attribute_value("memory")
        } else {
            None
        }
    })
}

/// Whether a call with uniform arguments gives the same result in every
/// lane and may run once for all of them: it cannot write memory (no `Mod`
/// bit in its `memory` effects) and is not a hint that must be kept per lane.
pub fn is_lane_invariant_call(call: Value) -> bool {
    // MemoryEffects packs two bits (Ref = 1, Mod = 2) per location kind.
    const ANY_MOD: u64 = 0xAAAA_AAAA;
    matches!(memory_effects(call), Some(m) if m & ANY_MOD == 0)
}

/// Overloaded types of the vector form of an intrinsic call.
pub fn vector_overloads<'ctx>(lw: LaneWise, ret: Type<'ctx>, args: &[Type<'ctx>]) -> Vec<Type<'ctx>> {
    match lw.overload {
        Overload::Ret => vec![ret],
        Overload::RetArg1 => vec![ret, args[1]],
        Overload::RetArg0 => vec![ret, args[0]],
        Overload::Arg0 => vec![args[0]],
    }
}

/// Whether the clone's ISA enables fused multiply-add where the scalar
/// function's target does not, so that `llvm.fmuladd` (which the backend
/// fuses exactly when the target has FMA) would round differently in the
/// clone. Of the x86 variant ISAs only AVX-512F implies FMA.
///
/// A scalar function that pins no target (neither `target-cpu` nor
/// `target-features`) is compiled for whatever target its compiler is
/// given; its `llvm.fmuladd` is then kept as it is, so that clone and
/// scalar code fuse alike where that target has FMA (the oracle's host,
/// `-march=native`). Only a pinned target without FMA is unfused.
pub fn isa_adds_fma(isa: crate::vfabi::Isa, scalar: Value) -> bool {
    if isa != crate::vfabi::Isa::Avx512 {
        return false;
    }
    let fn_index = crate::llvm::FUNCTION_INDEX;
    let pinned_features = scalar.string_attribute(fn_index, "target-features");
    let pinned_cpu = scalar.string_attribute(fn_index, "target-cpu");
    if pinned_features.is_none() && pinned_cpu.is_none() {
        return false;
    }
    let features = pinned_features.unwrap_or_default();
    let has_feature = |f: &str| features.split(',').any(|x| x == f);
    if has_feature("+fma") || has_feature("+avx512f") {
        return false;
    }
    let cpu = scalar.string_attribute(fn_index, "target-cpu").unwrap_or_default();
    const FMA_CPUS: &[&str] = &[
        "x86-64-v3",
        "x86-64-v4",
        "haswell",
        "broadwell",
        "skylake",
        "skx",
        "cascadelake",
        "cooperlake",
        "cannonlake",
        "icelake",
        "tigerlake",
        "sapphirerapids",
        "graniterapids",
        "emeraldrapids",
        "alderlake",
        "raptorlake",
        "meteorlake",
        "arrowlake",
        "lunarlake",
        "pantherlake",
        "gracemont",
        "sierraforest",
        "grandridge",
        "clearwaterforest",
        "diamondrapids",
        "rocketlake",
        "knl",
        "knm",
        "znver",
        "bdver",
        "btver2",
    ];
    !FMA_CPUS.iter().any(|c| cpu.starts_with(c))
}
