//! The execution oracle: runs the scalar function once per lane and the
//! clone once, on the same inputs, and compares the results bit for bit.
//!
//! Inputs are random (fixed seed) mixed with special values; uniform
//! parameters get one value for all lanes, linear ones `base + k*step`.
//! Masked clones get a random mask per trial and only active lanes are
//! compared. Code runs for the host CPU or another CPU's tuning that the
//! host can run ([`OracleOptions::jit_target`], see [`crate::jit`]).
//!
//! Pointer parameters point into guard-page-bounded buffers of random bytes
//! (see [`crate::buffers`]) that keep the scalar code's `!range` promises
//! (see [`crate::promises`]). The scalar calls run, lane by lane in lane
//! order, on one copy of every buffer, and the clone on an identical second
//! copy with the same layout; then results and every buffer byte are
//! compared, a pointer in one copy matching the pointer to the same place
//! in the other (stored pointers, pointers compared across arguments,
//! `malloc` blocks from the copy's arena: see [`crate::alloc_hooks`]).
//! Where they differ, the scalar calls run again with the scalar code's
//! stack slots painted differently (see [`crate::paint`]): bytes that
//! change are undefined and not compared. Each function is checked in a
//! forked child process (see [`crate::isolate`]), so a fault is reported as
//! a failure naming the clone.
//!
//! Calls of the side-effect recorder `void batchify_record(i64 tag, i64
//! value)` (see [`crate::recorder`]) are logged: one log per scalar call
//! (per active lane) and one for the clone's call. The semantics contract
//! makes calls that are not vectorized run once per active lane, in lane
//! order, with lanes in lock step, so the clone's log must be an
//! interleaving of the active lanes' logs: its entries can be assigned to
//! lanes so that each lane's entries, in order, are exactly that lane's
//! scalar log (same tags and values, nothing missing or extra; inactive
//! lanes record nothing). Lane-after-lane order (a per-lane fallback) and
//! call-site-by-call-site order (vector code) both pass; anything else is a
//! [`MismatchKind::Log`] failure ([`crate::recorder::check_log`] states the
//! rule exactly). Optionally, a caller of the clone optimised
//! with `default<O2>` must observe the same memory and results
//! ([`OracleOptions::optimized_caller`]).

use crate::alloc_hooks;
use crate::buffers::{Guarded, GuardedSet};
use crate::inputs::{describe, mask_to, random_bits, Scalar};
use crate::isolate::{run_forked, signal_name, ChildEnd};
use crate::jit::{Jit, JitTarget};
use crate::paint::{paint_allocas, PAINT_GLOBAL};
use crate::poison::{flag_poison, POISON_GLOBAL};
use crate::promises::{promises_of, Promise};
use crate::recorder;
use crate::wrappers::{
    add_optimized_caller, add_scalar_wrapper, add_vector_wrapper, memory_type, CallerKind, CallerRegion, RESULT_SLOT,
    SLOT,
};
use batchify_core::llvm::{attribute_enum_value, Attribute, LLVMTypeKind, Module, Type, Value};
use batchify_core::vfabi::ParamKind;
use batchify_core::CloneSpec;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use std::collections::HashSet;
use std::fmt;

/// How hard to test.
#[derive(Debug, Clone, Copy)]
pub struct CheckConfig {
    /// Number of calls of the clone (each with `width` scalar calls).
    pub trials: usize,
    /// Seed of the input generator.
    pub seed: u64,
}

impl Default for CheckConfig {
    fn default() -> Self {
        CheckConfig { trials: 200, seed: 0x5eed_ba7c }
    }
}

/// What the oracle builds and how it runs checks; fixed when the oracle is
/// made ([`Oracle::with_options`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OracleOptions {
    /// Also call each clone that has pointer parameters through callers
    /// optimised with `default<O2>` (see
    /// [`crate::wrappers::add_optimized_caller`]), and require them to
    /// observe the scalar calls' memory and results. Off by default.
    pub optimized_caller: bool,
    /// Run each function's check in a forked child process, so that a fault
    /// or a hang is reported instead of ending the test process. On by
    /// default.
    pub isolate: bool,
    /// Pass null (15% of lanes) to pointer parameters that are not
    /// `nonnull`, `dereferenceable`, `byval` or `sret`, and only for varying
    /// and uniform ones. Off by default.
    pub allow_null: bool,
    /// Buffer size for a pointer parameter without `dereferenceable(n)`:
    /// the pointer is placed in the middle, so offsets in
    /// `[-default_buffer/2, default_buffer/2)` stay inside.
    pub default_buffer: usize,
    /// Time limit of one function's check in seconds (0: none; isolated
    /// checks only).
    pub timeout_secs: u32,
    /// Do not compare buffer bytes that two or more active lanes changed in
    /// the scalar runs (conflicting writes, whose order the semantics
    /// contract leaves open). Off by default: every byte is compared.
    pub tolerate_conflicts: bool,
    /// While the clone runs, make the buffers of inactive lanes (varying
    /// pointer parameters of masked clones) inaccessible, so that a load
    /// or store on an inactive lane faults. On by default.
    pub protect_inactive_lanes: bool,
    /// Drop trials on which the scalar code makes poison (an `nsw`/`nuw`
    /// overflow, a shift by the bit width or more; see [`crate::poison`]),
    /// as on real code that random inputs push past its assumptions. Off by
    /// default: generated programs may make poison they then discard (a
    /// speculated shift under a `select`), and those trials are valid.
    pub skip_poison_inputs: bool,
    /// Accept `float`/`double` results up to this many units in the last
    /// place from the scalar result (`None`, the default: bit for bit).
    /// Only for clones built with a vector math library
    /// (`batchify_core::Options::veclib`), whose functions are not
    /// correctly rounded: set it to the bound batchify reports
    /// (`WidenStats::veclib_max_ulps`) plus the scalar function's own
    /// error. NaN must still meet NaN, infinities and finite values of
    /// different signs never match, and memory is still compared bit for bit.
    pub veclib_max_ulps: Option<u32>,
    /// The CPU the JIT compiles for (default [`JitTarget::from_env`]: the
    /// host unless `BATCHIFY_JIT_CPU` names another; see
    /// [`crate::jit::JitTarget`]).
    pub jit_target: JitTarget,
}

impl Default for OracleOptions {
    fn default() -> Self {
        OracleOptions {
            optimized_caller: false,
            isolate: true,
            allow_null: false,
            default_buffer: 256,
            timeout_secs: 120,
            tolerate_conflicts: false,
            protect_inactive_lanes: true,
            skip_poison_inputs: false,
            veclib_max_ulps: None,
            jit_target: JitTarget::from_env(),
        }
    }
}

/// What differs, or how the clone failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MismatchKind {
    /// The lane's result differs.
    Result,
    /// A byte of a pointer parameter's buffer differs after the calls.
    Memory {
        /// The pointer parameter.
        param: usize,
        /// The lane whose buffer it is (`None`: a buffer all lanes share).
        buffer_lane: Option<u32>,
        /// Offset of the first differing byte from the pointer lane 0 got
        /// (lane `buffer_lane` for a per-lane buffer).
        offset: i64,
        /// Lanes whose scalar calls changed that byte (shared buffers only).
        written_by: Vec<u32>,
    },
    /// The clone faulted or ran out of time (the scalar calls of the trial
    /// did not).
    Fault {
        /// The signal that ended the child process.
        signal: i32,
        /// What was running: the clone, or one of the optimised callers.
        during: String,
    },
    /// A caller of the clone optimised with `default<O2>` saw a different
    /// result (`memory: None`) or different memory.
    OptimizedCaller {
        /// Which caller: `writer` (copies the buffers out after the call)
        /// or `reader` (overwrites them after the call).
        caller: String,
        /// For a memory difference: the parameter, buffer lane and offset.
        memory: Option<(usize, Option<u32>, i64)>,
    },
    /// The clone's log of recorder calls breaks the rule (see the module
    /// documentation and [`crate::recorder::check_log`]).
    Log {
        /// Index of the first clone entry no assignment to lanes accounts
        /// for.
        position: usize,
        /// Entries the clone recorded.
        clone_entries: usize,
        /// Entries the active lanes' scalar calls recorded.
        scalar_entries: usize,
    },
    /// A call in the clone does not use its callee's calling convention
    /// (undefined behaviour, which LLVM turns into `unreachable`).
    CallingConvention {
        /// The callee.
        callee: String,
        /// The convention of the call.
        call: u32,
        /// The callee's convention.
        callee_conv: u32,
    },
}

