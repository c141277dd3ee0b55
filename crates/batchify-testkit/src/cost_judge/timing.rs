//! Timing two or three builds of one clone on the same inputs.
//!
//! Each build ([`Form`]) is a copy of its module, made JIT-able like the
//! oracle's ([`crate::prepare`]), with one more function:
//!
//! ```text
//! void __judge_loop(ptr in, ptr out, i64 iters)
//! ```
//!
//! whose entry block reads [`Inputs::sets`] argument sets from `in` (the
//! oracle's input layout, [`crate::wrappers`], one set after the other)
//! into stack slots of the clone's own argument types, and whose loop then
//! calls the clone `iters` times, set `j mod sets` on call `j`, each call's
//! arguments loaded from their slots (a vector load per vector argument,
//! nothing rebuilt lane by lane). The last call's lanes are stored to
//! `out`. The JIT runs no IR passes (only code generation), so nothing
//! hoists or merges the calls: one sample is one indirect call from Rust
//! and `iters` calls of the clone. A second loop, `__judge_loop.null`,
//! calls `__judge_null` instead, a function of the clone's type and
//! attributes that returns at once: its time per call is the harness's
//! own overhead ([`Measured::overhead`]).
//!
//! The measurement runs in a forked child ([`crate::isolate::run_forked`]),
//! so a clone that faults ends the child, not the judge. The child calls
//! every form once (results and buffers compared between the forms),
//! calibrates `iters` so that the fastest form's sample takes at least
//! [`TimingConfig::sample_ns`], then takes [`TimingConfig::samples`]
//! samples of each form, rotating which form goes first, with the buffers
//! reset to their initial contents before every sample (the forms compute
//! the same thing, so a function that writes its buffers sees the same
//! sequence of contents in every sample of every form).

use crate::buffers::GuardedSet;
use crate::inputs::{mask_to, Scalar};
use crate::isolate::{run_forked, signal_name, ChildEnd};
use crate::jit::{Jit, JitTarget};
use crate::promises::{promises_of, Promise};
use crate::wrappers::{call_clone, clone_call_args, store_lane_results, RESULT_SLOT, SLOT};
use batchify_core::llvm::{constant, Builder, LLVMIntPredicate, LLVMOpcode, LLVMTypeKind, Module, Type, Value};
use batchify_core::vfabi::ParamKind;
use batchify_core::CloneSpec;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

/// Name of the timing loop added to each form's module.
const LOOP_FN: &str = "__judge_loop";
/// The timing loop over the null clone.
const NULL_LOOP_FN: &str = "__judge_loop.null";
/// The null clone: the clone's type and attributes, an empty body.
const NULL_FN: &str = "__judge_null";

/// The environment variable naming a folder for the JIT's modules ([`Form::compile`]).
pub const DUMP_ENV: &str = "BATCHIFY_JUDGE_DUMP";

/// Most samples per form.
pub const MAX_SAMPLES: usize = 63;
/// Most forms timed together.
pub const MAX_FORMS: usize = 3;
/// Rows of samples in the child's record: the forms and the null clone.
const ROWS: usize = MAX_FORMS + 1;

type LoopFn = unsafe extern "C" fn(*const u8, *mut u8, u64);

/// One build of the clone, compiled, with its timing loop.
pub struct Form {
    _jit: Jit,
    run: LoopFn,
    null: LoopFn,
}

/// How to measure.
#[derive(Debug, Clone, Copy)]
pub struct TimingConfig {
    /// Least duration of one sample of the fastest form (nanoseconds).
    pub sample_ns: u64,
    /// Samples per form (at most [`MAX_SAMPLES`]).
    pub samples: usize,
    /// Time limit of the whole measurement of one program (seconds).
    pub timeout_secs: u32,
}

/// What a parameter is, for input generation.
#[derive(Debug, Clone, Copy)]
struct Param {
    scalar: Scalar,
    kind: ParamKind,
}

