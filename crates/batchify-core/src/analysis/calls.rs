//! Calls: which calls give the same result in every lane when their
//! arguments are uniform, and how LLVM intrinsics map to their vector forms.
//!
//! Part of the analyses: reads calls, changes nothing.

use crate::llvm::LLVMOpcode::*;
use crate::llvm::{intrinsic_base_name, LLVMTypeKind, Type, Value};
use crate::options::VecLib;
use crate::vfabi::Isa;

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

/// batchify's own group operation `i32 @__batchify.active_lanes()`: the
/// number of lanes active where it is called, the same for all of them (a
/// uniform value). Refill workers (`crate::refill`) ask it when to refill;
/// it is the cross-lane operation `popcount_active`
/// ([`super::cross_lane::Op::CountActive`]), lowered from the mask. Declared `memory(none)`, so every
/// analysis takes it as a pure call of no argument.
pub const ACTIVE_LANES: &str = "__batchify.active_lanes";

/// batchify's own group operation `i32 @__batchify.index(i32 c)`: in each
/// lane, the number of active lanes below it with `c` non-zero (RV's
/// `rv_index`, [`super::cross_lane::Op::Index`]). Refill workers rank their
/// free lanes with it, to give them consecutive elements.
pub const INDEX: &str = "__batchify.index";

/// batchify's own group operation `i32 @__batchify.count_true(i32 c)`: the
/// number of active lanes with `c` non-zero, the same for all of them
/// (RV's `rv_popcount`, [`super::cross_lane::Op::CountTrue`]).
pub const COUNT_TRUE: &str = "__batchify.count_true";

/// The name prefix of batchify's own group operation
/// `T @__batchify.packed_load_active.<T>(ptr p)`: in the `j`-th active lane
/// (in lane order), `p[j]`; the active lanes read `p[0..count)` and nothing
/// else ([`super::cross_lane::Op::PackedLoadActive`], the inverse of
/// `packed_store_active`). Refill workers read their new elements with it.
pub const PACKED_LOAD_ACTIVE: &str = "__batchify.packed_load_active.";

/// The suffixes of [`PACKED_LOAD_ACTIVE`]'s names, one per element type.
pub const PACKED_LOAD_SUFFIXES: &[&str] = &["i8", "i16", "i32", "i64", "f32", "f64"];

