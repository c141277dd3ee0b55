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

mod compare;
mod inputs;
mod outcome;
mod protocol;
mod run;
mod signature;

pub use outcome::{CheckStats, CloneOutcome, Mismatch, MismatchKind, OracleError};

use crate::alloc_hooks;
use crate::buffers::{Guarded, GuardedSet};
use crate::inputs::Scalar;
use crate::jit::{Jit, JitTarget};
use crate::paint::{paint_allocas, PAINT_GLOBAL};
use crate::poison::{flag_poison, POISON_GLOBAL};
use crate::promises::promises_of;
use crate::recorder;
use crate::wrappers::{add_optimized_caller, add_scalar_wrapper, add_vector_wrapper, CallerKind, CallerRegion};
use batchify_core::llvm::Module;
use batchify_core::CloneSpec;
use run::check_target;
use signature::{
    calling_convention_defect, float_leaves, plan_pointer, scalar_of, store_size, CallerFn, Runnable, Target,
    WrapperFn, MAX_CALLER_BYTES,
};
use std::collections::HashSet;

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

/// A compiled module with calling wrappers for a set of clones.
pub struct Oracle {
    _jit: Option<Jit>,
    targets: Vec<Target>,
    opts: OracleOptions,
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
            let lowered = batchify_core::abi::CloneAbi::of(scalar, spec).is_ok_and(|a| a.lowering.is_some());
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