/// One buffer behind a pointer parameter (the oracle's plan: a buffer per
/// lane for a varying pointer, one for a uniform or linear one).
#[derive(Debug, Clone, Copy)]
struct BufPlan {
    param: usize,
    len: usize,
    /// Offset in the region of the pointer lane 0 (or lane `lane`) gets.
    base: usize,
    align: usize,
}

/// Buffer size of a pointer parameter without `dereferenceable` (the
/// pointer in the middle), as the oracle's default.
const DEFAULT_BUFFER: usize = 256;

/// Readable and writable bytes before and after every buffer. The oracle
/// puts its buffers against guard pages to catch stray accesses; timed
/// there, a masked vector access whose inactive lanes reach into a guard
/// page (a strided access from an offset, a piece past the end) costs a
/// fault-suppression assist of hundreds of cycles on Intel cores on every
/// call, which real data, with mapped memory around it, rarely pays.
const PAD: usize = 4096;

/// The inputs every form is timed on: `sets` argument sets in the
/// oracle's input layout, and the buffers they point into.
pub struct Inputs {
    /// Argument sets the timing loop cycles through (a power of two).
    pub sets: usize,
    /// Lanes.
    width: usize,
    params: Vec<Param>,
    /// The argument sets, one after the other.
    blob: Vec<u8>,
    /// Each set's mask (all lanes for an unmasked clone).
    masks: Vec<Vec<bool>>,
    bufs: GuardedSet,
    /// The buffers' initial contents.
    initial: Vec<Vec<u8>>,
    /// Result bytes of one lane.
    result_bytes: usize,
    result_scalar: Option<Scalar>,
}

fn scalar_of(t: Type) -> Option<Scalar> {
    Some(match t.kind() {
        LLVMTypeKind::LLVMIntegerTypeKind if t.int_width() <= 64 => Scalar::Int(t.int_width()),
        LLVMTypeKind::LLVMFloatTypeKind => Scalar::Float,
        LLVMTypeKind::LLVMDoubleTypeKind => Scalar::Double,
        LLVMTypeKind::LLVMPointerTypeKind if t.address_space() == 0 => Scalar::Ptr,
        _ => return None,
    })
}

fn int_attr(f: Value, idx: u32, name: &str) -> Option<u64> {
    f.enum_attribute(idx, name).map(batchify_core::llvm::attribute_enum_value)
}

/// One input value for timing: the oracle's mix of special and random
/// values ([`crate::inputs::random_bits`]) finds wrong lanes; timing wants
/// the values code usually sees. Integers: small ones, boundary ones and
/// random bits; floating point: mostly moderate values, a few random
/// normal ones and a few specials (±0, ±1, ±inf, NaN), never a subnormal:
/// an operation on a subnormal takes a microcode assist of ~100 cycles on
/// Intel cores, and vector code that computes both sides of a branch would
/// pay it for lanes whose scalar code never touches the value.
pub fn ordinary_bits(rng: &mut SmallRng, s: Scalar) -> u64 {
    let roll = rng.gen_range(0..100);
    match s {
        Scalar::Int(w) => {
            let top = 1u64 << (w.min(64) - 1);
            let v = if roll < 20 {
                [0u64, 1, u64::MAX, 2, top, top.wrapping_sub(1)][rng.gen_range(0..6)]
            } else if roll < 60 {
                rng.gen_range(-100i64..100) as u64
            } else {
                rng.gen()
            };
            mask_to(v, w)
        }
        Scalar::Float => {
            let v: f32 = if roll < 70 {
                rng.gen_range(-8.0..8.0)
            } else if roll < 85 {
                rng.gen_range(-1e4..1e4)
            } else if roll < 95 {
                loop {
                    let x = f32::from_bits(rng.gen());
                    if x.is_normal() {
                        break x;
                    }
                }
            } else {
                [0.0, -0.0, 1.0, -1.0, f32::INFINITY, f32::NEG_INFINITY, f32::NAN][rng.gen_range(0..7)]
            };
            v.to_bits() as u64
        }
        Scalar::Double => {
            let v: f64 = if roll < 70 {
                rng.gen_range(-8.0..8.0)
            } else if roll < 85 {
                rng.gen_range(-1e4..1e4)
            } else if roll < 95 {
                loop {
                    let x = f64::from_bits(rng.gen());
                    if x.is_normal() {
                        break x;
                    }
                }
            } else {
                [0.0, -0.0, 1.0, -1.0, f64::INFINITY, f64::NEG_INFINITY, f64::NAN][rng.gen_range(0..7)]
            };
            v.to_bits()
        }
        Scalar::Half => rng.gen::<u16>() as u64 & 0x3fff,
        Scalar::Ptr => 0,
    }
}