/// The name of [`PACKED_LOAD_ACTIVE`] for elements of type `elem`, if it
/// has one (integers of 8 to 64 bits, `float`, `double`).
pub fn packed_load_active_name(elem: Type) -> Option<String> {
    let suffix = match (elem.kind(), elem.int_width()) {
        (LLVMTypeKind::LLVMFloatTypeKind, _) => "f32".to_string(),
        (LLVMTypeKind::LLVMDoubleTypeKind, _) => "f64".to_string(),
        (LLVMTypeKind::LLVMIntegerTypeKind, w @ (8 | 16 | 32 | 64)) => format!("i{w}"),
        _ => return None,
    };
    Some(format!("{PACKED_LOAD_ACTIVE}{suffix}"))
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

/// Whether a call may write memory: its `memory` effects (call site or
/// callee) are unknown or have a `Mod` bit.
pub fn may_write(call: Value) -> bool {
    // MemoryEffects packs two bits (Ref = 1, Mod = 2) per location kind.
    const ANY_MOD: u64 = 0xAAAA_AAAA;
    !matches!(memory_effects(call), Some(m) if m & ANY_MOD == 0)
}

/// Whether a call with uniform arguments gives the same result in every
/// lane and may run once for all of them: it cannot write memory (no `Mod`
/// bit in its `memory` effects) and is not a hint that must be kept per lane.
pub fn is_lane_invariant_call(call: Value) -> bool {
    !may_write(call)
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

/// A C math library function whose result is exactly defined (no rounding
/// error beyond the one correctly rounded result), so that its vector form
/// can be bit-identical to glibc's scalar function.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExactLibm {
    /// `floor`, `ceil`, `trunc`, `round`, `roundeven`, `rint`, `nearbyint`,
    /// `fabs`, `sqrt` and `copysign`: the LLVM intrinsic of that base name
    /// has the same definition.
    Intrinsic(&'static str),
    /// `fmin`: glibc's choice among NaNs and signed zeros (see `emit::libm`).
    Fmin,
    /// `fmax`, likewise.
    Fmax,
    /// `fdim`: `x - y` where `x > y` or either is NaN, else `+0`.
    Fdim,
    /// `fmod`: the exact remainder, as the `frem` instruction.
    Fmod,
    /// `abs`, `labs`, `llabs`: `llvm.abs` with `INT_MIN` kept as it is.
    Abs,
    /// `ldexp`/`scalbn`: `x * 2^n`, correctly rounded (the vector
    /// `llvm.ldexp` would be one scalar call per lane on x86).
    Ldexp,
}

/// The callee of `call` if it may be a C library function: a declaration
/// (no body in the module), not an intrinsic, and no `nobuiltin` on the
/// call or the callee. The callers check the name and the signature.
pub fn library_declaration(call: Value) -> Option<Value> {
    let callee = call.called_value();
    if !callee.is_function() || !callee.is_declaration() || callee.intrinsic_id() != 0 {
        return None;
    }
    if call.call_has_fn_attribute("nobuiltin") || callee.has_fn_attribute("nobuiltin") {
        return None;
    }
    Some(callee)
}

/// The exact libm function a call targets, if it is one: a call of a
/// declaration (no body in the module) named as in C's `<math.h>` or
/// `<stdlib.h>`, with that function's signature (`f` suffix: `float`,
/// none: `double`), and no `nobuiltin` on the call or the callee. A
/// function that may set `errno` (`sqrt`, `fmod`, `fdim`, `ldexp`,
/// `scalbn`) counts only where the call writes no memory (`memory(none)`,
/// as clang marks it under `-fno-math-errno`): errno is observable.
pub fn exact_libm_call(call: Value) -> Option<ExactLibm> {
    let callee = library_declaration(call)?;
    let name = callee.name();
    let fty = call.called_function_type();
    let ret = fty.return_type();
    let params = fty.param_types();
    use crate::llvm::LLVMTypeKind::{LLVMDoubleTypeKind, LLVMFloatTypeKind};
    let (base, want) = match name.strip_suffix('f') {
        Some(b) => (b, LLVMFloatTypeKind),
        _ => (name.as_str(), LLVMDoubleTypeKind),
    };
    if matches!(name.as_str(), "abs" | "labs" | "llabs") {
        let bits = if name == "abs" { 32 } else { 64 };
        let ok = ret.int_width() == bits && params.len() == 1 && params[0].int_width() == bits;
        return ok.then_some(ExactLibm::Abs);
    }
    let fp = |t: Type| t.kind() == want;
    let unary = params.len() == 1 && fp(ret) && fp(params[0]);
    let binary = params.len() == 2 && fp(ret) && fp(params[0]) && fp(params[1]);
    let with_int = params.len() == 2 && fp(ret) && fp(params[0]) && params[1].int_width() == 32;
    let (f, sets_errno) = match base {
        "floor" if unary => (ExactLibm::Intrinsic("llvm.floor"), false),
        "ceil" if unary => (ExactLibm::Intrinsic("llvm.ceil"), false),
        "trunc" if unary => (ExactLibm::Intrinsic("llvm.trunc"), false),
        "round" if unary => (ExactLibm::Intrinsic("llvm.round"), false),
        "roundeven" if unary => (ExactLibm::Intrinsic("llvm.roundeven"), false),
        "rint" if unary => (ExactLibm::Intrinsic("llvm.rint"), false),
        "nearbyint" if unary => (ExactLibm::Intrinsic("llvm.nearbyint"), false),
        "fabs" if unary => (ExactLibm::Intrinsic("llvm.fabs"), false),
        "sqrt" if unary => (ExactLibm::Intrinsic("llvm.sqrt"), true),
        "copysign" if binary => (ExactLibm::Intrinsic("llvm.copysign"), false),
        "fmin" if binary => (ExactLibm::Fmin, false),
        "fmax" if binary => (ExactLibm::Fmax, false),
        "fdim" if binary => (ExactLibm::Fdim, true),
        "fmod" if binary => (ExactLibm::Fmod, true),
        "ldexp" | "scalbn" if with_int => (ExactLibm::Ldexp, true),
        _ => return None,
    };
    (!sets_errno || is_lane_invariant_call(call)).then_some(f)
}

/// A call of libm's `sqrt`/`sqrtf` or `fmod`/`fmodf` that may set `errno`
/// (clang's default `-fmath-errno`): its value is exact, and only inputs
/// in the domain-error set make the call set `errno` (see
/// `emit::libm::errno_call`). `None` for any other call, and for calls
/// that [`exact_libm_call`] takes (they write no memory).
pub fn errno_libm_call(call: Value) -> Option<ExactLibm> {
    if exact_libm_call(call).is_some() {
        return None;
    }
    let callee = library_declaration(call)?;
    let fty = call.called_function_type();
    let (ret, params) = (fty.return_type(), fty.param_types());
    use crate::llvm::LLVMTypeKind::{LLVMDoubleTypeKind, LLVMFloatTypeKind};
    let name = callee.name();
    let want = if name.ends_with('f') { LLVMFloatTypeKind } else { LLVMDoubleTypeKind };
    let fp = |t: Type| t.kind() == want;
    match name.as_str() {
        "sqrt" | "sqrtf" if params.len() == 1 && fp(ret) && fp(params[0]) => Some(ExactLibm::Intrinsic("llvm.sqrt")),
        "fmod" | "fmodf" if params.len() == 2 && fp(ret) && fp(params[0]) && fp(params[1]) => Some(ExactLibm::Fmod),
        _ => None,
    }
}

/// A call of a math function that is not correctly rounded and that a
/// vector math library provides (`exp`, `sin`, `pow`, ...): as an LLVM
/// intrinsic (`llvm.exp.f32`) or as a libm call that writes no memory
/// (`expf` under `-fno-math-errno`; otherwise the call may set errno, which
/// the library's vector functions do not).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VecMathCall {
    /// The C name of the scalar function (`expf`, `pow`).
    pub name: String,
    /// Number of arguments (1 or 2).
    pub arity: u32,
}

/// The functions of [`VecMathCall`], by their `double` C name, with arity.
const VECMATH_FAMILIES: &[(&str, u32)] = &[
    ("sin", 1),
    ("cos", 1),
    ("tan", 1),
    ("asin", 1),
    ("acos", 1),
    ("atan", 1),
    ("sinh", 1),
    ("cosh", 1),
    ("tanh", 1),
    ("asinh", 1),
    ("acosh", 1),
    ("atanh", 1),
    ("exp", 1),
    ("exp2", 1),
    ("exp10", 1),
    ("expm1", 1),
    ("log", 1),
    ("log2", 1),
    ("log10", 1),
    ("log1p", 1),
    ("cbrt", 1),
    ("erf", 1),
    ("erfc", 1),
    ("atan2", 2),
    ("pow", 2),
    ("hypot", 2),
];

/// The arity of the vector-math family `base` (`log`, `pow`: the
/// `double` C name, as in an intrinsic's name `llvm.<base>`), if it is one.
pub fn vecmath_family_arity(base: &str) -> Option<u32> {
    VECMATH_FAMILIES.iter().find(|(n, _)| *n == base).map(|&(_, a)| a)
}

/// Whether `name` is a libm function of a vector-math family (`exp`,
/// `expf`, `pow`, ...), whatever its call's attributes say.
pub fn is_vecmath_name(name: &str) -> bool {
    let base = name.strip_suffix('f').unwrap_or(name);
    VECMATH_FAMILIES.iter().any(|(n, _)| *n == base || *n == name)
}

/// The vector-math function a call computes, if it is one (see
/// [`VecMathCall`]).
pub fn vecmath_call(call: Value) -> Option<VecMathCall> {
    use crate::llvm::LLVMTypeKind::{LLVMDoubleTypeKind, LLVMFloatTypeKind};
    let callee = call.called_value();
    if !callee.is_function() {
        return None;
    }
    let ret = call.ty();
    let suffix = match ret.kind() {
        LLVMFloatTypeKind => "f",
        LLVMDoubleTypeKind => "",
        _ => return None,
    };
    let nargs = call.num_arg_operands();
    let base = if let Some(intrinsic) = called_intrinsic(call) {
        let b = intrinsic.strip_prefix("llvm.")?.to_string();
        VECMATH_FAMILIES.iter().find(|(n, _)| *n == b)?;
        b
    } else {
        if !callee.is_declaration()
            || call.call_has_fn_attribute("nobuiltin")
            || callee.has_fn_attribute("nobuiltin")
            || !is_lane_invariant_call(call)
        {
            return None;
        }
        let name = callee.name();
        let b = name.strip_suffix(suffix).filter(|_| !suffix.is_empty()).unwrap_or(&name).to_string();
        if format!("{b}{suffix}") != name {
            return None;
        }
        b
    };
    let &(_, arity) = VECMATH_FAMILIES.iter().find(|(n, _)| *n == base)?;
    let args_ok = nargs == arity && (0..nargs).all(|k| call.operand(k).ty().kind() == ret.kind());
    args_ok.then(|| VecMathCall { name: format!("{base}{suffix}"), arity })
}

/// The inputs on which glibc's scalar function may set `errno`, as a
/// superset (see [`autodiff_math_call`]): a lane whose input is outside
/// the set never sets `errno` (glibc 2.36 sets it only on a domain error,
/// a pole, an overflow or an underflow; the thresholds below keep a margin
/// to the first input that overflows or underflows), so it needs no real
/// call. `tests/errno_sets.rs` checks each set against glibc itself.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ErrnoInputs {
    /// `x <= 0` or NaN (`log`, `log2`, `log10`: a pole at 0, a domain error
    /// below).
    NotPositive,
    /// `|x| >= t` or NaN (`exp`, `exp2`, `sinh`, `cosh`: overflow above,
    /// underflow below `-t` for the exponentials).
    AbsAtLeast(f64),
    /// `|x| > 1` or NaN (`asin`, `acos`: a domain error).
    AbsAboveOne,
    /// `x` infinite or NaN (`sin`, `cos`: a domain error at infinity;
    /// `tanh`, `atan`, which glibc never lets set `errno`, conservatively).
    NotFinite,
}