/// A lane whose clone result differs from the scalar result, or another
/// failure of a clone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mismatch {
    /// The clone's name.
    pub clone: String,
    /// Trial number.
    pub trial: usize,
    /// Lane that differs (for memory: the buffer's lane, else 0).
    pub lane: u32,
    /// The lane's inputs, described.
    pub inputs: Vec<String>,
    /// Scalar result bytes (for memory: bytes from the first difference).
    pub expected: Vec<u8>,
    /// Clone result bytes (for memory: bytes from the first difference).
    pub got: Vec<u8>,
    /// The mask of the trial (all ones when unmasked).
    pub mask: Vec<bool>,
    /// What differs.
    pub kind: MismatchKind,
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let inputs = self.inputs.join(", ");
        match &self.kind {
            MismatchKind::Result => write!(
                f,
                "{}: lane {} differs (trial {}): inputs [{}]: scalar gives {:02x?}, clone gives {:02x?}",
                self.clone, self.lane, self.trial, inputs, self.expected, self.got
            ),
            MismatchKind::Memory { param, buffer_lane, offset, written_by } => {
                let whose = whose(*buffer_lane);
                let conflict = if written_by.len() > 1 {
                    format!(" (lanes {written_by:?} all wrote it in the scalar runs: a conflicting write, see docs/testing.md)")
                } else {
                    String::new()
                };
                write!(
                    f,
                    "{}: memory differs (trial {}, mask {:?}): parameter {param}, {whose}, offset {offset}{conflict}: \
                     scalar calls leave {:02x?}, clone leaves {:02x?}; lane {} inputs [{}]",
                    self.clone,
                    self.trial,
                    bits(&self.mask),
                    self.expected,
                    self.got,
                    self.lane,
                    inputs
                )
            }
            MismatchKind::Fault { signal, during } => write!(
                f,
                "{}: {during} crashed with {} (trial {}, mask {:?}); lane {} inputs [{}]",
                self.clone,
                signal_name(*signal),
                self.trial,
                bits(&self.mask),
                self.lane,
                inputs
            ),
            MismatchKind::OptimizedCaller { caller, memory } => match memory {
                None => write!(
                    f,
                    "{}: a {caller} caller optimised at -O2 sees lane {} differ (trial {}): inputs [{}]: scalar gives \
                     {:02x?}, the optimised caller gets {:02x?} (do the clone's attributes promise too little \
                     memory access?)",
                    self.clone, self.lane, self.trial, inputs, self.expected, self.got
                ),
                Some((param, lane, offset)) => write!(
                    f,
                    "{}: a {caller} caller optimised at -O2 sees different memory (trial {}): parameter {param}, \
                     {}, offset {offset}: scalar calls leave {:02x?}, the caller sees {:02x?} (do the clone's \
                     attributes promise too little memory access?)",
                    self.clone,
                    self.trial,
                    whose(*lane),
                    self.expected,
                    self.got
                ),
            },
            MismatchKind::Log { position, clone_entries, scalar_entries } => write!(
                f,
                "{}: the recorder log differs (trial {}, mask {:?}): the clone recorded {clone_entries} entries, \
                 the scalar calls {scalar_entries}; clone entry {position} (tag, value) = {} fits no lane's log \
                 (expected: an interleaving of the active lanes' logs, see docs/testing.md); lane {} inputs [{}]",
                self.clone,
                self.trial,
                bits(&self.mask),
                entry_text(&self.got),
                self.lane,
                inputs
            ),
            MismatchKind::CallingConvention { callee, call, callee_conv } => write!(
                f,
                "{}: calls `{callee}` with calling convention {call}, but `{callee}` uses {callee_conv} \
                 (undefined behaviour)",
                self.clone
            ),
        }
    }
}

/// A recorder entry from its 16 little-endian bytes, as text.
fn entry_text(b: &[u8]) -> String {
    if b.len() < 16 {
        return "(none: the clone recorded too few)".into();
    }
    let tag = i64::from_le_bytes(b[..8].try_into().expect("8 bytes"));
    let value = i64::from_le_bytes(b[8..16].try_into().expect("8 bytes"));
    format!("({tag}, {value})")
}

fn whose(lane: Option<u32>) -> String {
    match lane {
        Some(l) => format!("lane {l}'s buffer"),
        None => "the shared buffer".into(),
    }
}

fn bits(mask: &[bool]) -> String {
    mask.iter().map(|&b| if b { '1' } else { '0' }).collect()
}

/// Why a check failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OracleError {
    /// The results differ, or the clone failed otherwise (see
    /// [`MismatchKind`]).
    Mismatch(Box<Mismatch>),
    /// The check could not run (JIT failure, unsupported signature, a
    /// function skipped for inline asm, ...).
    Setup(String),
}

impl fmt::Display for OracleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OracleError::Mismatch(m) => write!(f, "mismatch: {m}"),
            OracleError::Setup(s) => write!(f, "oracle setup failed: {s}"),
        }
    }
}

impl std::error::Error for OracleError {}

/// What a successful check covered.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CheckStats {
    /// Lanes compared.
    pub lanes_compared: usize,
    /// Trials dropped because a scalar call faulted on their inputs (a
    /// pointer parameter's buffer was too small for what the scalar code
    /// does with that input).
    pub trials_dropped: usize,
}

/// The outcome of one clone's check ([`Oracle::check_each`]).
#[derive(Debug, Clone)]
pub struct CloneOutcome {
    /// The clone's name.
    pub clone: String,
    /// What the check found; `Err(OracleError::Setup(..))` for a clone the
    /// oracle skipped ([`Oracle::skipped`]).
    pub result: Result<CheckStats, OracleError>,
}

type WrapperFn = unsafe extern "C" fn(*const u8, *mut u8);
type CallerFn = unsafe extern "C" fn(*const u8, *mut u8, *const u8);

/// One buffer behind a pointer parameter.
#[derive(Debug, Clone, Copy)]
struct BufPlan {
    param: usize,
    lane: Option<u32>,
    /// Bytes the region spans.
    len: usize,
    /// Offset in the region of the pointer lane 0 (or lane `lane`) gets.
    base: usize,
    align: usize,
}

/// A pointer parameter.
#[derive(Debug, Clone, Copy)]
struct PtrParam {
    nullable: bool,
}

/// Most bytes of local buffers an optimised caller may have (they live on
/// the stack of the thread running the check).
const MAX_CALLER_BYTES: usize = 256 << 10;

/// Largest step of a `ls` pointer parameter the oracle uses (bytes).
const VAR_STEP_MAX: i64 = 64;

struct Runnable {
    /// Address of the paint byte (see [`crate::paint`]).
    paint: u64,
    /// Address of the poison flag (see [`crate::poison`]; 0: none).
    poison: u64,
    scalar_fn: WrapperFn,
    vector_fn: WrapperFn,
    callers: Option<(CallerFn, CallerFn)>,
}

struct Target {
    spec: CloneSpec,
    scalars: Vec<Scalar>,
    ptrs: Vec<Option<PtrParam>>,
    bufs: Vec<BufPlan>,
    /// Values the scalar code expects in the buffers.
    promises: Vec<Promise>,
    result_bytes: usize,
    result_scalar: Option<Scalar>,
    /// The floating-point leaves of an aggregate or vector result: byte
    /// offset and type (a NaN there meets any NaN, as a scalar result's).
    result_float_leaves: Vec<(usize, Scalar)>,
    /// Why the clone cannot be checked (skipped).
    skip: Option<String>,
    /// A failure found without running anything.
    static_failure: Option<MismatchKind>,
    run: Option<Runnable>,
}

/// A compiled module with calling wrappers for a set of clones.
pub struct Oracle {
    _jit: Option<Jit>,
    targets: Vec<Target>,
    opts: OracleOptions,
}