fn write(buf: &mut [u8], at: usize, bits: u64, bytes: usize) {
    buf[at..at + bytes].copy_from_slice(&bits.to_le_bytes()[..bytes.min(8)]);
}

impl Inputs {
    /// Inputs for `spec`'s clone of `scalar`: [`ordinary_bits`] values,
    /// masks with each lane active with probability 0.6, random buffer
    /// contents (of floating-point elements, [`ordinary_bits`], where
    /// `elements` says a pointer parameter points to `float` or `double`)
    /// that keep the scalar code's `!range` promises, all from `seed`.
    pub fn new(
        scalar: Value,
        spec: &CloneSpec,
        sets: usize,
        seed: u64,
        elements: &[Option<Scalar>],
    ) -> Result<Inputs, String> {
        assert!(sets.is_power_of_two(), "the number of argument sets must be a power of two");
        let fty = scalar.function_type();
        let n = spec.width as usize;
        let mut params = Vec::new();
        let mut plans = Vec::new();
        for (i, t) in fty.param_types().into_iter().enumerate() {
            let scalar_ty = scalar_of(t)
                .ok_or_else(|| format!("parameter {i} has type {}, which the judge cannot pass", t.print()))?;
            let kind = spec.params[i];
            if scalar_ty == Scalar::Ptr {
                let idx = i as u32 + 1;
                if ["byval", "sret", "inalloca", "preallocated"].iter().any(|a| scalar.enum_attribute(idx, a).is_some())
                {
                    return Err(format!("parameter {i} is passed by value or as sret, which the judge does not pass"));
                }
                let deref = int_attr(scalar, idx, "dereferenceable")
                    .or_else(|| int_attr(scalar, idx, "dereferenceable_or_null"));
                let (before, after) = match deref {
                    Some(d) => (0, d.max(1) as usize),
                    None => (DEFAULT_BUFFER / 2, DEFAULT_BUFFER - DEFAULT_BUFFER / 2),
                };
                let align = (int_attr(scalar, idx, "align").unwrap_or(1) as usize).max(16).next_power_of_two();
                let one = |len, base| BufPlan { param: i, len: PAD + len + PAD, base: PAD + base, align };
                match kind {
                    ParamKind::Vector => plans.extend((0..n).map(|_| one(before + after, before))),
                    ParamKind::Uniform => plans.push(one(before + after, before)),
                    ParamKind::Linear { step } => {
                        let span = step.unsigned_abs() as usize * (n - 1);
                        if span > 1 << 20 {
                            return Err(format!("parameter {i} is linear with step {step}: too far apart"));
                        }
                        plans.push(one(before + after + span, before + if step < 0 { span } else { 0 }));
                    }
                    _ => {
                        return Err(format!(
                            "parameter {i} is a pointer of kind {kind:?}, which the judge does not pass"
                        ))
                    }
                }
            } else if !matches!(kind, ParamKind::Vector | ParamKind::Uniform | ParamKind::Linear { .. }) {
                return Err(format!("parameter {i} has kind {kind:?}, which the judge does not pass"));
            }
            params.push(Param { scalar: scalar_ty, kind });
        }
        let region_plan: Vec<(usize, usize)> = plans.iter().map(|b| (b.len, b.align)).collect();
        let mut bufs = GuardedSet::new(&region_plan, 4096)?;
        let mut rng = SmallRng::seed_from_u64(seed);
        for (g, plan) in bufs.bufs_mut().iter_mut().zip(&plans) {
            rng.fill(g.bytes_mut());
            if let Some(e @ (Scalar::Float | Scalar::Double)) = elements.get(plan.param).copied().flatten() {
                // Elements aligned to the pointer the lanes get.
                let size = e.bytes();
                let mut at = (g.region_offset() + plan.base) % size;
                while at + size <= g.bytes().len() {
                    write(g.bytes_mut(), at, ordinary_bits(&mut rng, e), size);
                    at += size;
                }
            }
        }
        keep_promises(&promises_of(scalar), &plans, &params, n, &mut bufs, &mut rng);
        let initial = bufs.bufs().iter().map(|g| g.bytes().to_vec()).collect();
        let p = params.len();
        let set_bytes = (p + 1) * n * SLOT;
        let mut blob = vec![0u8; sets * set_bytes];
        let mut masks = Vec::new();
        for s in 0..sets {
            let set = &mut blob[s * set_bytes..(s + 1) * set_bytes];
            for (i, prm) in params.iter().enumerate() {
                let w = match prm.scalar {
                    Scalar::Int(w) => w,
                    _ => 64,
                };
                let lanes: Vec<u64> = match (prm.scalar, prm.kind) {
                    (Scalar::Ptr, kind) => {
                        let j = plans.iter().position(|b| b.param == i).expect("a pointer parameter has a buffer");
                        (0..n)
                            .map(|k| {
                                let (j, off) = match kind {
                                    ParamKind::Vector => (j + k, 0),
                                    ParamKind::Linear { step } => (j, (k as i64).wrapping_mul(step)),
                                    _ => (j, 0),
                                };
                                let at = bufs.bufs()[j].region() as u64 + plans[j].base as u64;
                                at.wrapping_add(off as u64)
                            })
                            .collect()
                    }
                    (s, ParamKind::Vector) => (0..n).map(|_| ordinary_bits(&mut rng, s)).collect(),
                    (s, ParamKind::Linear { step }) => {
                        let base = ordinary_bits(&mut rng, s);
                        (0..n).map(|k| mask_to(base.wrapping_add((k as u64).wrapping_mul(step as u64)), w)).collect()
                    }
                    (s, _) => vec![ordinary_bits(&mut rng, s); n],
                };
                for (k, v) in lanes.into_iter().enumerate() {
                    write(set, (i * n + k) * SLOT, v, prm.scalar.bytes());
                }
            }
            let mask: Vec<bool> =
                if spec.mask.is_some() { (0..n).map(|_| rng.gen_bool(0.6)).collect() } else { vec![true; n] };
            for (k, m) in mask.iter().enumerate() {
                set[(p * n + k) * SLOT] = *m as u8;
            }
            masks.push(mask);
        }
        let ret = fty.return_type();
        let result_scalar = if ret.is_void() { None } else { scalar_of(ret) };
        let result_bytes = result_scalar.map_or(0, Scalar::bytes);
        Ok(Inputs { sets, width: n, params, blob, masks, bufs, initial, result_bytes, result_scalar })
    }