impl ErrnoInputs {
    /// Whether `x` is in the set (the emitted vector test computes the same
    /// predicate on each lane).
    pub fn contains(self, x: f64) -> bool {
        // Unordered comparisons, as the clone's `fcmp ule`/`uge`/`ugt`.
        x.is_nan()
            || match self {
                ErrnoInputs::NotPositive => x <= 0.0,
                ErrnoInputs::AbsAtLeast(t) => x.abs() >= t,
                ErrnoInputs::AbsAboveOne => x.abs() > 1.0,
                ErrnoInputs::NotFinite => x.is_infinite(),
            }
    }
}

/// A call that a `--for-autodiff` clone computes with one LLVM vector
/// intrinsic, which Enzyme 0.0.79 differentiates in vector form (forward
/// and reverse, checked for each) and which LLVM 22's backend lowers to one
/// call of the same libm function per lane (`llvm.log.v4f64`: four calls
/// of `log`), so the values stay bit-identical to the scalar code's.
#[derive(Debug, Clone, PartialEq)]
pub struct AutodiffMath {
    /// The intrinsic's base name (`llvm.log`).
    pub intrinsic: &'static str,
    /// Number of arguments (1 or 2).
    pub arity: u32,
    /// Where the scalar call may write `errno`: the inputs on which it may
    /// set it, for a libm call that may write memory (clang's default
    /// `-fmath-errno`); `None` for a call that writes no memory.
    pub errno: Option<ErrnoInputs>,
}

