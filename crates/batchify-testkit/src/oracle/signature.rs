//! What the oracle plans for one clone from the scalar function's
//! signature and attributes: the type of each parameter and the result, the
//! buffers behind pointer parameters ([`BufPlan`]), and, once compiled, the
//! wrappers that call the scalar function and the clone ([`Runnable`]).

use super::outcome::MismatchKind;
use super::OracleOptions;
use crate::inputs::Scalar;
use crate::promises::Promise;
use crate::wrappers::{memory_type, RESULT_SLOT};
use batchify_core::llvm::{attribute_enum_value, Attribute, LLVMTypeKind, Module, Type, Value};
use batchify_core::vfabi::ParamKind;
use batchify_core::CloneSpec;

pub(super) type WrapperFn = unsafe extern "C" fn(*const u8, *mut u8);
pub(super) type CallerFn = unsafe extern "C" fn(*const u8, *mut u8, *const u8);

/// One buffer behind a pointer parameter.
#[derive(Debug, Clone, Copy)]
pub(super) struct BufPlan {
    pub(super) param: usize,
    pub(super) lane: Option<u32>,
    /// Bytes the region spans.
    pub(super) len: usize,
    /// Offset in the region of the pointer lane 0 (or lane `lane`) gets.
    pub(super) base: usize,
    pub(super) align: usize,
}

/// A pointer parameter.
#[derive(Debug, Clone, Copy)]
pub(super) struct PtrParam {
    pub(super) nullable: bool,
}

/// Most bytes of local buffers an optimised caller may have (they live on
/// the stack of the thread running the check).
pub(super) const MAX_CALLER_BYTES: usize = 256 << 10;

/// Largest step of a `ls` pointer parameter the oracle uses (bytes).
pub(super) const VAR_STEP_MAX: i64 = 64;

pub(super) struct Runnable {
    /// Address of the paint byte (see [`crate::paint`]).
    pub(super) paint: u64,
    /// Address of the poison flag (see [`crate::poison`]; 0: none).
    pub(super) poison: u64,
    pub(super) scalar_fn: WrapperFn,
    pub(super) vector_fn: WrapperFn,
    pub(super) callers: Option<(CallerFn, CallerFn)>,
}

pub(super) struct Target {
    pub(super) spec: CloneSpec,
    pub(super) scalars: Vec<Scalar>,
    pub(super) ptrs: Vec<Option<PtrParam>>,
    pub(super) bufs: Vec<BufPlan>,
    /// Values the scalar code expects in the buffers.
    pub(super) promises: Vec<Promise>,
    pub(super) result_bytes: usize,
    pub(super) result_scalar: Option<Scalar>,
    /// The floating-point leaves of an aggregate or vector result: byte
    /// offset and type (a NaN there meets any NaN, as a scalar result's).
    pub(super) result_float_leaves: Vec<(usize, Scalar)>,
    /// Why the clone cannot be checked (skipped).
    pub(super) skip: Option<String>,
    /// A failure found without running anything.
    pub(super) static_failure: Option<MismatchKind>,
    pub(super) run: Option<Runnable>,
}

pub(super) fn scalar_of(t: Type) -> Result<Scalar, String> {
    Ok(match t.kind() {
        LLVMTypeKind::LLVMIntegerTypeKind if t.int_width() <= 64 => Scalar::Int(t.int_width()),
        LLVMTypeKind::LLVMHalfTypeKind => Scalar::Half,
        LLVMTypeKind::LLVMFloatTypeKind => Scalar::Float,
        LLVMTypeKind::LLVMDoubleTypeKind => Scalar::Double,
        LLVMTypeKind::LLVMPointerTypeKind if t.address_space() == 0 => Scalar::Ptr,
        _ => {
            return Err(format!(
                "type {}: the oracle supports integers of up to 64 bits, half, float, double and pointers",
                t.print()
            ))
        }
    })
}

/// The `half`, `float` and `double` leaves of a result of type `t` stored
/// at byte `at` (struct fields, array and vector elements), with their
/// offsets.
pub(super) fn float_leaves(module: Module, t: Type, at: usize) -> Vec<(usize, Scalar)> {
    if let Ok(s @ (Scalar::Half | Scalar::Float | Scalar::Double)) = scalar_of(t) {
        return vec![(at, s)];
    }
    match t.kind() {
        LLVMTypeKind::LLVMStructTypeKind => (0..t.members().len() as u32)
            .flat_map(|i| float_leaves(module, t.struct_field(i), at + module.field_offset_of(t, i) as usize))
            .collect(),
        LLVMTypeKind::LLVMArrayTypeKind | LLVMTypeKind::LLVMVectorTypeKind => {
            let n = if t.is_vector() { t.vector_len() as usize } else { t.members().len() };
            let size = module.abi_size_of(t.element()) as usize;
            (0..n).flat_map(|k| float_leaves(module, t.element(), at + k * size)).collect()
        }
        _ => Vec::new(),
    }
}