    /// Puts the buffers back to their initial contents.
    fn reset(&mut self) {
        for (g, init) in self.bufs.bufs_mut().iter_mut().zip(&self.initial) {
            g.bytes_mut().copy_from_slice(init);
        }
    }

    /// Whether two forms' results of one call on set 0 agree on its active
    /// lanes (both-NaN results agree).
    fn results_agree(&self, a: &[u8], b: &[u8]) -> bool {
        let mask = &self.masks[0];
        (0..self.width).filter(|&k| mask[k]).all(|k| {
            let (x, y) = (
                &a[k * RESULT_SLOT..k * RESULT_SLOT + self.result_bytes],
                &b[k * RESULT_SLOT..k * RESULT_SLOT + self.result_bytes],
            );
            x == y || both_nan(self.result_scalar, x, y)
        })
    }

    /// Number of parameters.
    pub fn params(&self) -> usize {
        self.params.len()
    }
}

fn both_nan(s: Option<Scalar>, a: &[u8], b: &[u8]) -> bool {
    let bits = |x: &[u8]| {
        let mut w = [0u8; 8];
        w[..x.len().min(8)].copy_from_slice(&x[..x.len().min(8)]);
        u64::from_le_bytes(w)
    };
    match s {
        Some(Scalar::Float) => f32::from_bits(bits(a) as u32).is_nan() && f32::from_bits(bits(b) as u32).is_nan(),
        Some(Scalar::Double) => f64::from_bits(bits(a)).is_nan() && f64::from_bits(bits(b)).is_nan(),
        _ => false,
    }
}