/// The functions of [`AutodiffMath`]: C name (`double`), intrinsic, arity.
/// `tan`, `atan2` and `exp10` have intrinsics that this Enzyme rejects in
/// vector form ("cannot handle unknown intrinsic"); they stay per lane.
const AUTODIFF_MATH: &[(&str, &str, u32)] = &[
    ("log", "llvm.log", 1),
    ("log2", "llvm.log2", 1),
    ("log10", "llvm.log10", 1),
    ("exp", "llvm.exp", 1),
    ("exp2", "llvm.exp2", 1),
    ("sin", "llvm.sin", 1),
    ("cos", "llvm.cos", 1),
    ("sinh", "llvm.sinh", 1),
    ("cosh", "llvm.cosh", 1),
    ("tanh", "llvm.tanh", 1),
    ("asin", "llvm.asin", 1),
    ("acos", "llvm.acos", 1),
    ("atan", "llvm.atan", 1),
    ("pow", "llvm.pow", 2),
];

/// The inputs on which libm function `name` (`exp`, `expf`, ...) may set
/// `errno`, for the unary functions of [`AUTODIFF_MATH`] (`None` for `pow`,
/// whose set depends on both arguments: a `pow` call that may write memory
/// stays per lane).
pub fn errno_inputs(name: &str) -> Option<ErrnoInputs> {
    let (base, float) = match name.strip_suffix('f') {
        Some(b) if AUTODIFF_MATH.iter().any(|(n, _, _)| *n == b) => (b, true),
        _ => (name, false),
    };
    // First overflow: exp 709.78 (expf 88.72), exp2 1024 (128), sinh and
    // cosh 710.48 (89.42); first subnormal result: exp -708.40 (-87.34),
    // exp2 -1022 (-126).
    let pick = |d: f64, f: f64| ErrnoInputs::AbsAtLeast(if float { f } else { d });
    Some(match base {
        "log" | "log2" | "log10" => ErrnoInputs::NotPositive,
        "exp" => pick(708.0, 87.0),
        "exp2" => pick(1021.0, 125.0),
        "sinh" | "cosh" => pick(709.0, 88.0),
        "asin" | "acos" => ErrnoInputs::AbsAboveOne,
        "sin" | "cos" | "tanh" | "atan" => ErrnoInputs::NotFinite,
        _ => return None,
    })
}