fn scalar_of(t: Type) -> Result<Scalar, String> {
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
fn float_leaves(module: Module, t: Type, at: usize) -> Vec<(usize, Scalar)> {
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

fn store_size(t: Type) -> usize {
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
fn plan_pointer(
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
fn calling_convention_defect(clone: Value) -> Option<MismatchKind> {
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

impl Oracle {
    /// Adds wrappers for every spec to a copy of `module` and JIT-compiles it,
    /// with [`OracleOptions::default`]. The module must already hold the
    /// scalar functions and their clones.
    pub fn new(module: &inkwell::module::Module<'_>, specs: &[CloneSpec]) -> Result<Oracle, OracleError> {
        Oracle::with_options(module, specs, &OracleOptions::default())
    }

    /// [`Oracle::new`] with options. Functions of any linkage and calling
    /// convention can be checked; a clone the oracle cannot run (inline
    /// asm, unsupported parameter types, ...) is skipped with a reason
    /// ([`Oracle::skipped`]) while the others are still checked.
    pub fn with_options(
        module: &inkwell::module::Module<'_>,
        specs: &[CloneSpec],
        opts: &OracleOptions,
    ) -> Result<Oracle, OracleError> {
        let setup = OracleError::Setup;
        let copy = module.clone();
        let raw = Module::from_inkwell(&copy);
        let tainted = crate::prepare::prepare(raw);
        let clones: HashSet<String> = specs.iter().map(|s| s.vector_name.clone()).collect();
        paint_allocas(raw, &clones);
        if opts.skip_poison_inputs {
            flag_poison(raw, &clones);
        }
        let mut targets = Vec::new();
        let mut names = Vec::new();
        for (idx, spec) in specs.iter().enumerate() {
            let scalar = raw
                .function(&spec.scalar_name)
                .ok_or_else(|| setup(format!("no scalar function `{}`", spec.scalar_name)))?;
            let clone =
                raw.function(&spec.vector_name).ok_or_else(|| setup(format!("no clone `{}`", spec.vector_name)))?;
            let fty = scalar.function_type();
            let ret = fty.return_type();
            let want = batchify_core::abi::varying_type(ret, spec.width);
            // GCC's lowered symbols (results in memory) are called through
            // `call_lowered`, which takes the natural layout apart itself.
            let lowered = batchify_core::abi::clone_type(scalar, spec)
                .ok()
                .and_then(|natural| batchify_core::abi::gcc_lowering(scalar, natural, spec))
                .is_some();
            if !ret.is_void() && !lowered && clone.function_type().return_type() != want {
                // The wrappers would take apart a value of another layout.
                return Err(setup(format!(
                    "clone `{}` returns `{}`; the ABI returns `{}` as `{}`",
                    spec.vector_name,
                    clone.function_type().return_type().print(),
                    ret.print(),
                    want.print()
                )));
            }
            let mut t = Target {
                spec: spec.clone(),
                scalars: Vec::new(),
                ptrs: Vec::new(),
                bufs: Vec::new(),
                promises: promises_of(scalar),
                result_bytes: store_size(ret),
                result_scalar: if ret.is_void() { None } else { scalar_of(ret).ok() },
                result_float_leaves: float_leaves(raw, ret, 0),
                skip: None,
                static_failure: calling_convention_defect(clone),
                run: None,
            };
            let mut reasons: Vec<String> = Vec::new();
            for f in [&spec.scalar_name, &spec.vector_name] {
                if let Some(why) = tainted.get(f) {
                    reasons.push(why.clone());
                }
            }
            if fty.is_var_arg() {
                reasons.push("variadic functions are not supported".into());
            }
            if spec.params.len() != fty.param_types().len() {
                reasons.push(format!(
                    "the spec has {} parameters, the function {}",
                    spec.params.len(),
                    fty.param_types().len()
                ));
            }
            let mut scalars = Vec::new();
            let mut ptrs = Vec::new();
            let mut bufs = Vec::new();
            if reasons.is_empty() {
                for (i, pt) in fty.param_types().into_iter().enumerate() {
                    match scalar_of(pt) {
                        Ok(Scalar::Ptr) => match plan_pointer(raw, scalar, spec, i, opts) {
                            Ok((p, plans)) => {
                                scalars.push(Scalar::Ptr);
                                ptrs.push(Some(p));
                                bufs.extend(plans);
                            }
                            Err(e) => reasons.push(e),
                        },
                        Ok(s) => {
                            scalars.push(s);
                            ptrs.push(None);
                        }
                        Err(e) => reasons.push(format!("parameter {i} has {e}")),
                    }
                }
            }
            t.scalars = scalars;
            t.ptrs = ptrs;
            t.bufs = bufs;
            t.skip = reasons.first().map(|why| format!("{}: skipped: {why}", spec.vector_name));
            if t.skip.is_none() && t.static_failure.is_none() {
                let (sname, vname) = (format!("__oracle_scalar.{idx}"), format!("__oracle_vector.{idx}"));
                add_scalar_wrapper(raw, scalar, spec, &sname);
                add_vector_wrapper(raw, scalar, clone, spec, &vname);
                let mut callers = None;
                let plan: Vec<(usize, usize)> = t.bufs.iter().map(|b| (b.len, b.align)).collect();
                let regions: Vec<CallerRegion> = t
                    .bufs
                    .iter()
                    .zip(GuardedSet::offsets(&plan))
                    .map(|(b, offset)| CallerRegion {
                        param: b.param,
                        lane: b.lane,
                        len: Guarded::rw_len_for(b.len, b.align) as u64,
                        offset: offset as u64,
                    })
                    .collect();
                let local_bytes = regions.iter().map(|r| r.offset + r.len).max().unwrap_or(0) as usize;
                if opts.optimized_caller && !t.bufs.is_empty() && local_bytes <= MAX_CALLER_BYTES {
                    let (w, r) = (format!("__oracle_caller_w.{idx}"), format!("__oracle_caller_r.{idx}"));
                    add_optimized_caller(raw, scalar, clone, spec, &regions, &w, CallerKind::Writer).map_err(setup)?;
                    add_optimized_caller(raw, scalar, clone, spec, &regions, &r, CallerKind::Reader).map_err(setup)?;
                    callers = Some((w, r));
                }
                names.push((targets.len(), sname, vname, callers));
            }
            targets.push(t);
        }
        raw.verify().map_err(|e| setup(format!("wrappers do not verify: {e}")))?;
        if let Some(d) = batchify_core::vector_widths::check_module(raw).first() {
            return Err(setup(format!("calls disagree on vector registers: {d}")));
        }
        if std::env::var_os("BATCHIFY_ORACLE_DUMP").is_some() {
            eprintln!("{}", copy.print_to_string().to_string());
        }
        if names.is_empty() {
            return Ok(Oracle { _jit: None, targets, opts: *opts });
        }
        let bitcode = copy.write_bitcode_to_memory();
        // Allocations of the code under test come from the oracle's arenas,
        // unless the module brings its own allocator.
        let overrides: Vec<(&str, u64)> = alloc_hooks::overrides()
            .into_iter()
            .chain(recorder::overrides())
            .filter(|(name, _)| raw.function(name).is_none_or(|f| f.is_declaration()))
            .collect();
        let jit = Jit::for_target(bitcode.as_slice(), &overrides, &opts.jit_target).map_err(setup)?;
        for (ti, sname, vname, callers) in names {
            let addr = |n: &str| jit.lookup(n).map_err(setup);
            // SAFETY: the wrappers have the C signatures `void(ptr, ptr)` and
            // `void(ptr, ptr, ptr)`.
            let paint = addr(PAINT_GLOBAL)?;
            let poison = if opts.skip_poison_inputs { addr(POISON_GLOBAL)? } else { 0 };
            let run = unsafe {
                Runnable {
                    paint,
                    poison,
                    scalar_fn: std::mem::transmute::<u64, WrapperFn>(addr(&sname)?),
                    vector_fn: std::mem::transmute::<u64, WrapperFn>(addr(&vname)?),
                    callers: match callers {
                        Some((w, r)) => Some((
                            std::mem::transmute::<u64, CallerFn>(addr(&w)?),
                            std::mem::transmute::<u64, CallerFn>(addr(&r)?),
                        )),
                        None => None,
                    },
                }
            };
            targets[ti].run = Some(run);
        }
        Ok(Oracle { _jit: Some(jit), targets, opts: *opts })
    }

    /// The clones the oracle cannot check, with the reason.
    pub fn skipped(&self) -> Vec<(String, String)> {
        self.targets.iter().filter_map(|t| t.skip.clone().map(|s| (t.spec.vector_name.clone(), s))).collect()
    }

    /// Checks every clone; stops at the first failure. Clones the oracle
    /// skipped ([`Oracle::skipped`]) make it return
    /// `Err(OracleError::Setup(..))` once all the others have passed.
    pub fn check_all(&self, cfg: &CheckConfig) -> Result<CheckStats, OracleError> {
        let mut total = CheckStats::default();
        for t in self.targets.iter().filter(|t| t.skip.is_none()) {
            let s = check_target(t, &self.opts, cfg)?;
            total.lanes_compared += s.lanes_compared;
            total.trials_dropped += s.trials_dropped;
        }
        if let Some(t) = self.targets.iter().find(|t| t.skip.is_some()) {
            return Err(OracleError::Setup(t.skip.clone().unwrap_or_default()));
        }
        Ok(total)
    }

    /// Checks every clone, each on its own, and reports each outcome.
    pub fn check_each(&self, cfg: &CheckConfig) -> Vec<CloneOutcome> {
        self.targets
            .iter()
            .map(|t| CloneOutcome {
                clone: t.spec.vector_name.clone(),
                result: match &t.skip {
                    Some(s) => Err(OracleError::Setup(s.clone())),
                    None => check_target(t, &self.opts, cfg),
                },
            })
            .collect()
    }
}

fn sign_extend(raw: u64, w: u32) -> i64 {
    if w < 64 && (raw >> (w - 1)) & 1 == 1 {
        (raw | !((1u64 << w) - 1)) as i64
    } else {
        raw as i64
    }
}

/// The inputs of one trial, apart from buffer contents.
struct TrialInputs {
    /// Per parameter, per lane (pointer parameters: 0).
    vals: Vec<Vec<u64>>,
    mask: Vec<bool>,
    /// Per parameter, per lane: pass null.
    nulls: Vec<Vec<bool>>,
    /// Seed of the buffer contents.
    fill_seed: u64,
}

fn trial_inputs(t: &Target, cfg: &CheckConfig, trial: usize) -> TrialInputs {
    let spec = &t.spec;
    let n = spec.width as usize;
    let seed = cfg.seed ^ fxhash(&spec.vector_name) ^ (trial as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut vals: Vec<Vec<u64>> = Vec::new();
    for (i, s) in t.scalars.iter().enumerate() {
        let w = match s {
            Scalar::Int(w) => *w,
            _ => 64,
        };
        vals.push(match spec.params[i] {
            ParamKind::Vector => (0..n).map(|_| random_bits(&mut rng, *s)).collect(),
            ParamKind::Linear { step } => {
                let base = random_bits(&mut rng, *s);
                (0..n).map(|k| mask_to(base.wrapping_add((k as u64).wrapping_mul(step as u64)), w)).collect()
            }
            // Uniform; linear with a variable step: the base, fixed below.
            ParamKind::Uniform | ParamKind::LinearVarStep { .. } => vec![random_bits(&mut rng, *s); n],
            ParamKind::LinearRef { .. } => vec![0; n],
        });
    }
    // The step of a pointer with a variable step stays small.
    for (i, s) in t.scalars.iter().enumerate() {
        if let (Scalar::Ptr, ParamKind::LinearVarStep { param }) = (s, spec.params[i]) {
            // Never 0: that would make every lane's pointer the same, so any
            // write would be a conflicting one.
            let step = rng.gen_range(1..=VAR_STEP_MAX / 4) * 4 * if rng.gen_bool(0.5) { -1 } else { 1 };
            let w = if let Scalar::Int(w) = t.scalars[param] { w } else { 64 };
            vals[param] = vec![mask_to(step as u64, w); n];
        }
    }
    for (i, s) in t.scalars.iter().enumerate() {
        if let (Scalar::Int(w), ParamKind::LinearVarStep { param }) = (s, spec.params[i]) {
            let sw = if let Scalar::Int(sw) = t.scalars[param] { sw } else { 64 };
            let step = sign_extend(vals[param][0], sw) as u64;
            let base = vals[i][0];
            vals[i] = (0..n as u64).map(|k| mask_to(base.wrapping_add(k.wrapping_mul(step)), *w)).collect();
        }
    }
    let mask: Vec<bool> = if spec.mask.is_some() { (0..n).map(|_| rng.gen_bool(0.6)).collect() } else { vec![true; n] };
    let mut nulls = vec![vec![false; n]; t.scalars.len()];
    for (i, p) in t.ptrs.iter().enumerate() {
        if p.is_some_and(|p| p.nullable) {
            nulls[i] = match spec.params[i] {
                ParamKind::Uniform => vec![rng.gen_bool(0.15); n],
                _ => (0..n).map(|_| rng.gen_bool(0.15)).collect(),
            };
        }
    }
    TrialInputs { vals, mask, nulls, fill_seed: rng.gen() }
}

/// The buffer of pointer parameter `i` in lane `k`.
fn buffer_of(t: &Target, i: usize, k: usize) -> usize {
    t.bufs
        .iter()
        .position(|b| b.param == i && b.lane.is_none_or(|l| l as usize == k))
        .expect("every pointer parameter has a buffer")
}

/// The pointer lane `k` passes for parameter `i`, into `bufs`.
fn pointer_value(t: &Target, bufs: &[Guarded], inp: &TrialInputs, i: usize, k: usize) -> u64 {
    if inp.nulls[i][k] {
        return 0;
    }
    let j = buffer_of(t, i, k);
    let b = &t.bufs[j];
    let at = bufs[j].region() as u64 + b.base as u64;
    let off = match t.spec.params[i] {
        ParamKind::Linear { step } => (k as i64).wrapping_mul(step),
        ParamKind::LinearVarStep { param } => {
            let sw = if let Scalar::Int(sw) = t.scalars[param] { sw } else { 64 };
            (k as i64).wrapping_mul(sign_extend(inp.vals[param][0], sw))
        }
        _ => 0,
    };
    at.wrapping_add(off as u64)
}

fn describe_input(t: &Target, inp: &TrialInputs, i: usize, k: usize) -> String {
    match t.scalars[i] {
        Scalar::Ptr if inp.nulls[i][k] => "ptr null".into(),
        Scalar::Ptr => {
            let what = match t.spec.params[i] {
                ParamKind::Vector => format!("lane {k}'s buffer"),
                ParamKind::Uniform => "the shared buffer".into(),
                _ => format!("the shared buffer, lane {k}'s position"),
            };
            format!("ptr into {what}")
        }
        s => describe(s, inp.vals[i][k]),
    }
}

/// The little-endian 64-bit word at `at` (which must leave 8 bytes).
fn word_at(bytes: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"))
}

/// The first byte where `x` (from the scalar calls) and `y` (from the
/// clone) disagree, skipping bytes `skip` accepts. Where they differ, an
/// 8-byte word around the byte that `same_pointer(x_word, y_word)` accepts
/// is one pointer in the two copies of the inputs (see
/// [`GuardedSet::base`]), and its bytes agree.
fn first_disagreement(
    x: &[u8],
    y: &[u8],
    skip: impl Fn(usize) -> bool,
    same_pointer: impl Fn(u64, u64) -> bool,
) -> Option<usize> {
    let mut o = 0;
    while o < x.len() {
        if x[o] == y[o] || skip(o) {
            o += 1;
            continue;
        }
        let word = (o.saturating_sub(7)..=o).find(|&s| s + 8 <= x.len() && same_pointer(word_at(x, s), word_at(y, s)));
        match word {
            Some(s) => o = s + 8,
            None => return Some(o),
        }
    }
    None
}

/// Accepts a word pair that is the same pointer in two copies of the
/// inputs whose bases are `delta` bytes apart (`y = x + delta`): the
/// copies have one layout, so the pointers are at the same place relative
/// to their copy, in a buffer, the arena, or anywhere computed from them.
fn relative(delta: u64) -> impl Fn(u64, u64) -> bool {
    move |x, y| y.wrapping_sub(x) == delta
}

/// Which bytes of `x` and `y`, two runs of the same scalar calls over
/// copies `delta` bytes apart with different paint, disagree: the
/// scalar code leaves them undefined (the payload of a Rust `None` read
/// from an uninitialised stack slot).
fn undefined_bytes(x: &[u8], y: &[u8], delta: u64) -> Vec<bool> {
    let mut undefined = vec![false; x.len()];
    let mut from = 0;
    while let Some(o) = first_disagreement(&x[from..], &y[from..], |_| false, relative(delta)) {
        undefined[from + o] = true;
        from += o + 1;
    }
    undefined
}

/// Whether the results of one lane agree: bit for bit apart from pointers
/// to the same place in the two copies, both-NaN floating-point results,
/// and bytes the scalar code leaves undefined. A pointer result outside
/// both copies (one from an allocator the oracle does not replace, as C++'s
/// `new`) only has to be non-null in both.
fn results_agree(
    t: &Target,
    exp: &[u8],
    got: &[u8],
    copies: (&GuardedSet, &GuardedSet),
    undefined: Option<&[bool]>,
) -> bool {
    let delta = copies.1.base().wrapping_sub(copies.0.base());
    let skip = |o: usize| undefined.is_some_and(|u| u[o]);
    if first_disagreement(exp, got, skip, relative(delta)).is_none() || both_nan(t.result_scalar, got, exp) {
        return true;
    }
    // NaN leaves of an aggregate or vector result meet any NaN.
    let nan_leaf = |o: usize| {
        t.result_float_leaves.iter().any(|&(at, s)| {
            (at..at + s.bytes()).contains(&o)
                && at + s.bytes() <= exp.len().min(got.len())
                && both_nan(Some(s), &got[at..], &exp[at..])
        })
    };
    if !t.result_float_leaves.is_empty()
        && first_disagreement(exp, got, |o| skip(o) || nan_leaf(o), relative(delta)).is_none()
    {
        return true;
    }
    if t.result_scalar == Some(Scalar::Ptr) {
        let (x, y) = (word_at(exp, 0), word_at(got, 0));
        return x != 0 && y != 0 && !copies.0.contains(x) && !copies.1.contains(y);
    }
    false
}

const PHASE_SETUP: u32 = 0;
const PHASE_SCALAR: u32 = 1;
const PHASE_CLONE: u32 = 2;
const PHASE_WRITER: u32 = 3;
const PHASE_READER: u32 = 4;

const FAIL_NONE: u32 = 0;
const FAIL_RESULT: u32 = 1;
const FAIL_MEMORY: u32 = 2;
const FAIL_CALLER_RESULT: u32 = 3;
const FAIL_CALLER_MEMORY: u32 = 4;
const FAIL_SETUP: u32 = 5;
const FAIL_LOG: u32 = 6;

const WINDOW: usize = 64;

/// Progress and result of a run of trials, shared with a forked child.
#[derive(Clone, Copy)]
#[repr(C)]
struct Record {
    phase: u32,
    trial: u64,
    /// How long the last trial's scalar calls took (milliseconds).
    scalar_ms: u64,
    /// Trials dropped because the scalar code made poison.
    poison_trials: u64,
    lane: u32,
    lanes_compared: u64,
    fail: u32,
    f_lane: u32,
    f_buf: u32,
    f_offset: u64,
    f_writers: u64,
    /// For a log failure: position, clone entries, scalar entries.
    f_log: [u64; 3],
    exp_len: u32,
    got_len: u32,
    exp: [u8; WINDOW],
    got: [u8; WINDOW],
}

impl Record {
    fn new() -> Record {
        Record {
            phase: PHASE_SETUP,
            trial: 0,
            scalar_ms: 0,
            poison_trials: 0,
            lane: 0,
            lanes_compared: 0,
            fail: FAIL_NONE,
            f_lane: 0,
            f_buf: 0,
            f_offset: 0,
            f_writers: 0,
            f_log: [0; 3],
            exp_len: 0,
            got_len: 0,
            exp: [0; WINDOW],
            got: [0; WINDOW],
        }
    }

    fn fail(&mut self, kind: u32, lane: usize, exp: &[u8], got: &[u8]) {
        self.fail = kind;
        self.f_lane = lane as u32;
        let (e, g) = (exp.len().min(WINDOW), got.len().min(WINDOW));
        self.exp[..e].copy_from_slice(&exp[..e]);
        self.got[..g].copy_from_slice(&got[..g]);
        self.exp_len = e as u32;
        self.got_len = g as u32;
    }
}

fn write(buf: &mut [u8], at: usize, bits: u64, bytes: usize) {
    buf[at..at + bytes].copy_from_slice(&bits.to_le_bytes()[..bytes.min(8)]);
}

/// Bytes of the arena each copy of the inputs has for the allocations of
/// the code under test (see [`crate::alloc_hooks`]).
const ARENA_BYTES: usize = 32 * alloc_hooks::CLASS_BYTES;

/// Sends the allocations of the code under test to `set`'s arena, cleared.
fn use_arena_of(set: &mut GuardedSet) {
    set.clear_arena();
    alloc_hooks::use_arena(set.arena_mut().bytes_mut());
}

/// What the scalar code's stack slots hold (see [`crate::paint`]): in the
/// first run of a trial's scalar calls (and the clone's), and in the second
/// run that tells undefined result bytes from defined ones.
const PAINT_FIRST: u8 = 0xa5;
const PAINT_SECOND: u8 = 0x5a;

/// Sets one of the JIT module's `i8` globals (the paint byte, the poison
/// flag) at address `addr`.
fn set_jit_byte(addr: u64, byte: u8) {
    // SAFETY: `addr` is the address of an `i8` global of the live JIT module.
    unsafe { (addr as *mut u8).write_volatile(byte) };
}

/// Reads one of the JIT module's `i8` globals at address `addr`.
fn jit_byte(addr: u64) -> u8 {
    // SAFETY: as in `set_jit_byte`.
    unsafe { (addr as *const u8).read_volatile() }
}

/// Overwrites the stack below the caller's frame where an optimised
/// caller's local buffers will be, so that a caller whose copy-in the
/// optimiser deleted reads junk, not what the previous caller left there.
#[inline(never)]
fn scrub_stack() {
    let mut area = [0u8; MAX_CALLER_BYTES + (64 << 10)];
    area.fill(0xa5);
    std::hint::black_box(&mut area);
}

fn alloc_copy(t: &Target) -> Result<GuardedSet, String> {
    let plan: Vec<(usize, usize)> = t.bufs.iter().map(|b| (b.len, b.align)).collect();
    GuardedSet::new(&plan, ARENA_BYTES)
}

/// Fills one copy of a trial's buffers: random bytes from the trial's seed,
/// then values that keep the scalar code's promises about them.
fn fill_copy(t: &Target, set: &mut GuardedSet, inp: &TrialInputs) {
    let mut fill = SmallRng::seed_from_u64(inp.fill_seed);
    for g in set.bufs_mut() {
        fill.fill(g.bytes_mut());
    }
    let n = t.spec.width as usize;
    for p in &t.promises {
        for (j, b) in t.bufs.iter().enumerate().filter(|(_, b)| b.param == p.param) {
            let lanes: Vec<i64> = match t.spec.params[p.param] {
                ParamKind::Linear { step } => (0..n as i64).map(|k| k.wrapping_mul(step)).collect(),
                ParamKind::LinearVarStep { param } => {
                    let sw = if let Scalar::Int(sw) = t.scalars[param] { sw } else { 64 };
                    let step = sign_extend(inp.vals[param][0], sw);
                    (0..n as i64).map(|k| k.wrapping_mul(step)).collect()
                }
                _ => vec![0],
            };
            let g = &mut set.bufs_mut()[j];
            for lane_offset in lanes {
                let at = b.base as i64 + lane_offset + p.offset as i64;
                if at < 0 || at as usize + p.bytes > b.len {
                    continue;
                }
                let at = g.region_offset() + at as usize;
                write(g.bytes_mut(), at, p.pick(&mut fill), p.bytes);
            }
        }
    }
}

/// The buffers of lanes the trial's mask leaves inactive (none unless
/// [`OracleOptions::protect_inactive_lanes`]).
fn inactive_buffers(t: &Target, opts: &OracleOptions, inp: &TrialInputs) -> Vec<usize> {
    if !opts.protect_inactive_lanes {
        return Vec::new();
    }
    (0..t.bufs.len()).filter(|&j| t.bufs[j].lane.is_some_and(|k| !inp.mask[k as usize])).collect()
}

/// What the scalar calls of one trial leave.
struct ScalarRun {
    /// Each lane's result slot (inactive lanes: zeros).
    outs: Vec<Vec<u8>>,
    /// For each shared buffer (others: empty), the lanes that changed each
    /// byte, as a bit set.
    writers: Vec<Vec<u64>>,
    /// Whether the scalar code made poison (see [`crate::poison`]).
    poison: bool,
    /// Each active lane's recorder log, in lane order.
    logs: Vec<Vec<recorder::Entry>>,
}

/// Runs the scalar function once per active lane, in lane order, on `set`.
fn run_scalar_calls(
    t: &Target,
    opts: &OracleOptions,
    run: &Runnable,
    inp: &TrialInputs,
    set: &mut GuardedSet,
    paint: u8,
    rec: &mut Record,
) -> ScalarRun {
    let n = t.spec.width as usize;
    let p = t.scalars.len();
    let shared: Vec<usize> = (0..t.bufs.len()).filter(|&j| t.bufs[j].lane.is_none()).collect();
    let mut writers: Vec<Vec<u64>> = t.bufs.iter().map(|_| Vec::new()).collect();
    for &j in &shared {
        writers[j] = vec![0; set.bufs()[j].bytes().len()];
    }
    let mut outs = vec![vec![0u8; RESULT_SLOT]; n];
    // Inactive lanes' buffers are inaccessible to the scalar calls as they
    // are to the clone: a lane's read far past its own buffer that lands in
    // another lane's faults in both (the trial is dropped) or in neither.
    let inactive = inactive_buffers(t, opts, inp);
    if let Err(e) = set.protect(&inactive, true) {
        rec.fail(FAIL_SETUP, 0, e.as_bytes(), &[]);
    }
    use_arena_of(set);
    set_jit_byte(run.paint, paint);
    if run.poison != 0 {
        set_jit_byte(run.poison, 0);
    }
    let mut logs = Vec::new();
    for k in (0..n).filter(|&k| inp.mask[k]) {
        rec.lane = k as u32;
        let snapshot: Vec<Vec<u8>> = shared.iter().map(|&j| set.bufs()[j].bytes().to_vec()).collect();
        let mut sin = vec![0u8; (p + 1) * n * SLOT];
        for (i, s) in t.scalars.iter().enumerate() {
            let v = if *s == Scalar::Ptr { pointer_value(t, set.bufs(), inp, i, k) } else { inp.vals[i][k] };
            write(&mut sin, i * n * SLOT, v, s.bytes());
        }
        recorder::open();
        // SAFETY: the wrapper reads `sin` and writes `outs[k]` within the
        // layout; pointers point into live buffers.
        unsafe { (run.scalar_fn)(sin.as_ptr(), outs[k].as_mut_ptr()) };
        logs.push(recorder::close());
        for (s, &j) in snapshot.iter().zip(&shared) {
            for (o, (&x, &y)) in s.iter().zip(set.bufs()[j].bytes()).enumerate() {
                if x != y {
                    writers[j][o] |= 1u64 << (k % 64);
                }
            }
        }
    }
    alloc_hooks::stop_arena();
    if let Err(e) = set.protect(&inactive, false) {
        rec.fail(FAIL_SETUP, 0, e.as_bytes(), &[]);
    }
    let poison = run.poison != 0 && jit_byte(run.poison) != 0;
    ScalarRun { outs, writers, poison, logs }
}

/// Bytes the scalar code leaves undefined in one trial.
struct Undefined {
    /// Per lane, per byte of the result.
    results: Vec<Vec<bool>>,
    /// Per buffer, per read-write byte.
    memory: Vec<Vec<bool>>,
}

/// Runs the trial's scalar calls again, on a third copy of the inputs and
/// with the stack slots painted differently, and returns the bytes of results and memory
/// where the two runs disagree.
fn find_undefined(
    t: &Target,
    opts: &OracleOptions,
    run: &Runnable,
    inp: &TrialInputs,
    first: (&ScalarRun, &GuardedSet),
    third: &mut GuardedSet,
    rec: &mut Record,
) -> Undefined {
    let (scalar, a) = first;
    fill_copy(t, third, inp);
    let again = run_scalar_calls(t, opts, run, inp, third, PAINT_SECOND, rec);
    let delta = third.base().wrapping_sub(a.base());
    let len = t.result_bytes;
    Undefined {
        results: scalar
            .outs
            .iter()
            .zip(&again.outs)
            .map(|(x, y)| undefined_bytes(&x[..len], &y[..len], delta))
            .collect(),
        memory: a.bufs().iter().zip(third.bufs()).map(|(x, y)| undefined_bytes(x.bytes(), y.bytes(), delta)).collect(),
    }
}

/// A difference between the scalar calls and a run of the clone.
struct Failure {
    kind: u32,
    lane: usize,
    expected: Vec<u8>,
    got: Vec<u8>,
    /// For memory: buffer, offset in its read-write pages, lanes that wrote
    /// the byte.
    at: Option<(usize, usize, u64)>,
}

impl Failure {
    fn record(self, rec: &mut Record) {
        rec.fail(self.kind, self.lane, &self.expected, &self.got);
        if let Some((j, o, w)) = self.at {
            rec.f_buf = j as u32;
            rec.f_offset = o as u64;
            rec.f_writers = w;
        }
    }
}

/// What the clone (or an optimised caller of it) left, to compare with the
/// scalar calls.
struct CloneRun<'a> {
    kind_result: u32,
    kind_memory: u32,
    /// Each lane's result slot, one after the other.
    results: Vec<u8>,
    /// Whether results holding pointers are compared (not for the
    /// optimised callers, whose pointers point into their own locals).
    pointer_results: bool,
    /// The buffers as the run left them (none: not compared).
    memory: Option<Vec<&'a [u8]>>,
}

/// Compares one run of the clone with the scalar calls.
#[allow(clippy::too_many_arguments)]
fn compare_run(
    t: &Target,
    opts: &OracleOptions,
    inp: &TrialInputs,
    (scalar, a): (&ScalarRun, &GuardedSet),
    b: &GuardedSet,
    got: &CloneRun<'_>,
    same_pointer: &dyn Fn(u64, u64) -> bool,
    undefined: Option<&Undefined>,
) -> Option<Failure> {
    let n = t.spec.width as usize;
    let len = t.result_bytes;
    let compare_results = got.pointer_results || matches!(t.result_scalar, Some(s) if s != Scalar::Ptr);
    for k in (0..n).filter(|&k| inp.mask[k] && compare_results) {
        let mine = &got.results[k * RESULT_SLOT..k * RESULT_SLOT + len];
        let exp = &scalar.outs[k][..len];
        let agree = results_agree(t, exp, mine, (a, b), undefined.map(|u| u.results[k].as_slice()))
            || opts.veclib_max_ulps.is_some_and(|u| within_ulps(t.result_scalar, exp, mine, u));
        if !agree {
            return Some(Failure {
                kind: got.kind_result,
                lane: k,
                expected: exp.to_vec(),
                got: mine.to_vec(),
                at: None,
            });
        }
    }
    for (j, mine) in got.memory.iter().flatten().enumerate() {
        let g = a.bufs()[j].bytes();
        let w = &scalar.writers[j];
        let skip = |o: usize| {
            (opts.tolerate_conflicts && !w.is_empty() && w[o].count_ones() > 1)
                || undefined.is_some_and(|u| u.memory[j][o])
        };
        if let Some(o) = first_disagreement(g, mine, skip, same_pointer) {
            let end = (o + 16).min(g.len());
            return Some(Failure {
                kind: got.kind_memory,
                lane: t.bufs[j].lane.unwrap_or(0) as usize,
                expected: g[o..end].to_vec(),
                got: mine[o..end].to_vec(),
                at: Some((j, o, if w.is_empty() { 0 } else { w[o] })),
            });
        }
    }
    None
}

/// What an optimised caller leaves: its results and, for the writer, the
/// buffers it copied out.
type CallerOutput = (Vec<u8>, Option<Vec<Vec<u8>>>);

/// Runs trials `from..` and records progress and the first failure in `rec`.
fn run_trials(t: &Target, opts: &OracleOptions, cfg: &CheckConfig, from: usize, rec: &mut Record) {
    let run = t.run.as_ref().expect("runnable target");
    let spec = &t.spec;
    let n = spec.width as usize;
    let p = t.scalars.len();
    let (mut a, mut b) = match (alloc_copy(t), alloc_copy(t)) {
        (Ok(a), Ok(b)) => (a, b),
        (Err(e), _) | (_, Err(e)) => {
            rec.fail(FAIL_SETUP, 0, e.as_bytes(), &[]);
            return;
        }
    };
    let mut third: Option<GuardedSet> = None;
    let delta = b.base().wrapping_sub(a.base());
    // The optimised callers' local buffers live on this thread's stack,
    // below this frame.
    let frame = 0u8;
    let stack_top = std::hint::black_box(&frame) as *const u8 as u64;
    let on_stack = |y: u64| y < stack_top && stack_top - y < (MAX_CALLER_BYTES as u64) + (1 << 20);
    for trial in from..cfg.trials {
        rec.trial = trial as u64;
        rec.phase = PHASE_SETUP;
        let inp = trial_inputs(t, cfg, trial);
        fill_copy(t, &mut a, &inp);
        fill_copy(t, &mut b, &inp);
        let init: Vec<Vec<u8>> =
            if run.callers.is_some() { a.bufs().iter().map(|g| g.bytes().to_vec()).collect() } else { Vec::new() };
        rec.phase = PHASE_SCALAR;
        let started = std::time::Instant::now();
        let scalar = run_scalar_calls(t, opts, run, &inp, &mut a, PAINT_FIRST, rec);
        rec.scalar_ms = started.elapsed().as_millis() as u64;
        if scalar.poison && opts.skip_poison_inputs {
            // Inputs the scalar code promised not to get: no clone to judge.
            rec.poison_trials += 1;
            continue;
        }
        // The clone, once, on the second copy.
        let mut vin = vec![0u8; (p + 1) * n * SLOT];
        for (i, s) in t.scalars.iter().enumerate() {
            for k in 0..n {
                let v = if *s == Scalar::Ptr { pointer_value(t, b.bufs(), &inp, i, k) } else { inp.vals[i][k] };
                write(&mut vin, (i * n + k) * SLOT, v, s.bytes());
            }
        }
        for (k, m) in inp.mask.iter().enumerate() {
            vin[(p * n + k) * SLOT] = *m as u8;
        }
        rec.phase = PHASE_CLONE;
        rec.lane = 0;
        let mut vout = vec![0u8; n * RESULT_SLOT];
        let inactive = inactive_buffers(t, opts, &inp);
        if let Err(e) = b.protect(&inactive, true) {
            rec.fail(FAIL_SETUP, 0, e.as_bytes(), &[]);
            return;
        }
        use_arena_of(&mut b);
        set_jit_byte(run.paint, PAINT_FIRST);
        recorder::open();
        // SAFETY: as for the scalar wrapper.
        unsafe { (run.vector_fn)(vin.as_ptr(), vout.as_mut_ptr()) };
        let clone_log = recorder::close();
        alloc_hooks::stop_arena();
        if let Err(e) = b.protect(&inactive, false) {
            rec.fail(FAIL_SETUP, 0, e.as_bytes(), &[]);
            return;
        }
        // Optimised callers: they copy the initial contents into local
        // buffers, call the clone, and (writer) copy the buffers out.
        // Per caller: its results and (writer) its saved buffers.
        let mut caller_runs: Vec<CallerOutput> = Vec::new();
        if let Some((writer, reader)) = run.callers {
            // The callers take pointers as offsets into their buffers.
            let mut cin = vin.clone();
            for (i, s) in t.scalars.iter().enumerate() {
                if *s != Scalar::Ptr {
                    continue;
                }
                for k in 0..n {
                    let v = pointer_value(t, b.bufs(), &inp, i, k);
                    let j = buffer_of(t, i, k);
                    let off = if v == 0 { i64::MIN as u64 } else { v.wrapping_sub(b.bufs()[j].start() as u64) };
                    write(&mut cin, (i * n + k) * SLOT, off, 8);
                }
            }
            for (phase, caller) in [(PHASE_WRITER, writer), (PHASE_READER, reader)] {
                rec.phase = phase;
                let mut saves: Vec<Vec<u8>> = init.iter().map(|v| vec![0u8; v.len()]).collect();
                let mut table = Vec::new();
                for (j, save) in saves.iter_mut().enumerate() {
                    table.extend([init[j].as_ptr() as u64, save.as_mut_ptr() as u64]);
                }
                let mut vout = vec![0u8; n * RESULT_SLOT];
                // The clone's allocations land where they did in its own run.
                use_arena_of(&mut b);
                scrub_stack();
                // SAFETY: the caller reads `vin` and `table`, writes `vout` and
                // the buffers and saves listed in `table`, all live here.
                unsafe { caller(cin.as_ptr(), vout.as_mut_ptr(), table.as_ptr() as *const u8) };
                alloc_hooks::stop_arena();
                caller_runs.push((vout, (phase == PHASE_WRITER).then_some(saves)));
            }
        }
        let mut runs = vec![(
            PHASE_CLONE,
            CloneRun {
                kind_result: FAIL_RESULT,
                kind_memory: FAIL_MEMORY,
                results: vout,
                pointer_results: true,
                memory: Some(b.bufs().iter().map(|g| g.bytes()).collect()),
            },
        )];
        for ((results, saves), phase) in caller_runs.iter().zip([PHASE_WRITER, PHASE_READER]) {
            runs.push((
                phase,
                CloneRun {
                    kind_result: FAIL_CALLER_RESULT,
                    kind_memory: FAIL_CALLER_MEMORY,
                    results: results.clone(),
                    pointer_results: false,
                    memory: saves.as_ref().map(|s| s.iter().map(|v| v.as_slice()).collect()),
                },
            ));
        }
        // Pointers the optimised callers store point into their own local
        // copy of the buffers, one page-aligned array on this thread's
        // stack laid out like the copies: a word is such a pointer if it
        // implies a page-aligned array base on the stack. (Which lane's
        // buffer it points into was checked exactly in the clone's run.)
        let in_clone = relative(delta);
        let in_caller = |x: u64, y: u64| {
            let local_base = y.wrapping_sub(x.wrapping_sub(a.base()));
            in_clone(x, y) || (local_base % 4096 == 0 && on_stack(local_base))
        };
        let mut undefined: Option<Undefined> = None;
        for (phase, got) in &runs {
            let same_pointer: &dyn Fn(u64, u64) -> bool = if *phase == PHASE_CLONE { &in_clone } else { &in_caller };
            rec.phase = *phase;
            let mut failure = compare_run(t, opts, &inp, (&scalar, &a), &b, got, same_pointer, undefined.as_ref());
            if failure.is_some() && undefined.is_none() {
                // Bytes the scalar code leaves undefined may differ: find
                // them, and compare again without them.
                let third = match &mut third {
                    Some(c) => c,
                    None => match alloc_copy(t) {
                        Ok(c) => third.insert(c),
                        Err(e) => {
                            rec.fail(FAIL_SETUP, 0, e.as_bytes(), &[]);
                            return;
                        }
                    },
                };
                rec.phase = PHASE_SCALAR;
                undefined = Some(find_undefined(t, opts, run, &inp, (&scalar, &a), third, rec));
                rec.phase = *phase;
                failure = compare_run(t, opts, &inp, (&scalar, &a), &b, got, same_pointer, undefined.as_ref());
            }
            if let Some(f) = failure {
                f.record(rec);
                return;
            }
        }
        if let Err(m) = recorder::check_log(&scalar.logs, &clone_log) {
            let got: Vec<u8> = m.got.map_or(Vec::new(), |(t, v)| [t.to_le_bytes(), v.to_le_bytes()].concat());
            rec.phase = PHASE_CLONE;
            rec.fail(FAIL_LOG, 0, &[], &got);
            rec.f_log = [m.position as u64, m.clone_entries as u64, m.scalar_entries as u64];
            return;
        }
        rec.lanes_compared += inp.mask.iter().filter(|&&m| m).count() as u64;
    }
    rec.phase = PHASE_SETUP;
}

fn check_target(t: &Target, opts: &OracleOptions, cfg: &CheckConfig) -> Result<CheckStats, OracleError> {
    let spec = &t.spec;
    let n = spec.width as usize;
    let mismatch = |trial: usize, lane: usize, exp: Vec<u8>, got: Vec<u8>, kind: MismatchKind| {
        let inp = trial_inputs(t, cfg, trial);
        let lane = lane.min(n.saturating_sub(1));
        OracleError::Mismatch(Box::new(Mismatch {
            clone: spec.vector_name.clone(),
            trial,
            lane: lane as u32,
            inputs: (0..t.scalars.len()).map(|i| describe_input(t, &inp, i, lane)).collect(),
            expected: exp,
            got,
            mask: inp.mask,
            kind,
        }))
    };
    if let Some(kind) = &t.static_failure {
        return Err(mismatch(0, 0, Vec::new(), Vec::new(), kind.clone()));
    }
    let mut stats = CheckStats::default();
    let mut from = 0;
    let mut first_scalar_fault = None;
    // The time limit covers a child's trials together, so the clone can run
    // out of time that the scalar calls used (lz4's `LZ4F_optimalBSID` loops
    // 2^32 times on some inputs): a trial that times out in the clone runs
    // once more, with time for its scalar calls and eight times as long for
    // the clone. Only a clone slower than that is a failure.
    let mut timeout = opts.timeout_secs;
    let mut retried = None;
    let mut poison_trials = 0;
    while from < cfg.trials {
        let (rec, end) = if opts.isolate {
            run_forked(Record::new(), timeout, |rec| run_trials(t, opts, cfg, from, rec)).map_err(OracleError::Setup)?
        } else {
            let mut rec = Record::new();
            run_trials(t, opts, cfg, from, &mut rec);
            (rec, ChildEnd::Finished)
        };
        stats.lanes_compared += rec.lanes_compared as usize;
        stats.trials_dropped += rec.poison_trials as usize;
        poison_trials += rec.poison_trials;
        let trial = rec.trial as usize;
        let during = match rec.phase {
            PHASE_CLONE => "the clone",
            PHASE_WRITER => "the -O2 writer caller of the clone",
            PHASE_READER => "the -O2 reader caller of the clone",
            _ => "",
        };
        match end {
            ChildEnd::Finished => {
                let (exp, got) = (rec.exp[..rec.exp_len as usize].to_vec(), rec.got[..rec.got_len as usize].to_vec());
                let lane = rec.f_lane as usize;
                let memory = || {
                    let b = t.bufs[rec.f_buf as usize];
                    let region_offset = Guarded::region_offset_for(b.len, b.align);
                    let offset = rec.f_offset as i64 - (region_offset + b.base) as i64;
                    (b.param, b.lane, offset)
                };
                let caller = if rec.phase == PHASE_WRITER { "writer" } else { "reader" }.to_string();
                return match rec.fail {
                    FAIL_NONE => break,
                    FAIL_SETUP => Err(OracleError::Setup(String::from_utf8_lossy(&exp).into_owned())),
                    FAIL_RESULT => Err(mismatch(trial, lane, exp, got, MismatchKind::Result)),
                    FAIL_LOG => {
                        let [position, clone_entries, scalar_entries] = rec.f_log.map(|x| x as usize);
                        let kind = MismatchKind::Log { position, clone_entries, scalar_entries };
                        Err(mismatch(trial, lane, exp, got, kind))
                    }
                    FAIL_MEMORY => {
                        let (param, buffer_lane, offset) = memory();
                        let written_by = (0..64).filter(|k| rec.f_writers >> k & 1 == 1).collect();
                        Err(mismatch(
                            trial,
                            lane,
                            exp,
                            got,
                            MismatchKind::Memory { param, buffer_lane, offset, written_by },
                        ))
                    }
                    FAIL_CALLER_RESULT => {
                        Err(mismatch(trial, lane, exp, got, MismatchKind::OptimizedCaller { caller, memory: None }))
                    }
                    _ => Err(mismatch(
                        trial,
                        lane,
                        exp,
                        got,
                        MismatchKind::OptimizedCaller { caller, memory: Some(memory()) },
                    )),
                };
            }
            ChildEnd::Signal(sig) if rec.phase == PHASE_SCALAR => {
                // The scalar code faults on this trial's inputs: not the
                // clone's fault. Drop the trial and go on after it.
                stats.trials_dropped += 1;
                first_scalar_fault.get_or_insert((trial, rec.lane, sig));
                from = trial + 1;
            }
            ChildEnd::Signal(libc::SIGALRM) if !during.is_empty() && retried != Some(trial) => {
                retried = Some(trial);
                let scalar_secs = u32::try_from(rec.scalar_ms.div_ceil(1000)).unwrap_or(u32::MAX);
                timeout = opts.timeout_secs.saturating_add(scalar_secs.saturating_mul(9)).saturating_add(1);
                from = trial;
            }
            ChildEnd::Signal(sig) if !during.is_empty() => {
                let kind = MismatchKind::Fault { signal: sig, during: during.to_string() };
                return Err(mismatch(trial, 0, Vec::new(), Vec::new(), kind));
            }
            ChildEnd::Signal(sig) => {
                return Err(OracleError::Setup(format!(
                    "{}: the oracle's child process died with {} while preparing trial {trial}",
                    spec.vector_name,
                    signal_name(sig)
                )))
            }
            ChildEnd::Abnormal(code) => {
                return Err(OracleError::Setup(format!(
                "{}: the oracle's child process exited with status {code} in trial {trial} (a panic in the oracle?)",
                spec.vector_name
            )))
            }
        }
    }
    if stats.lanes_compared == 0 && first_scalar_fault.is_none() && poison_trials > 0 {
        return Err(OracleError::Setup(format!(
            "{}: the scalar function `{}` makes poison (an overflow or shift it promises not to have) on every \
             trial's inputs",
            spec.vector_name, spec.scalar_name
        )));
    }
    if stats.lanes_compared == 0 {
        if let Some((trial, lane, sig)) = first_scalar_fault {
            let hint = if t.bufs.is_empty() {
                ""
            } else {
                "; its pointer parameters may need larger buffers than the oracle gives"
            };
            return Err(OracleError::Setup(format!(
                "{}: the scalar function `{}` crashed with {} on every trial's inputs (first: trial {trial}, lane \
                 {lane}){hint}",
                spec.vector_name,
                spec.scalar_name,
                signal_name(sig)
            )));
        }
    }
    Ok(stats)
}

/// Whether two floating-point results are both NaN. LLVM leaves the sign
/// and payload of a NaN produced from NaN operands unspecified (LangRef,
/// "Floating-Point Semantics"), and the backend may commute operands, so
/// NaN results compare equal to each other; every other bit must match.
fn both_nan(s: Option<Scalar>, a: &[u8], b: &[u8]) -> bool {
    let bits = |x: &[u8]| {
        let mut w = [0u8; 8];
        w[..x.len().min(8)].copy_from_slice(&x[..x.len().min(8)]);
        u64::from_le_bytes(w)
    };
    let (a, b) = (bits(a), bits(b));
    match s {
        Some(Scalar::Float) => f32::from_bits(a as u32).is_nan() && f32::from_bits(b as u32).is_nan(),
        Some(Scalar::Double) => f64::from_bits(a).is_nan() && f64::from_bits(b).is_nan(),
        Some(Scalar::Half) => (a & 0x7c00) == 0x7c00 && (a & 0x3ff) != 0 && (b & 0x7c00) == 0x7c00 && (b & 0x3ff) != 0,
        _ => false,
    }
}

/// Whether two finite or infinite `float`/`double` results (no NaN) of the
/// same sign are at most `ulps` units in the last place apart (`-0` and
/// `+0` are 0 apart; an infinity only meets itself).
fn within_ulps(s: Option<Scalar>, a: &[u8], b: &[u8], ulps: u32) -> bool {
    let bits = |x: &[u8]| {
        let mut w = [0u8; 8];
        w[..x.len().min(8)].copy_from_slice(&x[..x.len().min(8)]);
        u64::from_le_bytes(w)
    };
    let (a, b) = (bits(a), bits(b));
    let (sign, exp_mask) = match s {
        Some(Scalar::Float) => (1u64 << 31, 0x7f80_0000u64),
        Some(Scalar::Double) => (1u64 << 63, 0x7ff0_0000_0000_0000u64),
        _ => return false,
    };
    let special = |x: u64| x & exp_mask == exp_mask;
    if special(a) || special(b) {
        return false; // NaN and infinities: bit for bit (or both NaN) only
    }
    let magnitude = |x: u64| (x & (sign - 1)) as i128;
    let ordered = |x: u64| if x & sign != 0 { -magnitude(x) } else { magnitude(x) };
    let zero = |x: u64| magnitude(x) == 0;
    if (a & sign) != (b & sign) && !zero(a) && !zero(b) {
        return false;
    }
    (ordered(a) - ordered(b)).abs() <= ulps as i128
}

fn fxhash(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ b as u64).wrapping_mul(0x100_0000_01b3))
}