/// Writes values that keep the scalar code's promises about its buffers
/// (as the oracle's `fill_copy`).
fn keep_promises(
    promises: &[Promise],
    plans: &[BufPlan],
    params: &[Param],
    n: usize,
    bufs: &mut GuardedSet,
    rng: &mut SmallRng,
) {
    for p in promises {
        for (j, b) in plans.iter().enumerate().filter(|(_, b)| b.param == p.param) {
            let lanes: Vec<i64> = match params[p.param].kind {
                ParamKind::Linear { step } => (0..n as i64).map(|k| k.wrapping_mul(step)).collect(),
                _ => vec![0],
            };
            let g = &mut bufs.bufs_mut()[j];
            for lane_offset in lanes {
                let at = b.base as i64 + lane_offset + p.offset as i64;
                if at < 0 || at as usize + p.bytes > b.len {
                    continue;
                }
                let at = g.region_offset() + at as usize;
                write(g.bytes_mut(), at, p.pick(rng), p.bytes);
            }
        }
    }
}

impl Form {
    /// Compiles a copy of `module` (which holds `spec`'s scalar function
    /// and clone) with the timing loop over `sets` argument sets. With
    /// [`DUMP_ENV`] set to a folder, the module the JIT compiles is written
    /// there as `<clone>.<label>.ll`.
    pub fn compile(
        module: &inkwell::module::Module<'_>,
        spec: &CloneSpec,
        sets: usize,
        target: &JitTarget,
        label: &str,
    ) -> Result<Form, String> {
        let copy = module.clone();
        let raw = Module::from_inkwell(&copy);
        let tainted = crate::prepare::prepare(raw);
        for f in [&spec.scalar_name, &spec.vector_name] {
            if let Some(why) = tainted.get(f) {
                return Err(format!("`{f}` cannot run: {why}"));
            }
        }
        let scalar = raw.function(&spec.scalar_name).ok_or_else(|| format!("no function `{}`", spec.scalar_name))?;
        let clone = raw.function(&spec.vector_name).ok_or_else(|| format!("no clone `{}`", spec.vector_name))?;
        add_timing_loop(raw, scalar, clone, spec, sets, LOOP_FN);
        let null = add_null_clone(raw, clone);
        add_timing_loop(raw, scalar, null, spec, sets, NULL_LOOP_FN);
        raw.verify().map_err(|e| format!("the timing loop does not verify: {e}"))?;
        if let Some(dir) = std::env::var_os(DUMP_ENV) {
            let path = std::path::Path::new(&dir).join(format!("{}.{label}.ll", spec.vector_name));
            std::fs::write(&path, copy.print_to_string().to_string())
                .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        }
        let overrides: Vec<(&str, u64)> = crate::alloc_hooks::overrides()
            .into_iter()
            .chain(crate::recorder::overrides())
            .filter(|(name, _)| raw.function(name).is_none_or(|f| f.is_declaration()))
            .collect();
        let bitcode = copy.write_bitcode_to_memory();
        let jit = Jit::for_target(bitcode.as_slice(), &overrides, target)?;
        let (run, null) = (jit.lookup(LOOP_FN)?, jit.lookup(NULL_LOOP_FN)?);
        // SAFETY: the timing loops have the C signature `void(ptr, ptr, i64)`.
        let (run, null) =
            unsafe { (std::mem::transmute::<u64, LoopFn>(run), std::mem::transmute::<u64, LoopFn>(null)) };
        Ok(Form { _jit: jit, run, null })
    }
}