pub(super) fn store_size(t: Type) -> usize {
    if t.is_void() {
        return 0;
    }
    match scalar_of(memory_type(t)) {
        Ok(s) => s.bytes(),
        Err(_) => RESULT_SLOT, // aggregates: compare the whole slot
    }
}

fn enum_attr<'ctx>(f: Value<'ctx>, idx: u32, name: &str) -> Option<Attribute<'ctx>> {
    f.enum_attribute(idx, name)
}

fn int_attr(f: Value, idx: u32, name: &str) -> Option<u64> {
    enum_attr(f, idx, name).map(attribute_enum_value)
}

fn type_attr_size(module: Module, f: Value, idx: u32, name: &str) -> Option<(usize, usize)> {
    enum_attr(f, idx, name).map(|a| {
        let ty = a.type_value();
        (module.abi_size_of(ty) as usize, module.abi_alignment_of(ty) as usize)
    })
}

/// Plans the buffers of pointer parameter `i` (attribute index `i + 1`).
pub(super) fn plan_pointer(
    module: Module,
    scalar: Value,
    spec: &CloneSpec,
    i: usize,
    opts: &OracleOptions,
) -> Result<(PtrParam, Vec<BufPlan>), String> {
    let idx = i as u32 + 1;
    for bad in ["inalloca", "preallocated", "swifterror"] {
        if enum_attr(scalar, idx, bad).is_some() {
            return Err(format!("parameter {i} is `{bad}`, which the oracle does not pass"));
        }
    }
    let n = spec.width as usize;
    let byval = type_attr_size(module, scalar, idx, "byval");
    let sret = type_attr_size(module, scalar, idx, "sret");
    let deref = int_attr(scalar, idx, "dereferenceable").or_else(|| int_attr(scalar, idx, "dereferenceable_or_null"));
    let align_attr = int_attr(scalar, idx, "align").unwrap_or(1) as usize;
    let (before, after, align) = match byval.or(sret) {
        Some((size, a)) => (0, size.max(1), a.max(align_attr)),
        None => match deref {
            Some(d) => (0, d.max(1) as usize, align_attr),
            None => (opts.default_buffer / 2, opts.default_buffer - opts.default_buffer / 2, align_attr),
        },
    };
    let align = align.max(16).next_power_of_two();
    let plain = byval.is_none() && sret.is_none();
    let nullable = opts.allow_null
        && plain
        && deref.is_none()
        && enum_attr(scalar, idx, "nonnull").is_none()
        && matches!(spec.params[i], ParamKind::Vector | ParamKind::Uniform);
    let one = |lane, len, base| BufPlan { param: i, lane, len, base, align };
    let plans = match spec.params[i] {
        ParamKind::Vector => (0..n as u32).map(|k| one(Some(k), before + after, before)).collect(),
        ParamKind::Uniform => vec![one(None, before + after, before)],
        ParamKind::Linear { step } => {
            let span = step.unsigned_abs() as usize * (n - 1);
            if span > 1 << 20 {
                return Err(format!(
                    "parameter {i} is linear with step {step}: too far apart for the oracle's buffers"
                ));
            }
            let base = before + if step < 0 { span } else { 0 };
            vec![one(None, before + after + span, base)]
        }
        ParamKind::LinearVarStep { .. } => {
            let span = VAR_STEP_MAX as usize * (n - 1);
            vec![one(None, before + after + 2 * span, before + span)]
        }
        ParamKind::LinearRef { .. } => return Err(format!("parameter {i} is a reference-linear pointer")),
    };
    Ok((PtrParam { nullable }, plans))
}

/// The first call in `clone` whose calling convention differs from its
/// callee's.
pub(super) fn calling_convention_defect(clone: Value) -> Option<MismatchKind> {
    for b in clone.blocks() {
        for i in b.instructions() {
            if !i.is_call() && !i.is_invoke() {
                continue;
            }
            let callee = i.called_value();
            if !callee.is_function() {
                continue;
            }
            let (call, callee_conv) = (i.call_conv(), callee.call_conv());
            if call != callee_conv {
                return Some(MismatchKind::CallingConvention { callee: callee.name(), call, callee_conv });
            }
        }
    }
    None
}
