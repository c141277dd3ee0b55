//! The execution oracle: runs the scalar function once per lane and the
//! clone once, on the same inputs, and compares the results bit for bit.
//!
//! Inputs are random (fixed seed) mixed with special values; uniform
//! parameters get one value for all lanes, linear ones `base + k*step`.
//! Masked clones get a random mask per trial and only active lanes are
//! compared. Code runs for the real host CPU (see [`crate::jit`]).

use crate::inputs::{describe, mask_to, random_bits, Scalar};
use crate::jit::Jit;
use crate::wrappers::{add_scalar_wrapper, add_vector_wrapper, memory_type, RESULT_SLOT, SLOT};
use batchify_core::llvm::{Module, Type};
use batchify_core::vfabi::ParamKind;
use batchify_core::CloneSpec;
use llvm_sys::LLVMTypeKind;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
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

/// A lane whose clone result differs from the scalar result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mismatch {
    /// The clone's name.
    pub clone: String,
    /// Trial number.
    pub trial: usize,
    /// Lane that differs.
    pub lane: u32,
    /// The lane's inputs, described.
    pub inputs: Vec<String>,
    /// Scalar result bytes.
    pub expected: Vec<u8>,
    /// Clone result bytes.
    pub got: Vec<u8>,
    /// The mask of the trial (all ones when unmasked).
    pub mask: Vec<bool>,
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: lane {} differs (trial {}): inputs [{}]: scalar gives {:02x?}, clone gives {:02x?}",
            self.clone,
            self.lane,
            self.trial,
            self.inputs.join(", "),
            self.expected,
            self.got
        )
    }
}

/// Why a check failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OracleError {
    /// The results differ.
    Mismatch(Box<Mismatch>),
    /// The check could not run (JIT failure, unsupported signature).
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
}

type WrapperFn = unsafe extern "C" fn(*const u8, *mut u8);

struct Target {
    spec: CloneSpec,
    scalars: Vec<Scalar>,
    result_bytes: usize,
    result_scalar: Option<Scalar>,
    scalar_fn: WrapperFn,
    vector_fn: WrapperFn,
}

/// A compiled module with calling wrappers for a set of clones.
pub struct Oracle {
    _jit: Jit,
    targets: Vec<Target>,
}