/// Adds [`NULL_FN`]: `clone`'s type, calling convention and attributes,
/// a body that returns poison at once.
fn add_null_clone<'ctx>(module: Module<'ctx>, clone: Value<'ctx>) -> Value<'ctx> {
    let fty = clone.function_type();
    let f = module.add_function(NULL_FN, fty);
    f.set_function_call_conv(clone.call_conv());
    let n = fty.param_types().len() as u32;
    for idx in (0..=n).chain([batchify_core::llvm::FUNCTION_INDEX]) {
        for a in clone.attributes(idx) {
            f.add_attribute(idx, a);
        }
    }
    let b = Builder::new(module.context());
    b.position_at_end(f.append_block("entry"));
    let ret = fty.return_type();
    b.ret((!ret.is_void()).then(|| constant::poison(ret)));
    f
}

/// Adds the timing loop `name` over `clone` (see the module documentation) to `module`.
fn add_timing_loop<'ctx>(
    module: Module<'ctx>,
    scalar: Value<'ctx>,
    clone: Value<'ctx>,
    spec: &CloneSpec,
    sets: usize,
    name: &str,
) {
    let ctx = module.context();
    let (ptr, i64t) = (Type::ptr(ctx), Type::int(ctx, 64));
    let f = module.add_function(name, Type::function(Type::void(ctx), &[ptr, ptr, i64t]));
    // The caller of the clone shares its target features, so that vector
    // arguments are passed in the registers the clone expects.
    for key in ["target-cpu", "tune-cpu", "target-features", "min-legal-vector-width"] {
        if let Some(v) = clone.string_attribute(batchify_core::llvm::FUNCTION_INDEX, key) {
            f.set_string_attribute(batchify_core::llvm::FUNCTION_INDEX, key, &v);
        }
    }
    let ps = f.params();
    let (inp, out, iters) = (ps[0], ps[1], ps[2]);
    let entry = f.append_block("entry");
    let body = f.append_block("loop");
    let exit = f.append_block("exit");
    let b = Builder::new(ctx);
    b.position_at_end(entry);
    let n = spec.width as usize;
    let set_bytes = (spec.params.len() + 1) * n * SLOT;
    let i8t = Type::int(ctx, 8);
    let sets_args: Vec<Vec<Value>> = (0..sets)
        .map(|s| {
            let at = b.gep(i8t, inp, &[constant::int(i64t, (s * set_bytes) as u64)], Default::default());
            clone_call_args(&b, at, scalar, clone, spec)
        })
        .collect();
    let slots: Vec<(Type, Value, u32)> = sets_args[0]
        .iter()
        .enumerate()
        .map(|(j, a)| {
            let ty = a.ty();
            let align = module.abi_alignment_of(ty);
            let slot = b.alloca(ty.array_of(sets as u32));
            slot.set_alignment(align);
            for (s, args) in sets_args.iter().enumerate() {
                let p = b.gep(ty, slot, &[constant::int(i64t, s as u64)], Default::default());
                b.store(args[j], p, align);
            }
            (ty, slot, align)
        })
        .collect();
    b.br(body);
    b.position_at_end(body);
    let j = b.phi(i64t);
    let s = b.binop(LLVMOpcode::LLVMAnd, j, constant::int(i64t, sets as u64 - 1));
    let args: Vec<Value> = slots
        .iter()
        .map(|&(ty, slot, align)| {
            let p = b.gep(ty, slot, &[s], Default::default());
            b.load(ty, p, align)
        })
        .collect();
    let r = call_clone(&b, scalar, clone, spec, &args);
    let next = b.binop(LLVMOpcode::LLVMAdd, j, constant::int(i64t, 1));
    let more = b.icmp(LLVMIntPredicate::LLVMIntULT, next, iters);
    b.cond_br(more, body, exit);
    j.add_incoming(constant::int(i64t, 0), entry);
    j.add_incoming(next, body);
    // A result in memory (GCC's lowered symbols) has its `alloca` at the
    // call: move it to the entry block, so the loop does not grow the stack.
    let first = entry.instructions()[0];
    for i in body.instructions() {
        if i.opcode() == LLVMOpcode::LLVMAlloca {
            i.remove_from_parent();
            b.position_before(first);
            b.insert(i);
        }
    }
    b.position_at_end(exit);
    if let Some(r) = r {
        let last = b.phi(r.ty());
        last.add_incoming(r, body);
        store_lane_results(&b, last, scalar, spec, out);
    }
    b.ret(None);
}