/// The [`AutodiffMath`] form of a call of a libm function (a declaration
/// named as in `<math.h>`, `f` suffix for `float`, with that signature, no
/// `nobuiltin`): one of [`AUTODIFF_MATH`] that writes no memory, or a
/// unary one that may write memory (only `errno`: glibc's math functions
/// write nothing else) with its [`ErrnoInputs`]. Intrinsic calls are not
/// taken here (they are lane-wise already).
pub fn autodiff_math_call(call: Value) -> Option<AutodiffMath> {
    use crate::llvm::LLVMTypeKind::{LLVMDoubleTypeKind, LLVMFloatTypeKind};
    let callee = library_declaration(call)?;
    let ret = call.ty();
    let suffix = match ret.kind() {
        LLVMFloatTypeKind => "f",
        LLVMDoubleTypeKind => "",
        _ => return None,
    };
    let name = callee.name();
    let base = if suffix.is_empty() { name.as_str() } else { name.strip_suffix(suffix)? };
    let &(_, intrinsic, arity) = AUTODIFF_MATH.iter().find(|(n, _, _)| *n == base)?;
    let fty = call.called_function_type();
    let params = fty.param_types();
    if fty.is_var_arg()
        || fty.return_type() != ret
        || params.len() != arity as usize
        || params.iter().any(|p| *p != ret)
    {
        return None;
    }
    let errno = if is_lane_invariant_call(call) { None } else { Some(errno_inputs(&name)?) };
    Some(AutodiffMath { intrinsic, arity, errno })
}

/// Whether the call `i` is `noreturn` (at the call site or its callee).
pub fn is_noreturn_call(i: Value) -> bool {
    let callee = i.called_value();
    i.call_has_fn_attribute("noreturn") || (callee.is_function() && callee.has_fn_attribute("noreturn"))
}