fn scalar_of(t: Type) -> Result<Scalar, String> {
    Ok(match t.kind() {
        LLVMTypeKind::LLVMIntegerTypeKind if t.int_width() <= 64 => Scalar::Int(t.int_width()),
        LLVMTypeKind::LLVMHalfTypeKind => Scalar::Half,
        LLVMTypeKind::LLVMFloatTypeKind => Scalar::Float,
        LLVMTypeKind::LLVMDoubleTypeKind => Scalar::Double,
        _ => return Err(format!("parameters of type {} are not supported by the oracle yet", t.print())),
    })
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

impl Oracle {
    /// Adds wrappers for every spec to a copy of `module` and JIT-compiles it.
    /// The module must already hold the scalar functions and their clones.
    pub fn new(module: &inkwell::module::Module<'_>, specs: &[CloneSpec]) -> Result<Oracle, OracleError> {
        let setup = OracleError::Setup;
        let copy = module.clone();
        let raw = Module(copy.as_mut_ptr());
        let mut pending = Vec::new();
        for (idx, spec) in specs.iter().enumerate() {
            let scalar = raw
                .function(&spec.scalar_name)
                .ok_or_else(|| setup(format!("no scalar function `{}`", spec.scalar_name)))?;
            let clone =
                raw.function(&spec.vector_name).ok_or_else(|| setup(format!("no clone `{}`", spec.vector_name)))?;
            let fty = scalar.function_type();
            let scalars = fty.param_types().into_iter().map(scalar_of).collect::<Result<Vec<_>, _>>().map_err(setup)?;
            let (sname, vname) = (format!("__oracle_scalar.{idx}"), format!("__oracle_vector.{idx}"));
            add_scalar_wrapper(raw, scalar, spec, &sname);
            add_vector_wrapper(raw, scalar, clone, spec, &vname);
            let ret = fty.return_type();
            let result_scalar = if ret.is_void() { None } else { scalar_of(ret).ok() };
            pending.push((spec.clone(), scalars, store_size(ret), result_scalar, sname, vname));
        }
        raw.verify().map_err(|e| setup(format!("wrappers do not verify: {e}")))?;
        let bitcode = copy.write_bitcode_to_memory();
        let jit = Jit::new(bitcode.as_slice()).map_err(setup)?;
        let mut targets = Vec::new();
        for (spec, scalars, result_bytes, result_scalar, sname, vname) in pending {
            // SAFETY: both wrappers have the C signature `void(ptr, ptr)`.
            let (scalar_fn, vector_fn) = unsafe {
                (
                    std::mem::transmute::<u64, WrapperFn>(jit.lookup(&sname).map_err(setup)?),
                    std::mem::transmute::<u64, WrapperFn>(jit.lookup(&vname).map_err(setup)?),
                )
            };
            targets.push(Target { spec, scalars, result_bytes, result_scalar, scalar_fn, vector_fn });
        }
        Ok(Oracle { _jit: jit, targets })
    }

    /// Checks every clone; stops at the first mismatch.
    pub fn check_all(&self, cfg: &CheckConfig) -> Result<CheckStats, OracleError> {
        let mut total = CheckStats::default();
        for t in &self.targets {
            total.lanes_compared += check_target(t, cfg)?.lanes_compared;
        }
        Ok(total)
    }
}

fn lane_values(rng: &mut SmallRng, spec: &CloneSpec, scalars: &[Scalar]) -> Vec<Vec<u64>> {
    let n = spec.width as usize;
    let mut per_param: Vec<Vec<u64>> = Vec::new();
    for (i, s) in scalars.iter().enumerate() {
        let w = match s {
            Scalar::Int(w) => *w,
            _ => 64,
        };
        let vals = match spec.params[i] {
            ParamKind::Vector => (0..n).map(|_| random_bits(rng, *s)).collect(),
            ParamKind::Uniform => vec![random_bits(rng, *s); n],
            ParamKind::Linear { step } => {
                let base = random_bits(rng, *s);
                (0..n).map(|k| mask_to(base.wrapping_add((k as u64).wrapping_mul(step as u64)), w)).collect()
            }
            ParamKind::LinearVarStep { param } => {
                // The step parameter is uniform and comes earlier or later;
                // generate the base now and fix the lanes once all are known.
                let _ = param;
                vec![random_bits(rng, *s); n]
            }
            ParamKind::LinearRef { .. } => vec![0; n],
        };
        per_param.push(vals);
    }
    for (i, s) in scalars.iter().enumerate() {
        if let ParamKind::LinearVarStep { param } = spec.params[i] {
            let w = if let Scalar::Int(w) = s { *w } else { 64 };
            let sw = if let Scalar::Int(sw) = scalars[param] { sw } else { 64 };
            let raw = per_param[param][0];
            let step = if sw < 64 && (raw >> (sw - 1)) & 1 == 1 { raw | !((1u64 << sw) - 1) } else { raw };
            let base = per_param[i][0];
            per_param[i] = (0..n as u64).map(|k| mask_to(base.wrapping_add(k.wrapping_mul(step)), w)).collect();
        }
    }
    per_param
}

fn write(buf: &mut [u8], at: usize, bits: u64, bytes: usize) {
    buf[at..at + bytes].copy_from_slice(&bits.to_le_bytes()[..bytes.min(8)]);
}

fn check_target(t: &Target, cfg: &CheckConfig) -> Result<CheckStats, OracleError> {
    let spec = &t.spec;
    let n = spec.width as usize;
    let p = t.scalars.len();
    let mut rng = SmallRng::seed_from_u64(cfg.seed ^ fxhash(&spec.vector_name));
    let mut stats = CheckStats::default();
    for trial in 0..cfg.trials {
        let vals = lane_values(&mut rng, spec, &t.scalars);
        let mask: Vec<bool> =
            if spec.mask.is_some() { (0..n).map(|_| rng.gen_bool(0.6)).collect() } else { vec![true; n] };
        let mut vin = vec![0u8; (p + 1) * n * SLOT];
        for (i, s) in t.scalars.iter().enumerate() {
            for (k, v) in vals[i].iter().enumerate() {
                write(&mut vin, (i * n + k) * SLOT, *v, s.bytes());
            }
        }
        for (k, m) in mask.iter().enumerate() {
            vin[(p * n + k) * SLOT] = *m as u8;
        }
        let mut vout = vec![0u8; n * RESULT_SLOT];
        // SAFETY: the wrapper reads `vin` and writes `vout` within the layout.
        unsafe { (t.vector_fn)(vin.as_ptr(), vout.as_mut_ptr()) };
        for k in 0..n {
            if !mask[k] {
                continue;
            }
            let mut sin = vec![0u8; (p + 1) * n * SLOT];
            for (i, s) in t.scalars.iter().enumerate() {
                write(&mut sin, i * n * SLOT, vals[i][k], s.bytes());
            }
            let mut sout = vec![0u8; RESULT_SLOT];
            unsafe { (t.scalar_fn)(sin.as_ptr(), sout.as_mut_ptr()) };
            let len = t.result_bytes;
            let got = &vout[k * RESULT_SLOT..k * RESULT_SLOT + len];
            if got != &sout[..len] && !both_nan(t.result_scalar, got, &sout[..len]) {
                return Err(OracleError::Mismatch(Box::new(Mismatch {
                    clone: spec.vector_name.clone(),
                    trial,
                    lane: k as u32,
                    inputs: t.scalars.iter().enumerate().map(|(i, s)| describe(*s, vals[i][k])).collect(),
                    expected: sout[..len].to_vec(),
                    got: got.to_vec(),
                    mask,
                })));
            }
            stats.lanes_compared += 1;
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
        w[..x.len()].copy_from_slice(x);
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

fn fxhash(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ b as u64).wrapping_mul(0x100_0000_01b3))
}