/// Samples (nanoseconds per call) of each form.
#[derive(Debug, Clone, PartialEq)]
pub struct Measured {
    /// Calls of the clone per sample.
    pub iters: u64,
    /// Per form, its samples in the order they were taken.
    pub samples: Vec<Vec<f64>>,
    /// The samples of the first form's null clone: the harness's own time
    /// per call (argument loads, call and return, loop).
    pub overhead: Vec<f64>,
    /// Whether the forms' results or buffers differed after one call (a
    /// miscompile or a difference the oracle tolerates, such as NaN
    /// payloads in memory; the timing stands either way).
    pub outputs_differ: bool,
}

/// Why a measurement did not finish.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Failed {
    /// A form faulted (or the child died) while running: the reason key and
    /// the details.
    Fault(String, String),
    /// The judge could not run the measurement.
    Setup(String),
}

const PHASE_SETUP: u32 = 0;
const PHASE_PROBE: u32 = 1;
const PHASE_CALIBRATE: u32 = 2;
const PHASE_SAMPLE: u32 = 3;
const PHASE_DONE: u32 = 4;

/// Most calls per sample.
const MAX_ITERS: u64 = 1 << 24;

/// What the child leaves.
#[derive(Clone, Copy)]
#[repr(C)]
struct Record {
    phase: u32,
    form: u32,
    iters: u64,
    samples: u32,
    differ: u32,
    ns: [[f64; MAX_SAMPLES]; ROWS],
}

/// This thread's CPU time in nanoseconds: time other processes run on
/// this CPU (the machine may be shared) does not count.
fn thread_cpu_ns() -> f64 {
    let mut t = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: writes `t`.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
    t.tv_sec as f64 * 1e9 + t.tv_nsec as f64
}

/// One sample: `iters` calls of form `f`, on buffers reset first; its
/// duration in nanoseconds of this thread's CPU time.
fn time_once(run: LoopFn, inp: &mut Inputs, out: &mut [u8], iters: u64) -> f64 {
    inp.reset();
    let start = thread_cpu_ns();
    // SAFETY: the timing loop reads `sets` argument sets from the blob and
    // writes `width` result slots to `out`; the pointers in the blob point
    // into the live buffers.
    unsafe { run(inp.blob.as_ptr(), out.as_mut_ptr(), iters) };
    thread_cpu_ns() - start
}