/// Whether `i` is a `noreturn` call right before an `unreachable`, with
/// arguments that fit in vectors: such calls are deferred.
pub fn is_deferrable(i: Value) -> bool {
    if i.opcode() != LLVMCall {
        return false;
    }
    let callee = i.called_value();
    let noreturn = is_noreturn_call(i);
    // `mergereturn` also unifies `unreachable`s: the call may be followed by
    // a branch to the one block that holds `unreachable`.
    let ends_unreachable = |n: Value| match n.opcode() {
        LLVMUnreachable => true,
        LLVMBr if !n.is_conditional() => {
            n.successors()[0].instructions().first().is_some_and(|u| u.opcode() == LLVMUnreachable)
        }
        _ => false,
    };
    noreturn
        && !callee.is_inline_asm()
        && i.next_instruction().is_some_and(ends_unreachable)
        && (0..i.num_arg_operands()).all(|k| i.operand(k).ty().is_vector_element())
        // No operand bundles: only arguments and the callee are operands.
        && i.num_operands() == i.num_arg_operands() + 1
}

/// The function of vector math library `lib` for math call `i` on `isa`
/// and its type, if the library has one.
pub fn veclib_symbol<'ctx>(lib: VecLib, isa: Isa, i: Value<'ctx>) -> Option<(String, Type<'ctx>)> {
    let f = vecmath_call(i)?;
    veclib_symbol_named(lib, isa, &f.name, f.arity, i.ty())
}

/// The function of vector math library `lib` on `isa` for the C math
/// function `name` (`log`, `expf`: a [`VecMathCall`] name) of `arity`
/// arguments of type `elem`, and its type, if the library has one.
pub fn veclib_symbol_named<'ctx>(
    lib: VecLib,
    isa: Isa,
    name: &str,
    arity: u32,
    elem: Type<'ctx>,
) -> Option<(String, Type<'ctx>)> {
    let double = elem.kind() == crate::llvm::LLVMTypeKind::LLVMDoubleTypeKind;
    let (letter, float_lanes) = match lib {
        VecLib::None => return None,
        VecLib::Libmvec => libmvec_isa(isa)?,
        // libsleefgnuabi's Advanced SIMD functions: 4 floats, 2 doubles.
        VecLib::Sleef => (isa == Isa::AdvSimd).then_some(('n', 4))?,
    };
    let vlen = if double { float_lanes / 2 } else { float_lanes };
    let symbol = format!("_ZGV{letter}N{vlen}{}_{name}", "v".repeat(arity as usize));
    let chunk_ty = elem.vector_of(vlen);
    Some((symbol, Type::function(chunk_ty, &vec![chunk_ty; arity as usize])))
}

/// The libmvec ISA letter and the number of lanes of its `float` variants
/// (none for AArch64 ISAs: libmvec's AArch64 names are not handled).
fn libmvec_isa(isa: Isa) -> Option<(char, u32)> {
    match isa {
        Isa::Sse2 | Isa::Llvm => Some(('b', 4)),
        Isa::Avx => Some(('c', 8)),
        Isa::Avx2 => Some(('d', 8)),
        Isa::Avx512 => Some(('e', 16)),
        _ => None,
    }
}

/// How `fmin`/`fmax` are computed exactly for a target.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MinMaxForm {
    /// glibc's x86-64 sequence (`emit::libm`).
    GlibcX86,
    /// `llvm.minnum`/`llvm.maxnum`, which AArch64 lowers to `fminnm`/`fmaxnm`,
    /// the instructions glibc's AArch64 `fmin`/`fmax` are.
    MinNum,
}

/// The exact `fmin`/`fmax` form for the module's `triple` (empty: the
/// host's, x86-64), or `None` where none is known (the calls stay per lane).
pub fn min_max_form(triple: &str) -> Option<MinMaxForm> {
    match triple.split('-').next().unwrap_or_default() {
        "" | "x86_64" => Some(MinMaxForm::GlibcX86),
        "aarch64" | "arm64" => Some(MinMaxForm::MinNum),
        _ => None,
    }
}