/// Measures `forms` (at most [`MAX_FORMS`]) on `inp` in a forked child.
pub fn measure(forms: &[&Form], inp: &mut Inputs, cfg: &TimingConfig) -> Result<Measured, Failed> {
    assert!(forms.len() <= MAX_FORMS && cfg.samples <= MAX_SAMPLES && cfg.samples > 0);
    let rec = Record { phase: PHASE_SETUP, form: 0, iters: 0, samples: 0, differ: 0, ns: [[0.0; MAX_SAMPLES]; ROWS] };
    let width = inp.width;
    let child = |rec: &mut Record| {
        let mut outs: Vec<Vec<u8>> = forms.iter().map(|_| vec![0u8; width * RESULT_SLOT]).collect();
        // One call of each form; the results and buffers must agree.
        rec.phase = PHASE_PROBE;
        let mut after: Vec<Vec<Vec<u8>>> = Vec::new();
        for (k, f) in forms.iter().enumerate() {
            rec.form = k as u32;
            time_once(f.run, inp, &mut outs[k], 1);
            after.push(inp.bufs.bufs().iter().map(|g| g.bytes().to_vec()).collect());
        }
        let differ = (1..forms.len()).any(|k| !inp.results_agree(&outs[0], &outs[k]) || after[k] != after[0]);
        rec.differ = differ as u32;
        // Calibration: the fastest form's sample takes at least `sample_ns`.
        rec.phase = PHASE_CALIBRATE;
        let target = cfg.sample_ns as f64;
        let mut iters = 1u64;
        loop {
            let mut fastest = f64::INFINITY;
            for (k, f) in forms.iter().enumerate() {
                rec.form = k as u32;
                fastest = fastest.min(time_once(f.run, inp, &mut outs[k], iters));
            }
            if fastest >= target || iters >= MAX_ITERS {
                break;
            }
            // Aim 20% past the target, at most 100 times more calls per step.
            let scale = (target * 1.2 / fastest.max(1.0)).clamp(2.0, 100.0);
            iters = ((iters as f64 * scale).ceil() as u64).min(MAX_ITERS);
        }
        rec.iters = iters;
        rec.phase = PHASE_SAMPLE;
        let mut null_out = vec![0u8; width * RESULT_SLOT];
        for s in 0..cfg.samples {
            for r in 0..forms.len() {
                // Rotate which form goes first.
                let k = (s + r) % forms.len();
                rec.form = k as u32;
                rec.ns[k][s] = time_once(forms[k].run, inp, &mut outs[k], iters) / iters as f64;
            }
            rec.form = 0;
            rec.ns[MAX_FORMS][s] = time_once(forms[0].null, inp, &mut null_out, iters) / iters as f64;
            rec.samples = s as u32 + 1;
        }
        rec.phase = PHASE_DONE;
    };
    let (rec, end) = run_forked(rec, cfg.timeout_secs, child).map_err(Failed::Setup)?;
    let which = |rec: &Record| match rec.form {
        0 => "the vector form",
        1 => "the per-lane loop",
        _ => "the cost model's mixed form",
    };
    let phase = |rec: &Record| match rec.phase {
        PHASE_PROBE => "first call",
        PHASE_CALIBRATE => "calibration",
        PHASE_SAMPLE => "sampling",
        _ => "setup",
    };
    match end {
        ChildEnd::Finished if rec.phase == PHASE_DONE => Ok(Measured {
            iters: rec.iters,
            samples: (0..forms.len()).map(|k| rec.ns[k][..cfg.samples].to_vec()).collect(),
            overhead: rec.ns[MAX_FORMS][..cfg.samples].to_vec(),
            outputs_differ: rec.differ != 0,
        }),
        ChildEnd::Signal(libc::SIGALRM) => Err(Failed::Fault(
            "time limit exceeded".into(),
            format!("{} still running during {} after {} s", which(&rec), phase(&rec), cfg.timeout_secs),
        )),
        ChildEnd::Signal(sig) => Err(Failed::Fault(
            format!("{} in {}", signal_name(sig).split(' ').next().unwrap_or("signal"), which(&rec)),
            format!("{} in {} during {}", signal_name(sig), which(&rec), phase(&rec)),
        )),
        ChildEnd::Finished | ChildEnd::Abnormal(_) => Err(Failed::Setup(format!(
            "the timing child ended abnormally during {} of {} ({end:?})",
            phase(&rec),
            which(&rec)
        ))),
    }
}
