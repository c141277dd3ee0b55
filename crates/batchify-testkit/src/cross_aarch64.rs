//! The AArch64 execution oracle: random programs from [`crate::gen`] (scalar
//! parameters and result only), batched as Advanced SIMD (`n`) variants in
//! AArch64 modules, cross-compiled with `clang-22 --target=aarch64-linux-gnu`
//! and run under `qemu-aarch64`, which compares them bit for bit with the
//! scalar function called once per lane.
//!
//! Programs are checked in batches of [`CrossOptions::batch`]: each program's
//! module is batched on its own (one LLVM context each), then all of them are
//! linked into one module with a generated driver (textual IR: input tables,
//! one `bx_run_<j>` function per program that calls the scalar function per
//! lane and the clone once per input set, with the `aarch64_vector_pcs`
//! convention, storing both results as bits) and a small C `main` that
//! compares the active lanes and prints one line per mismatch. A batch whose
//! binary crashes or hangs (killed after [`CrossOptions::timeout`]) names the
//! program it was running (the driver prints `start j` and `done j` lines);
//! the batch is then rerun from the next program. A batch that does not
//! compile is split into one binary per program, to name the culprit.
//!
//! Program `i` of a run with seed `S` has seed `S + i`; its width, whether it
//! is masked, whether it is optimised first and its inputs derive from that
//! seed only, so `batchify-fuzz --arch aarch64 --seed S+i --count 1` (with
//! the same `--width`/`--unmasked`/`--masked` flags) reproduces it.
//!
//! With [`CrossIsa::Sve`] (`batchify-fuzz --arch aarch64 --isa sve
//! --sve-vq 1,2,4,16`) each program is batched as an SVE variant of
//! scalable length instead ([`sve`]: `_ZGVsNx`/`_ZGVsMx`, the spec from
//! [`CloneSpec::for_function`]), the batch is compiled with
//! `-march=armv8-a+sve` and each binary runs once per vector length under
//! `qemu-aarch64 -cpu max,sve-max-vq=N,sve-default-vector-length=16N`; the
//! summary counts per vector length. A variant batchify refuses is counted
//! as skipped (`unsupported`).
//!
//! What it leaves out: buffer (pointer) parameters, buffer-reading helpers
//! and the side-effect recorder ([`gen_config`]); private arrays, pointer and
//! `sret` helpers stay (they are the program's own stack memory). Helpers
//! the generator gives `coldcc` get `fastcc` (LLVM 22's AArch64 backend
//! rejects `coldcc`).
//!
//! (About 1,600 lines for one job, the cross-compiled check: the driver's
//! IR and C text, the batch runner with its crash and hang recovery, and the
//! summary; splitting them would spread one protocol over three files. The
//! SVE driver and reference clone are in `cross_sve.rs`, module [`sve`],
//! declared here by path so that the crate root stays as it is.)

use crate::fuzz::{mix, optimize_o2, parse_ir, should_optimize, spec_for, FuzzOptions};
use crate::gen::{generate, GenConfig, Program, Ty};
use crate::inputs::{describe, mask_to, random_bits, Scalar};
use batchify_core::vfabi::{Isa, ParamKind};
use batchify_core::{CloneSpec, Error, Options};
use inkwell::context::Context;
use inkwell::module::Linkage;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use std::collections::BTreeMap;
use std::fmt::{self, Write as _};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

#[path = "cross_sve.rs"]
pub mod sve;

/// The target triple of the modules.
pub const TRIPLE: &str = "aarch64-unknown-linux-gnu";
/// The data layout of the modules.
pub const DATA_LAYOUT: &str = "e-m:e-i8:8:32-i16:16:32-i64:64-i128:128-n32:64-S128-Fn32";
/// The tools the harness runs.
pub const TOOLS: [&str; 3] = ["clang-22", "aarch64-linux-gnu-gcc", "qemu-aarch64"];
/// LLVM's number of the `aarch64_vector_pcs` calling convention.
pub const AARCH64_VECTOR_PCS: u32 = 97;

/// What builds the clones.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CrossEngine {
    /// batchify (the thing under test).
    Batchify,
    /// A hand-written reference clone in the same ABI that calls the scalar
    /// function once per active lane: the control run, which checks the
    /// generator, the driver and the toolchain, not batchify.
    ScalarLoop,
    /// [`CrossEngine::ScalarLoop`] with lane 0's result off by its lowest
    /// bit: the harness's self-check (every program should mismatch).
    Corrupted,
}

/// Which AArch64 variants the programs are batched as.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum CrossIsa {
    /// Advanced SIMD (`_ZGVn`): fixed `<N x T>` vectors.
    #[default]
    AdvSimd,
    /// SVE of scalable length (`_ZGVsNx`, `_ZGVsMx`): `<vscale x K x T>`,
    /// each binary run at these vector lengths (`vscale`, 128-bit
    /// granules, 1..=16).
    Sve {
        /// The vector lengths.
        vqs: Vec<u32>,
    },
}

impl CrossIsa {
    /// Whether the clones are SVE variants.
    pub fn is_sve(&self) -> bool {
        matches!(self, CrossIsa::Sve { .. })
    }
}

/// What to check.
#[derive(Debug, Clone)]
pub struct CrossOptions {
    /// Advanced SIMD or SVE variants (and SVE's vector lengths).
    pub isa: CrossIsa,
    /// Lanes of every clone; `None`: per program, 128 bits over the
    /// characteristic (return) type's bits (4 for 32-bit, 2 for 64-bit),
    /// and for a quarter of the 32-bit programs 2 (a 64-bit register).
    pub width: Option<u32>,
    /// Masked (`M`) clones for all programs (`Some(true)`), none
    /// (`Some(false)`), or half of them (`None`, chosen per seed).
    pub masked: Option<bool>,
    /// Input sets per program (each: one clone call, `width` scalar calls).
    pub trials: usize,
    /// Programs per cross-compiled binary.
    pub batch: usize,
    /// Fraction of programs run through `default<O2>` before batching.
    pub optimize_fraction: f64,
    /// Worker threads (each builds, compiles and runs whole batches).
    pub threads: usize,
    /// Time limit of one `qemu-aarch64` run.
    pub timeout: Duration,
    /// Generator bounds (see [`gen_config`] for what is switched off).
    pub gen: GenConfig,
    /// What builds the clones.
    pub engine: CrossEngine,
    /// clang's optimisation flag for the batch module (`-O2`).
    pub opt_level: String,
    /// Failures kept (with their IR) in the summary.
    pub keep_failures: usize,
    /// Keep every batch's files in this folder (else a temporary one).
    pub keep_dir: Option<std::path::PathBuf>,
}

impl Default for CrossOptions {
    fn default() -> Self {
        CrossOptions {
            isa: CrossIsa::AdvSimd,
            width: None,
            masked: None,
            trials: 16,
            batch: 40,
            optimize_fraction: 0.25,
            threads: 2,
            timeout: Duration::from_secs(30),
            gen: gen_config(),
            engine: CrossEngine::Batchify,
            opt_level: "-O2".into(),
            keep_failures: 5,
            keep_dir: None,
        }
    }
}

/// The generator configuration the harness takes: [`GenConfig::default`]
/// without buffer parameters, buffer-reading helpers and recorder calls
/// (the driver passes scalars only). Control flow, loops, helpers,
/// recursion, divisions, private arrays stay on.
pub fn gen_config() -> GenConfig {
    restrict(GenConfig::default())
}

/// `gen` with what the harness cannot set up switched off.
pub fn restrict(gen: GenConfig) -> GenConfig {
    GenConfig { p_buffers: 0.0, p_buf_helper: 0.0, p_record: 0.0, ..gen }
}

/// How one program's clone came out of batchify (before running it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Built {
    /// A vectorized clone.
    Vector,
    /// batchify's per-lane fallback, with its reason.
    Fallback(String),
    /// batchify declined the program.
    Unsupported(String),
    /// batchify reported an internal error.
    InvalidIr(String),
    /// batchify (or the harness) panicked.
    Panic(String),
    /// The harness could not build the driver for it (a signature it does
    /// not know).
    Setup(String),
}

/// One program, batched and ready to link.
#[derive(Debug, Clone)]
pub struct Prepared {
    /// The program's seed.
    pub seed: u64,
    /// The generated program.
    pub program: Program,
    /// The clone spec.
    pub spec: CloneSpec,
    /// Whether it went through `default<O2>` first.
    pub optimized: bool,
    /// How batchify built it.
    pub built: Built,
    /// Whether the clone has divergent control flow.
    pub divergent: bool,
    /// The batched module's IR (scalar function and clone made external),
    /// when there is a clone to run.
    pub ir: Option<String>,
    /// Calling convention numbers of the scalar function and of the clone.
    pub ccs: (u32, u32),
    /// The clone's parameter types and return type, as LLVM prints them.
    pub clone_sig: (Vec<String>, String),
}

/// What the run found wrong with one program.
#[derive(Debug, Clone)]
pub struct CrossFailure {
    /// The program's seed.
    pub seed: u64,
    /// The clone's name.
    pub variant: String,
    /// What happened, one or more lines (a mismatch names the input set,
    /// the lane, the inputs, the expected and the clone's bits).
    pub message: String,
    /// The generated program.
    pub ir: String,
    /// A command that reruns it.
    pub repro: String,
}

/// Counts of one SVE vector length.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct VqSummary {
    /// Programs whose binary ran at this length (compiled, set up).
    pub programs: usize,
    /// Of those, programs with at least one mismatching lane.
    pub mismatches: usize,
    /// Programs the binary crashed in.
    pub crashes: usize,
    /// Programs the binary hung in.
    pub hangs: usize,
    /// Lanes compared.
    pub lanes_compared: usize,
    /// qemu runs at this length.
    pub runs: usize,
}

/// Counts of a run.
#[derive(Debug, Clone, Default)]
pub struct CrossSummary {
    /// Whether the clones were SVE variants.
    pub sve: bool,
    /// Programs generated.
    pub programs: usize,
    /// Programs with a clone that ran (vectorized or fallback).
    pub clones_built: usize,
    /// Of those, batchify's per-lane fallbacks.
    pub fallbacks: usize,
    /// Vectorized clones with divergent control flow.
    pub divergent: usize,
    /// Masked clones that ran.
    pub masked: usize,
    /// Clones that ran, by `<width> x <type>` (`vscale x K x <type>`).
    pub widths: BTreeMap<String, usize>,
    /// Clones that ran whose type has scalable vectors (SVE).
    pub scalable: usize,
    /// SVE: per vector length (`vscale`).
    pub per_vq: BTreeMap<u32, VqSummary>,
    /// SVE: programs of binaries that qemu did not run at the `vscale`
    /// asked for (a harness failure).
    pub vscale_errors: usize,
    /// Programs batchify declined.
    pub unsupported: usize,
    /// batchify internal errors.
    pub invalid_ir: usize,
    /// Panics.
    pub panics: usize,
    /// Programs the harness could not set up.
    pub setup_errors: usize,
    /// Programs with at least one mismatching lane.
    pub mismatches: usize,
    /// Mismatching lanes over all programs.
    pub mismatched_lanes: usize,
    /// Programs whose binary crashed while running them.
    pub crashes: usize,
    /// Programs whose binary hung (killed at the timeout) while running them.
    pub hangs: usize,
    /// Programs whose module clang (or the linker) could not compile.
    pub compile_errors: usize,
    /// Lanes compared.
    pub lanes_compared: usize,
    /// Binaries built and run.
    pub binaries: usize,
    /// Why programs fell back or were unsupported: reason -> count.
    pub reasons: BTreeMap<String, usize>,
    /// The first failures.
    pub failures: Vec<CrossFailure>,
    /// Seeds of every failing program (the first 1000), ascending.
    pub failed_seeds: Vec<u64>,
    /// Wall time.
    pub elapsed: Duration,
}

impl CrossSummary {
    /// Whether the run found a bug.
    pub fn failed(&self) -> bool {
        self.mismatches
            + self.invalid_ir
            + self.panics
            + self.crashes
            + self.hangs
            + self.compile_errors
            + self.vscale_errors
            > 0
    }

    /// Clones that ran and are vectorized (not per-lane fallbacks).
    pub fn vectorized(&self) -> usize {
        self.clones_built - self.fallbacks
    }

    fn merge(&mut self, o: &CrossSummary, keep: usize) {
        self.sve |= o.sve;
        self.programs += o.programs;
        self.clones_built += o.clones_built;
        self.fallbacks += o.fallbacks;
        self.divergent += o.divergent;
        self.masked += o.masked;
        for (k, n) in &o.widths {
            *self.widths.entry(k.clone()).or_default() += n;
        }
        self.scalable += o.scalable;
        for (vq, v) in &o.per_vq {
            let t = self.per_vq.entry(*vq).or_default();
            t.programs += v.programs;
            t.mismatches += v.mismatches;
            t.crashes += v.crashes;
            t.hangs += v.hangs;
            t.lanes_compared += v.lanes_compared;
            t.runs += v.runs;
        }
        self.vscale_errors += o.vscale_errors;
        self.unsupported += o.unsupported;
        self.invalid_ir += o.invalid_ir;
        self.panics += o.panics;
        self.setup_errors += o.setup_errors;
        self.mismatches += o.mismatches;
        self.mismatched_lanes += o.mismatched_lanes;
        self.crashes += o.crashes;
        self.hangs += o.hangs;
        self.compile_errors += o.compile_errors;
        self.lanes_compared += o.lanes_compared;
        self.binaries += o.binaries;
        for (k, n) in &o.reasons {
            *self.reasons.entry(k.clone()).or_default() += n;
        }
        self.failures.extend(o.failures.iter().cloned());
        self.failures.sort_by_key(|f| f.seed);
        self.failures.truncate(keep);
        self.failed_seeds.extend(&o.failed_seeds);
        self.failed_seeds.sort_unstable();
        self.failed_seeds.truncate(1000);
    }

    /// The summary line, the kept failures with their IR, and the reasons
    /// for fallbacks.
    pub fn report(&self) -> String {
        let mut s = format!("{self}\n");
        if self.failed_seeds.len() > self.failures.len() {
            let seeds: Vec<String> = self.failed_seeds.iter().map(u64::to_string).collect();
            let _ = writeln!(s, "failing seeds: {}", seeds.join(" "));
        }
        for f in &self.failures {
            let _ = writeln!(
                s,
                "\nprogram seed {} ({}): {}\n  reproduce: {}\n{}",
                f.seed, f.variant, f.message, f.repro, f.ir
            );
        }
        if !self.reasons.is_empty() {
            let mut reasons: Vec<_> = self.reasons.iter().collect();
            reasons.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
            let _ = writeln!(s, "fallbacks and unsupported, by reason:");
            for (r, n) in reasons.into_iter().take(8) {
                let _ = writeln!(s, "  {n:6}  {r}");
            }
        }
        s
    }
}

impl fmt::Display for CrossSummary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let widths: Vec<String> = self.widths.iter().map(|(k, n)| format!("{k}: {n}")).collect();
        if self.sve {
            write!(
                f,
                "aarch64 sve: {} programs, {} clones run under qemu ({} scalable; {} vectorized, {} with divergent \
                 control flow, {} per-lane fallbacks; {} masked; {}), {} mismatches ({} lanes), {} crashes, {} hangs, \
                 {} compile errors, {} invalid IR, {} panics, {} skipped (SVE variant refused), {} setup errors, {} \
                 vscale errors, {} lanes compared, {} binaries, {:.1} s",
                self.programs,
                self.clones_built,
                self.scalable,
                self.vectorized(),
                self.divergent,
                self.fallbacks,
                self.masked,
                widths.join(", "),
                self.mismatches,
                self.mismatched_lanes,
                self.crashes,
                self.hangs,
                self.compile_errors,
                self.invalid_ir,
                self.panics,
                self.unsupported,
                self.setup_errors,
                self.vscale_errors,
                self.lanes_compared,
                self.binaries,
                self.elapsed.as_secs_f64()
            )?;
            for (vq, v) in &self.per_vq {
                write!(
                    f,
                    "\n  vscale {vq:2} ({:4}-bit vectors): {} programs, {} mismatches, {} crashes, {} hangs, {} lanes \
                     compared, {} qemu runs",
                    vq * 128,
                    v.programs,
                    v.mismatches,
                    v.crashes,
                    v.hangs,
                    v.lanes_compared,
                    v.runs
                )?;
            }
            return Ok(());
        }
        write!(
            f,
            "aarch64: {} programs, {} clones run under qemu ({} vectorized, {} with divergent control flow, {} per-lane \
             fallbacks; {} masked; {}), {} mismatches ({} lanes), {} crashes, {} hangs, {} compile errors, {} invalid \
             IR, {} panics, {} unsupported, {} setup errors, {} lanes compared, {} binaries, {:.1} s",
            self.programs,
            self.clones_built,
            self.vectorized(),
            self.divergent,
            self.fallbacks,
            self.masked,
            widths.join(", "),
            self.mismatches,
            self.mismatched_lanes,
            self.crashes,
            self.hangs,
            self.compile_errors,
            self.invalid_ir,
            self.panics,
            self.unsupported,
            self.setup_errors,
            self.lanes_compared,
            self.binaries,
            self.elapsed.as_secs_f64()
        )
    }
}

/// The first missing tool of [`TOOLS`], if any.
pub fn missing_tool() -> Option<&'static str> {
    TOOLS.into_iter().find(|t| !Command::new(t).arg("--version").output().is_ok_and(|o| o.status.success()))
}

/// Lanes and masking of program `seed`'s clone.
pub fn shape_of(seed: u64, ret: Ty, opts: &CrossOptions) -> (u32, bool) {
    let r = mix(seed ^ 0xa64_a64);
    let width = opts.width.unwrap_or(match ret {
        Ty::I32 | Ty::F32 if r.is_multiple_of(4) => 2,
        Ty::I32 | Ty::F32 => 4,
        Ty::I64 | Ty::F64 => 2,
    });
    let masked = opts.masked.unwrap_or((r >> 8) & 1 == 1);
    (width, masked)
}

/// The command that reruns program `seed` (SVE: at every vector length of
/// `opts`).
pub fn repro_command(seed: u64, opts: &CrossOptions) -> String {
    repro_command_at(seed, opts, sve::vqs_of(opts))
}

/// The command that reruns program `seed`, SVE clones at `vqs`.
pub fn repro_command_at(seed: u64, opts: &CrossOptions, vqs: &[u32]) -> String {
    let mut s = format!("batchify-fuzz --arch aarch64 --seed {seed} --count 1");
    if opts.isa.is_sve() {
        s.push_str(&sve::repro_flags(vqs));
    } else if let Some(w) = opts.width {
        let _ = write!(s, " --width {w}");
    }
    match opts.masked {
        Some(true) => s.push_str(" --masked"),
        Some(false) => s.push_str(" --unmasked"),
        None => {}
    }
    let _ = write!(s, " --opt-fraction {} --trials {}", opts.optimize_fraction, opts.trials);
    if opts.engine == CrossEngine::ScalarLoop {
        s.push_str(" --self-test");
    } else if opts.engine == CrossEngine::Corrupted {
        s.push_str(" --corrupt-lane0");
    }
    s
}

/// Generates and batches program `seed` (in its own LLVM context).
pub fn prepare(seed: u64, opts: &CrossOptions) -> Prepared {
    let mut program = generate(seed, &GenConfig { lanes: 4, ..opts.gen.clone() });
    // LLVM 22's AArch64 backend has no `coldcc` ("unsupported calling
    // convention"): helpers that draw it get `fastcc` instead.
    program.ir = program.ir.replace(" coldcc ", " fastcc ");
    let (width, masked) = shape_of(seed, program.ret, opts);
    let (spec, refused) = if opts.isa.is_sve() {
        match sve::spec_of(&program, masked) {
            Ok(spec) => (spec, None),
            Err(why) => (sve::refused_spec(&program, masked), Some(why)),
        }
    } else {
        (spec_for(&program, &FuzzOptions { isa: Isa::AdvSimd, masked, width, ..FuzzOptions::default() }), None)
    };
    let optimized = should_optimize(seed, opts.optimize_fraction);
    let mut p = Prepared {
        seed,
        program,
        spec,
        optimized,
        built: Built::Vector,
        divergent: false,
        ir: None,
        ccs: (0, 0),
        clone_sig: (Vec::new(), String::new()),
    };
    if let Some(why) = refused {
        p.built = Built::Unsupported(why);
        return p;
    }
    let result = catch_unwind(AssertUnwindSafe(|| build(&p, opts)));
    match result {
        Ok(Ok((built, divergent, ir, ccs, sig))) => {
            p.built = built;
            p.divergent = divergent;
            p.ir = Some(ir);
            p.ccs = ccs;
            p.clone_sig = sig;
        }
        Ok(Err(built)) => p.built = built,
        Err(payload) => {
            let msg = payload
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "non-string panic payload".into());
            p.built = Built::Panic(msg);
        }
    }
    p
}

type BuildOk = (Built, bool, String, (u32, u32), (Vec<String>, String));

fn build(p: &Prepared, opts: &CrossOptions) -> Result<BuildOk, Built> {
    let mut text = format!("target datalayout = \"{DATA_LAYOUT}\"\ntarget triple = \"{TRIPLE}\"\n{}", p.program.ir);
    if opts.engine != CrossEngine::Batchify {
        let corrupt = opts.engine == CrossEngine::Corrupted;
        text.push_str(&if opts.isa.is_sve() {
            sve::reference_clone_ir(&p.program, &p.spec, corrupt)
        } else {
            reference_clone_ir(&p.program, &p.spec, corrupt)
        });
    }
    let ctx = Context::create();
    let module = parse_ir(&ctx, &text, &p.program.name)
        .unwrap_or_else(|e| panic!("generated program (seed {}) does not parse: {e}", p.seed));
    module.verify().unwrap_or_else(|e| panic!("generated program (seed {}) does not verify: {e}", p.seed));
    if p.optimized {
        optimize_o2(&module).map_err(|e| Built::Setup(format!("default<O2> failed: {e}")))?;
    }
    let mut built = Built::Vector;
    let mut divergent = false;
    if opts.engine == CrossEngine::Batchify {
        let build = Options { cost_model: false, ..Options::default() };
        match batchify_core::batchify_inkwell(&module, std::slice::from_ref(&p.spec), &build) {
            Ok(mut reports) => {
                if let Some(r) = reports.pop() {
                    divergent = r.stats.divergent_loops + r.stats.linearized_levels > 0;
                    if let Some(why) = r.fallback {
                        built = Built::Fallback(why);
                    }
                }
            }
            Err(e @ Error::Internal { .. }) => {
                let full = match &e {
                    Error::Internal { message, .. } => format!("{e}: {message}"),
                    _ => e.to_string(),
                };
                return Err(Built::InvalidIr(full));
            }
            Err(e) => return Err(Built::Unsupported(e.to_string())),
        }
        if let Err(e) = module.verify() {
            return Err(Built::InvalidIr(format!("the batched module does not verify: {e}")));
        }
        if let Some(d) =
            batchify_core::vector_widths::check_module(batchify_core::llvm::Module::from_inkwell(&module)).first()
        {
            return Err(Built::InvalidIr(format!("calls disagree on vector registers: {d}")));
        }
    }
    let scalar = module.get_function(&p.program.name).ok_or(Built::Setup("the scalar function is gone".into()))?;
    let clone = module.get_function(&p.spec.vector_name).ok_or(Built::Setup("the clone is missing".into()))?;
    // SVE clones are called with whatever convention batchify gave them.
    if !opts.isa.is_sve() && clone.get_call_conventions() != AARCH64_VECTOR_PCS {
        return Err(Built::InvalidIr(format!(
            "the clone's calling convention is {}, not aarch64_vector_pcs",
            clone.get_call_conventions()
        )));
    }
    let sig = |f: inkwell::values::FunctionValue<'_>| {
        let ty = f.get_type();
        let params: Vec<String> = ty.get_param_types().iter().map(|t| t.print_to_string().to_string()).collect();
        let ret = ty.get_return_type().map_or("void".to_string(), |t| t.print_to_string().to_string());
        (params, ret)
    };
    let (sparams, sret) = sig(scalar);
    let want: Vec<&str> = p.program.params.iter().map(|t| t.ir()).collect();
    if sparams != want || sret != p.program.ret.ir() {
        return Err(Built::Setup(format!("the scalar function's type changed: ({}) -> {sret}", sparams.join(", "))));
    }
    let clone_sig = sig(clone);
    if opts.isa.is_sve() {
        sve::check_sig(&p.program, &p.spec, &clone_sig).map_err(Built::Setup)?;
        let ccs = (scalar.get_call_conventions(), clone.get_call_conventions());
        scalar.set_linkage(Linkage::External);
        clone.set_linkage(Linkage::External);
        return Ok((built, divergent, module.print_to_string().to_string(), ccs, clone_sig));
    }
    let expect = clone_params(&p.program, &p.spec, None);
    let n = clone_sig.0.len();
    let fixed = if p.spec.mask.is_some() { n.saturating_sub(1) } else { n };
    let rt = format!("<{} x {}>", p.spec.width, p.program.ret.ir());
    if clone_sig.0[..fixed] != expect[..] || clone_sig.1 != rt || (p.spec.mask.is_some() && n != expect.len() + 1) {
        return Err(Built::Setup(format!(
            "the clone's type is ({}) -> {}, the driver expected ({}) -> {rt}",
            clone_sig.0.join(", "),
            clone_sig.1,
            expect.join(", ")
        )));
    }
    if let Some(m) = clone_sig.0.get(expect.len()).filter(|_| p.spec.mask.is_some()) {
        if mask_elem(m, p.spec.width).is_none() {
            return Err(Built::Setup(format!("unknown mask type {m}")));
        }
    }
    let ccs = (scalar.get_call_conventions(), clone.get_call_conventions());
    scalar.set_linkage(Linkage::External);
    clone.set_linkage(Linkage::External);
    Ok((built, divergent, module.print_to_string().to_string(), ccs, clone_sig))
}

/// The clone's parameter types as the driver passes them (without the mask).
fn clone_params(program: &Program, spec: &CloneSpec, _: Option<()>) -> Vec<String> {
    program
        .params
        .iter()
        .zip(&spec.params)
        .map(|(t, k)| match k {
            ParamKind::Vector => format!("<{} x {}>", spec.width, t.ir()),
            _ => t.ir().to_string(),
        })
        .collect()
}

/// The element type and bits of a mask type `<width x T>`.
fn mask_elem(ty: &str, width: u32) -> Option<(String, u32)> {
    let elem = ty.strip_prefix(&format!("<{width} x "))?.strip_suffix('>')?;
    let bits = match elem {
        "i8" => 8,
        "i16" => 16,
        "i32" | "float" => 32,
        "i64" | "double" => 64,
        _ => return None,
    };
    Some((elem.to_string(), bits))
}

/// A reference clone in the AArch64 ABI named as `spec` asks: it calls
/// the scalar function once per active lane (the mask, a vector of the
/// return type, is active where any bit of the element is set). With
/// `corrupt`, lane 0's result has its lowest bit flipped.
pub fn reference_clone_ir(program: &Program, spec: &CloneSpec, corrupt: bool) -> String {
    let n = spec.width;
    let rt = program.ret.ir();
    let bits = if matches!(program.ret, Ty::I32 | Ty::F32) { 32 } else { 64 };
    let mut params: Vec<String> =
        clone_params(program, spec, None).iter().enumerate().map(|(i, t)| format!("{t} %a{i}")).collect();
    if spec.mask.is_some() {
        params.push(format!("<{n} x {rt}> %mask"));
    }
    let mut s = format!(
        "\ndefine aarch64_vector_pcs <{n} x {rt}> @\"{}\"({}) {{\nentry:\n  br label %lane0\n",
        spec.vector_name,
        params.join(", ")
    );
    let mut acc = "poison".to_string();
    for k in 0..n {
        let _ = writeln!(s, "lane{k}:");
        if spec.mask.is_some() {
            let _ = writeln!(s, "  %m.{k} = extractelement <{n} x {rt}> %mask, i32 {k}");
            let _ = writeln!(s, "  %mb.{k} = bitcast {rt} %m.{k} to i{bits}");
            let _ = writeln!(s, "  %on.{k} = icmp ne i{bits} %mb.{k}, 0");
            let _ = writeln!(s, "  br i1 %on.{k}, label %call{k}, label %skip{k}");
        } else {
            let _ = writeln!(s, "  br label %call{k}");
        }
        let _ = writeln!(s, "call{k}:");
        let mut args = Vec::new();
        for (i, (t, kind)) in program.params.iter().zip(&spec.params).enumerate() {
            let t = t.ir();
            match kind {
                ParamKind::Vector => {
                    let _ = writeln!(s, "  %a{i}.{k} = extractelement <{n} x {t}> %a{i}, i32 {k}");
                    args.push(format!("{t} %a{i}.{k}"));
                }
                ParamKind::Linear { step } => {
                    let _ = writeln!(s, "  %a{i}.{k} = add {t} %a{i}, {}", step * k as i64);
                    args.push(format!("{t} %a{i}.{k}"));
                }
                _ => args.push(format!("{t} %a{i}")),
            }
        }
        let cc = if program.cc.is_empty() { String::new() } else { format!("{} ", program.cc) };
        let _ = writeln!(s, "  %r.{k} = call {cc}{rt} @\"{}\"({}) noinline", program.name, args.join(", "));
        let mut r = format!("%r.{k}");
        if corrupt && k == 0 {
            let _ = writeln!(s, "  %rb.{k} = bitcast {rt} %r.{k} to i{bits}\n  %rx.{k} = xor i{bits} %rb.{k}, 1");
            let _ = writeln!(s, "  %rc.{k} = bitcast i{bits} %rx.{k} to {rt}");
            r = format!("%rc.{k}");
        }
        let _ = writeln!(s, "  %w.{k} = insertelement <{n} x {rt}> {acc}, {rt} {r}, i32 {k}");
        let _ = writeln!(s, "  br label %skip{k}");
        let _ = writeln!(s, "skip{k}:");
        if spec.mask.is_some() {
            let _ = writeln!(s, "  %v.{k} = phi <{n} x {rt}> [ %w.{k}, %call{k} ], [ {acc}, %lane{k} ]");
        } else {
            let _ = writeln!(s, "  %v.{k} = phi <{n} x {rt}> [ %w.{k}, %call{k} ]");
        }
        let next = if k + 1 < n { format!("lane{}", k + 1) } else { "done".to_string() };
        let _ = writeln!(s, "  br label %{next}");
        acc = format!("%v.{k}");
    }
    let _ = writeln!(s, "done:\n  ret <{n} x {rt}> {acc}\n}}");
    s
}

fn scalar_of(t: Ty) -> Scalar {
    match t {
        Ty::I32 => Scalar::Int(32),
        Ty::I64 => Scalar::Int(64),
        Ty::F32 => Scalar::Float,
        Ty::F64 => Scalar::Double,
    }
}

fn int_of(bits: u32) -> &'static str {
    match bits {
        8 => "i8",
        16 => "i16",
        32 => "i32",
        _ => "i64",
    }
}

/// The input sets of one program: per trial, per parameter, per lane the
/// bits (zero-extended); per trial, per lane the mask element's bits (0:
/// inactive).
#[derive(Debug, Clone)]
pub struct Inputs {
    /// `vals[t][i][k]`.
    pub vals: Vec<Vec<Vec<u64>>>,
    /// `mask[t][k]` (all ones for unmasked clones).
    pub mask: Vec<Vec<u64>>,
}

/// The inputs of program `p` ([`crate::inputs::random_bits`]: random and
/// special values). Uniform parameters have one value for all lanes, linear
/// ones `base + k*step`. Masks are random (trial 0 all active), active lanes
/// get a random nonzero pattern (all ones, 1, the sign bit, random bits).
pub fn inputs_of(p: &Prepared, trials: usize, mask_bits: u32) -> Inputs {
    let n = p.spec.width as usize;
    let mut rng = SmallRng::seed_from_u64(mix(p.seed ^ 0x1_4e75));
    let full = if mask_bits >= 64 { u64::MAX } else { (1u64 << mask_bits) - 1 };
    let mut vals = Vec::new();
    let mut mask = Vec::new();
    for t in 0..trials {
        let mut per = Vec::new();
        for (ty, kind) in p.program.params.iter().zip(&p.spec.params) {
            let s = scalar_of(*ty);
            let w = if ty.is_int() {
                if *ty == Ty::I32 {
                    32
                } else {
                    64
                }
            } else {
                64
            };
            per.push(match kind {
                ParamKind::Linear { step } => {
                    let base = random_bits(&mut rng, s);
                    (0..n).map(|k| mask_to(base.wrapping_add((k as u64).wrapping_mul(*step as u64)), w)).collect()
                }
                ParamKind::Vector => (0..n).map(|_| random_bits(&mut rng, s)).collect(),
                _ => vec![random_bits(&mut rng, s); n],
            });
        }
        vals.push(per);
        mask.push(
            (0..n)
                .map(|_| {
                    if p.spec.mask.is_none() {
                        return full;
                    }
                    if t > 0 && !rng.gen_bool(0.6) {
                        return 0;
                    }
                    match rng.gen_range(0..4) {
                        0 => full,
                        1 => 1,
                        2 => 1u64 << (mask_bits - 1),
                        _ => (rng.gen::<u64>() & full).max(1),
                    }
                })
                .collect(),
        );
    }
    Inputs { vals, mask }
}

/// The driver IR of program `p` as the batch's `j`th: its input tables, its
/// result arrays and `i64 @bx_run_<j>()`, which returns the lane count.
fn driver_ir(j: usize, p: &Prepared, inp: &Inputs) -> String {
    let n = p.spec.width as usize;
    let trials = inp.vals.len();
    let len = n * trials;
    let mut s = String::new();
    let table = |name: &str, ity: &str, vals: &mut dyn Iterator<Item = u64>| -> String {
        let items: Vec<String> = vals.map(|v| format!("{ity} {v}")).collect();
        format!("@{name} = global [{len} x {ity}] [{}], align 16\n", items.join(", "))
    };
    for (i, ty) in p.program.params.iter().enumerate() {
        let ity = if matches!(ty, Ty::I32 | Ty::F32) { "i32" } else { "i64" };
        s.push_str(&table(&format!("bx_in_{j}_{i}"), ity, &mut inp.vals.iter().flat_map(|per| per[i].iter().copied())));
    }
    let mask_ty = p.spec.mask.and(p.clone_sig.0.last().cloned());
    let mask = mask_ty.as_ref().and_then(|m| mask_elem(m, p.spec.width));
    if let Some((_, bits)) = &mask {
        s.push_str(&table(&format!("bx_mask_{j}"), int_of(*bits), &mut inp.mask.iter().flatten().copied()));
    }
    let act: Vec<String> = inp.mask.iter().flatten().map(|&m| format!("i8 {}", (m != 0) as u8)).collect();
    let _ = writeln!(s, "@bx_act_{j} = global [{len} x i8] [{}]", act.join(", "));
    let _ = writeln!(s, "@bx_exp_{j} = global [{len} x i64] zeroinitializer, align 16");
    let _ = writeln!(s, "@bx_got_{j} = global [{len} x i64] zeroinitializer, align 16");
    let cc = |c: u32| if c == 0 { String::new() } else { format!("cc{c} ") };
    let rt = p.program.ret.ir();
    let params: Vec<&str> = p.program.params.iter().map(|t| t.ir()).collect();
    let _ = writeln!(s, "declare {}{rt} @\"{}\"({})", cc(p.ccs.0), p.program.name, params.join(", "));
    let _ = writeln!(
        s,
        "declare {}{} @\"{}\"({})",
        cc(p.ccs.1),
        p.clone_sig.1,
        p.spec.vector_name,
        p.clone_sig.0.join(", ")
    );
    let bits_of = |s: &mut String, v: &str, out: &str| match p.program.ret {
        Ty::I32 => {
            let _ = writeln!(s, "  {out} = zext i32 {v} to i64");
        }
        Ty::I64 => {
            let _ = writeln!(s, "  {out} = add i64 {v}, 0");
        }
        Ty::F32 => {
            let _ = writeln!(s, "  {out}.b = bitcast float {v} to i32\n  {out} = zext i32 {out}.b to i64");
        }
        Ty::F64 => {
            let _ = writeln!(s, "  {out} = bitcast double {v} to i64");
        }
    };
    let _ = writeln!(s, "define i64 @bx_run_{j}() {{\nentry:\n  br label %loop\nloop:");
    let _ = writeln!(s, "  %t = phi i64 [ 0, %entry ], [ %t.next, %loop ]\n  %base = mul i64 %t, {n}");
    for k in 0..n {
        let _ = writeln!(s, "  %idx{k} = add i64 %base, {k}");
        let mut args = Vec::new();
        for (i, ty) in p.program.params.iter().enumerate() {
            let ity = if matches!(ty, Ty::I32 | Ty::F32) { "i32" } else { "i64" };
            let _ = writeln!(s, "  %p{i}.{k} = getelementptr {ity}, ptr @bx_in_{j}_{i}, i64 %idx{k}");
            let _ = writeln!(s, "  %x{i}.{k} = load {}, ptr %p{i}.{k}", ty.ir());
            args.push(format!("{} %x{i}.{k}", ty.ir()));
        }
        let _ = writeln!(s, "  %r{k} = call {}{rt} @\"{}\"({}) noinline", cc(p.ccs.0), p.program.name, args.join(", "));
        bits_of(&mut s, &format!("%r{k}"), &format!("%rb{k}"));
        let _ = writeln!(s, "  %e{k} = getelementptr i64, ptr @bx_exp_{j}, i64 %idx{k}\n  store i64 %rb{k}, ptr %e{k}");
    }
    let mut args = Vec::new();
    for (i, (ty, kind)) in p.program.params.iter().zip(&p.spec.params).enumerate() {
        match kind {
            ParamKind::Vector => {
                let vt = format!("<{n} x {}>", ty.ir());
                let _ = writeln!(s, "  %vx{i} = load {vt}, ptr %p{i}.0, align 4");
                args.push(format!("{vt} %vx{i}"));
            }
            _ => args.push(format!("{} %x{i}.0", ty.ir())),
        }
    }
    if let (Some(m), Some((_, bits))) = (&mask_ty, &mask) {
        let _ = writeln!(s, "  %mp = getelementptr {}, ptr @bx_mask_{j}, i64 %base", int_of(*bits));
        let _ = writeln!(s, "  %mv = load {m}, ptr %mp, align 1");
        args.push(format!("{m} %mv"));
    }
    let _ = writeln!(
        s,
        "  %v = call {}{} @\"{}\"({}) noinline",
        cc(p.ccs.1),
        p.clone_sig.1,
        p.spec.vector_name,
        args.join(", ")
    );
    for k in 0..n {
        let _ = writeln!(s, "  %g{k} = extractelement {} %v, i64 {k}", p.clone_sig.1);
        bits_of(&mut s, &format!("%g{k}"), &format!("%gb{k}"));
        let _ = writeln!(s, "  %o{k} = getelementptr i64, ptr @bx_got_{j}, i64 %idx{k}\n  store i64 %gb{k}, ptr %o{k}");
    }
    let _ = writeln!(s, "  %t.next = add i64 %t, 1\n  %more = icmp ult i64 %t.next, {trials}");
    let _ = writeln!(s, "  br i1 %more, label %loop, label %exit\nexit:\n  ret i64 {n}\n}}\n");
    s
}

/// The NaN class of a result type for the C comparison: 0 integer, 1
/// float, 2 double.
fn nan_kind(t: Ty) -> u32 {
    match t {
        Ty::I32 | Ty::I64 => 0,
        Ty::F32 => 1,
        Ty::F64 => 2,
    }
}

/// The C `main` of a batch of programs (`(trials, stride, nan kind)` each:
/// a trial's results take `stride` slots, of which the lane count that
/// `bx_run_<j>` returns are filled): runs programs from `argv[1]` on,
/// compares active lanes bit for bit (two NaNs of any payload agree, as in
/// the in-process oracle), prints `start j`/`done j` around each,
/// `mismatch j trial lane expected got` per bad lane and `summary programs
/// lanes mismatches` at the end. For SVE (`scalable`) it first prints
/// `vscale V`; a program that ran more lanes than its stride (or none)
/// prints `overflow` and exits 3.
pub fn driver_c(progs: &[(usize, usize, u32)], scalable: bool) -> String {
    let mut s = String::from(
        "#include <stdio.h>\n#include <stdint.h>\n#include <stdlib.h>\n\
         struct prog { int64_t (*run)(void); const uint64_t *exp, *got; const unsigned char *act; int trials, stride, kind; };\n",
    );
    if scalable {
        s.push_str("extern int64_t bx_vscale(void);\n");
    }
    for j in 0..progs.len() {
        let _ = writeln!(
            s,
            "extern int64_t bx_run_{j}(void); extern uint64_t bx_exp_{j}[], bx_got_{j}[]; extern unsigned char bx_act_{j}[];"
        );
    }
    s.push_str("static const struct prog progs[] = {\n");
    for (j, (trials, stride, kind)) in progs.iter().enumerate() {
        let _ = writeln!(s, "  {{ bx_run_{j}, bx_exp_{j}, bx_got_{j}, bx_act_{j}, {trials}, {stride}, {kind} }},");
    }
    if progs.is_empty() {
        s.push_str("  { 0, 0, 0, 0, 0, 0, 0 },\n");
    }
    let _ = write!(s, "}};\nstatic const int nprogs = {};\n", progs.len());
    let vscale =
        if scalable { "  printf(\"vscale %lld\\n\", (long long)bx_vscale());\n  fflush(stdout);\n" } else { "" };
    s.push_str(
        r#"
static int is_nan(uint64_t b, int kind) {
  if (kind == 1) return (b & 0x7f800000u) == 0x7f800000u && (b & 0x7fffffu) != 0;
  if (kind == 2) return (b & 0x7ff0000000000000ull) == 0x7ff0000000000000ull && (b & 0xfffffffffffffull) != 0;
  return 0;
}
static int agree(uint64_t e, uint64_t g, int kind) { return e == g || (is_nan(e, kind) && is_nan(g, kind)); }
int main(int argc, char **argv) {
  int from = argc > 1 ? atoi(argv[1]) : 0;
  long lanes = 0, bad = 0;
"#,
    );
    s.push_str(vscale);
    s.push_str(
        r#"  for (int p = from; p < nprogs; p++) {
    const struct prog *q = &progs[p];
    printf("start %d\n", p);
    fflush(stdout);
    int64_t n = q->run();
    if (n < 1 || n > q->stride) {
      printf("overflow %d %lld\n", p, (long long)n);
      return 3;
    }
    int shown = 0;
    for (int t = 0; t < q->trials; t++)
      for (int k = 0; k < n; k++) {
        long i = (long)t * q->stride + k;
        if (!q->act[i]) continue;
        lanes++;
        if (agree(q->exp[i], q->got[i], q->kind)) continue;
        bad++;
        if (shown++ < 4)
          printf("mismatch %d %d %d %016llx %016llx\n", p, t, k, (unsigned long long)q->exp[i], (unsigned long long)q->got[i]);
      }
    printf("done %d\n", p);
    fflush(stdout);
  }
  printf("summary %d %ld %ld\n", nprogs - from, lanes, bad);
  return 0;
}
"#,
    );
    s
}

/// A mismatching lane the binary reported.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LaneMismatch {
    /// The program's index in the batch.
    pub program: usize,
    /// The input set.
    pub trial: usize,
    /// The lane.
    pub lane: usize,
    /// The scalar function's result bits.
    pub expected: u64,
    /// The clone's result bits.
    pub got: u64,
}

/// What one run of a batch binary printed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RunOutput {
    /// Programs that finished.
    pub done: Vec<usize>,
    /// The program started and not finished (a crash or hang in it).
    pub running: Option<usize>,
    /// Mismatching lanes.
    pub mismatches: Vec<LaneMismatch>,
    /// `(lanes compared, mismatching lanes)` of the summary line, if reached.
    pub summary: Option<(usize, usize)>,
    /// SVE: the `vscale` the binary reported (`vscale V`, its first line).
    pub vscale: Option<usize>,
    /// SVE: a program ran more lanes than its tables hold (`overflow`).
    pub overflow: bool,
}

/// Parses a batch binary's output.
pub fn parse_output(out: &str) -> RunOutput {
    let mut r = RunOutput::default();
    for line in out.lines() {
        let w: Vec<&str> = line.split_whitespace().collect();
        let num = |i: usize| w.get(i).and_then(|x| x.parse::<usize>().ok());
        let hex = |i: usize| w.get(i).and_then(|x| u64::from_str_radix(x, 16).ok());
        match w.first().copied() {
            Some("start") => r.running = num(1),
            Some("vscale") => r.vscale = num(1),
            Some("overflow") => r.overflow = true,
            Some("done") => {
                if let Some(j) = num(1) {
                    r.done.push(j);
                }
                r.running = None;
            }
            Some("mismatch") => {
                if let (Some(program), Some(trial), Some(lane), Some(expected), Some(got)) =
                    (num(1), num(2), num(3), hex(4), hex(5))
                {
                    r.mismatches.push(LaneMismatch { program, trial, lane, expected, got });
                }
            }
            Some("summary") => {
                if let (Some(l), Some(b)) = (num(2), num(3)) {
                    r.summary = Some((l, b));
                }
            }
            _ => {}
        }
    }
    r
}

/// How a binary run ended.
enum Exit {
    Ok,
    Crashed(String),
    TimedOut,
}

/// Runs `cmd` with a time limit, returning its stdout and how it ended.
fn run_limited(cmd: &mut Command, limit: Duration) -> Result<(String, Exit), String> {
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let out_path = dir.path().join("out");
    let out = std::fs::File::create(&out_path).map_err(|e| e.to_string())?;
    let mut child = cmd.stdout(out).stderr(Stdio::piped()).spawn().map_err(|e| format!("cannot run {cmd:?}: {e}"))?;
    let start = Instant::now();
    let exit = loop {
        match child.try_wait().map_err(|e| e.to_string())? {
            Some(status) if status.success() => break Exit::Ok,
            Some(status) => {
                let mut err = String::new();
                if let Some(mut e) = child.stderr.take() {
                    let _ = std::io::Read::read_to_string(&mut e, &mut err);
                }
                break Exit::Crashed(format!("{status}: {}", err.trim()));
            }
            None if start.elapsed() > limit => {
                let _ = child.kill();
                let _ = child.wait();
                break Exit::TimedOut;
            }
            None => std::thread::sleep(Duration::from_millis(5)),
        }
    };
    Ok((std::fs::read_to_string(&out_path).unwrap_or_default(), exit))
}

fn tool(cmd: &mut Command) -> Result<(), String> {
    let out = cmd.output().map_err(|e| format!("cannot run {cmd:?}: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        let err = String::from_utf8_lossy(&out.stderr);
        let mut lines: Vec<&str> = err.lines().take(20).collect();
        // A backend failure names the function after its long DAG dump.
        if let Some(f) = err.lines().skip(20).find(|l| l.starts_with("In function:")) {
            lines.push(f);
        }
        Err(format!("{cmd:?} failed: {}", lines.join("\n")))
    }
}

/// Links the programs' modules and their driver into one module and builds
/// the binary `dir/prog`.
fn compile(progs: &[(&Prepared, Inputs)], dir: &Path, opts: &CrossOptions) -> Result<(), String> {
    let ctx = Context::create();
    let sve = opts.isa.is_sve();
    let mut text = format!("target datalayout = \"{DATA_LAYOUT}\"\ntarget triple = \"{TRIPLE}\"\n");
    if sve {
        text.push_str(&sve::driver_prelude());
    }
    for (j, (p, inp)) in progs.iter().enumerate() {
        text.push_str(&if sve { sve::driver_ir(j, p, inp) } else { driver_ir(j, p, inp) });
    }
    let module = parse_ir(&ctx, &text, "driver").map_err(|e| format!("the driver IR does not parse: {e}"))?;
    for (p, _) in progs {
        let m = parse_ir(&ctx, p.ir.as_deref().unwrap_or_default(), &p.program.name)
            .map_err(|e| format!("seed {}: the batched module does not parse: {e}", p.seed))?;
        module.link_in_module(m).map_err(|e| format!("seed {}: linking failed: {e}", p.seed))?;
    }
    module.verify().map_err(|e| format!("the linked module does not verify: {e}"))?;
    let bc = dir.join("batch.bc");
    if !module.write_bitcode_to_path(&bc) {
        return Err("cannot write the bitcode".into());
    }
    if opts.keep_dir.is_some() {
        let _ = module.print_to_file(dir.join("batch.ll"));
    }
    let stride = |p: &Prepared| if sve { sve::stride(&p.spec) } else { p.spec.width as usize };
    let shapes: Vec<(usize, usize, u32)> =
        progs.iter().map(|(p, i)| (i.vals.len(), stride(p), nan_kind(p.program.ret))).collect();
    let main_c = driver_c(&shapes, sve);
    std::fs::write(dir.join("main.c"), main_c).map_err(|e| e.to_string())?;
    let clang = || {
        let mut c = Command::new("clang-22");
        c.arg("--target=aarch64-linux-gnu").arg(if sve { "-march=armv8-a+sve" } else { "-march=armv8-a" });
        c
    };
    tool(clang().arg(&opts.opt_level).arg("-c").arg(&bc).arg("-o").arg(dir.join("batch.o")))?;
    tool(clang().arg("-O1").arg("-c").arg(dir.join("main.c")).arg("-o").arg(dir.join("main.o")))?;
    tool(
        Command::new("aarch64-linux-gnu-gcc")
            .arg(dir.join("batch.o"))
            .arg(dir.join("main.o"))
            .arg("-o")
            .arg(dir.join("prog"))
            .arg("-lm"),
    )
}

/// What happened to one program of a batch at run time.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Ran {
    Ok,
    Mismatch(Vec<LaneMismatch>),
    Crash(String),
    Hang,
    Compile(String),
    Setup(String),
    /// qemu did not run the binary at the vector length asked for.
    Vscale(String),
}

/// One program's runs of a batch's binary: its fates (SVE: at vector
/// length `vq`), the lanes compared and the qemu runs it took.
struct Pass {
    vq: Option<u32>,
    fates: Vec<Ran>,
    lanes: usize,
    runs: usize,
}

/// Compiles and runs a batch (SVE: once per vector length); a batch that
/// does not compile is split into one binary per program. Returns one pass
/// per vector length (one for Advanced SIMD) and the binaries built.
fn run_batch(progs: &[(&Prepared, Inputs)], opts: &CrossOptions) -> (Vec<Pass>, usize) {
    let vqs: Vec<Option<u32>> =
        if opts.isa.is_sve() { sve::vqs_of(opts).iter().map(|&v| Some(v)).collect() } else { vec![None] };
    let tmp;
    let dir = match &opts.keep_dir {
        Some(d) => {
            let d = d.join(format!("batch-{}", progs[0].0.seed));
            let _ = std::fs::create_dir_all(&d);
            d
        }
        None => {
            tmp = tempfile::tempdir().expect("a scratch folder");
            tmp.path().to_path_buf()
        }
    };
    if let Err(e) = compile(progs, &dir, opts) {
        let mut passes: Vec<Pass> = vqs.iter().map(|&vq| Pass { vq, fates: Vec::new(), lanes: 0, runs: 0 }).collect();
        if progs.len() == 1 {
            for p in &mut passes {
                p.fates.push(Ran::Compile(e.clone()));
            }
            return (passes, 0);
        }
        let mut bins = 0;
        for p in progs {
            let (ps, b) = run_batch(std::slice::from_ref(p), opts);
            for (acc, q) in passes.iter_mut().zip(ps) {
                acc.fates.extend(q.fates);
                acc.lanes += q.lanes;
                acc.runs += q.runs;
            }
            bins += b;
        }
        return (passes, bins);
    }
    let passes = vqs.into_iter().map(|vq| run_pass(&dir.join("prog"), progs.len(), vq, opts)).collect();
    (passes, 1)
}

/// Runs the binary `bin` of `n` programs under qemu (at SVE vector length
/// `vq`), from program 0 on and again after each crash or hang from the
/// program after the culprit.
fn run_pass(bin: &Path, n: usize, vq: Option<u32>, opts: &CrossOptions) -> Pass {
    let mut pass = Pass { vq, fates: vec![Ran::Ok; n], lanes: 0, runs: 0 };
    let fates = &mut pass.fates;
    let mut from = 0;
    while from < n {
        let mut cmd = Command::new("qemu-aarch64");
        if let Some(vq) = vq {
            cmd.args(["-cpu", &sve::qemu_cpu(vq)]);
        }
        cmd.args(["-L", "/usr/aarch64-linux-gnu"]).arg(bin).arg(from.to_string());
        pass.runs += 1;
        let (out, exit) = match run_limited(&mut cmd, opts.timeout) {
            Ok(r) => r,
            Err(e) => {
                for f in &mut fates[from..] {
                    *f = Ran::Setup(e.clone());
                }
                break;
            }
        };
        let r = parse_output(&out);
        if let Some(vq) = vq {
            if r.vscale != Some(vq as usize) {
                let why = match (r.vscale, &exit) {
                    (Some(v), _) => format!("qemu ran the binary at vscale {v}, not {vq} (-cpu {})", sve::qemu_cpu(vq)),
                    (None, Exit::Crashed(why)) => format!("the binary died before reporting its vscale: {why}"),
                    (None, _) => "the binary did not report its vscale".to_string(),
                };
                for f in &mut fates[from..] {
                    *f = Ran::Vscale(why.clone());
                }
                break;
            }
        }
        for m in r.mismatches {
            if let Some(Ran::Ok) = fates.get(m.program) {
                fates[m.program] = Ran::Mismatch(Vec::new());
            }
            if let Some(Ran::Mismatch(v)) = fates.get_mut(m.program) {
                v.push(m);
            }
        }
        match (exit, r.summary) {
            (Exit::Ok, Some((l, _))) => {
                pass.lanes += l;
                break;
            }
            (exit, _) => {
                // The program it was running, or the one after the last done.
                let culprit = r.running.or_else(|| r.done.last().map(|d| d + 1)).unwrap_or(from);
                if culprit >= n {
                    break;
                }
                fates[culprit] = match exit {
                    Exit::TimedOut => Ran::Hang,
                    Exit::Crashed(why) if r.overflow => {
                        Ran::Crash(format!("the driver ran more lanes than its tables hold ({why})"))
                    }
                    Exit::Crashed(why) => Ran::Crash(why),
                    Exit::Ok => Ran::Crash("exited without its summary line".into()),
                };
                // Lanes of the programs that finished are not counted again.
                from = culprit + 1;
            }
        }
    }
    pass
}

/// What went wrong with one program in one run; `lanes`: the lanes of an
/// input set the run used (SVE: `vscale x K`).
fn describe_failure(p: &Prepared, inp: &Inputs, ran: &Ran, lanes: usize) -> String {
    match ran {
        Ran::Mismatch(ms) => {
            let ret = scalar_of(p.program.ret);
            let mut s = format!("{} mismatching lane(s) shown;", ms.len());
            for m in ms {
                let args: Vec<String> = p
                    .program
                    .params
                    .iter()
                    .enumerate()
                    .map(|(i, t)| describe(scalar_of(*t), inp.vals[m.trial][i][m.lane]))
                    .collect();
                let row = &inp.mask[m.trial][..lanes.min(inp.mask[m.trial].len())];
                let mask = if p.spec.mask.is_none() {
                    "unmasked".to_string()
                } else if p.spec.isa == Isa::Sve {
                    // The predicate, lane 0 first.
                    row.iter().map(|&b| if b != 0 { '1' } else { '0' }).collect()
                } else {
                    row.iter().map(|b| format!("{b:#x}")).collect::<Vec<_>>().join(", ")
                };
                let _ = write!(
                    s,
                    "\n  input set {}, lane {}: args ({}), mask [{}]: expected {}, got {}",
                    m.trial,
                    m.lane,
                    args.join(", "),
                    mask,
                    describe(ret, m.expected),
                    describe(ret, m.got)
                );
            }
            s
        }
        Ran::Crash(why) => format!("the binary crashed in this program: {why}"),
        Ran::Hang => "the binary hung in this program (killed at the timeout)".into(),
        Ran::Compile(e) => format!("the program's module does not compile: {e}"),
        Ran::Setup(e) => format!("harness setup error: {e}"),
        Ran::Vscale(e) => format!("wrong vector length: {e}"),
        Ran::Ok => String::new(),
    }
}

fn reason_key(s: &str) -> String {
    crate::fuzz::reason_key(s)
}

/// Checks the programs of `seeds` as one batch per [`CrossOptions::batch`]
/// seeds (on the calling thread).
pub fn check_batch(seeds: &[u64], opts: &CrossOptions) -> CrossSummary {
    let prepared: Vec<Prepared> = seeds.iter().map(|&s| prepare(s, opts)).collect();
    check_prepared(&prepared, opts)
}

/// Checks programs already [`prepare`]d, as one batch (its tests change a
/// prepared module to see crashes and hangs named).
pub fn check_prepared(prepared: &[Prepared], opts: &CrossOptions) -> CrossSummary {
    let mut sum = CrossSummary { sve: opts.isa.is_sve(), programs: prepared.len(), ..CrossSummary::default() };
    let mut runnable = Vec::new();
    for p in prepared {
        let fail = |sum: &mut CrossSummary, msg: &str| {
            sum.failures.push(CrossFailure {
                seed: p.seed,
                variant: p.spec.vector_name.clone(),
                message: msg.to_string(),
                ir: p.program.ir.clone(),
                repro: repro_command(p.seed, opts),
            });
        };
        match &p.built {
            Built::Vector | Built::Fallback(_) if opts.isa.is_sve() => {
                runnable.push((p, sve::inputs_of(p, opts.trials)));
            }
            Built::Vector | Built::Fallback(_) => {
                let bits =
                    p.spec.mask.and(p.clone_sig.0.last()).and_then(|m| mask_elem(m, p.spec.width)).map_or(64, |m| m.1);
                runnable.push((p, inputs_of(p, opts.trials, bits)));
            }
            Built::Unsupported(m) => {
                sum.unsupported += 1;
                *sum.reasons.entry(reason_key(m)).or_default() += 1;
            }
            Built::InvalidIr(m) => {
                sum.invalid_ir += 1;
                fail(&mut sum, &format!("invalid IR: {m}"));
            }
            Built::Panic(m) => {
                sum.panics += 1;
                fail(&mut sum, &format!("panic: {m}"));
            }
            Built::Setup(m) => {
                sum.setup_errors += 1;
                fail(&mut sum, &format!("setup error: {m}"));
            }
        }
    }
    if !runnable.is_empty() {
        let (passes, bins) = run_batch(&runnable, opts);
        sum.binaries += bins;
        for pass in &passes {
            sum.lanes_compared += pass.lanes;
            if let Some(vq) = pass.vq {
                let v = sum.per_vq.entry(vq).or_default();
                v.lanes_compared += pass.lanes;
                v.runs += pass.runs;
            }
        }
        for (r, (p, inp)) in runnable.iter().enumerate() {
            let fates: Vec<(Option<u32>, &Ran)> = passes.iter().map(|q| (q.vq, &q.fates[r])).collect();
            for (vq, ran) in &fates {
                let Some(vq) = vq else { continue };
                let v = sum.per_vq.entry(*vq).or_default();
                match ran {
                    Ran::Compile(_) | Ran::Setup(_) | Ran::Vscale(_) => continue,
                    Ran::Mismatch(_) => v.mismatches += 1,
                    Ran::Crash(_) => v.crashes += 1,
                    Ran::Hang => v.hangs += 1,
                    Ran::Ok => {}
                }
                v.programs += 1;
            }
            let bad: Vec<(Option<u32>, &Ran)> = fates.iter().copied().filter(|(_, ran)| **ran != Ran::Ok).collect();
            if let Some(&(_, first)) = bad.first() {
                // Counted once, by its first failing run.
                match first {
                    Ran::Ok => {}
                    Ran::Mismatch(_) => {
                        sum.mismatches += 1;
                        for (_, ran) in &bad {
                            if let Ran::Mismatch(ms) = ran {
                                sum.mismatched_lanes += ms.len();
                            }
                        }
                    }
                    Ran::Crash(_) => sum.crashes += 1,
                    Ran::Hang => sum.hangs += 1,
                    Ran::Compile(_) => sum.compile_errors += 1,
                    Ran::Setup(_) => sum.setup_errors += 1,
                    Ran::Vscale(_) => sum.vscale_errors += 1,
                }
                let (message, repro) = match bad[0].0 {
                    // A compile failure is the same at every length.
                    Some(_) if !matches!(first, Ran::Compile(_) | Ran::Setup(_)) => {
                        let vqs: Vec<u32> = bad.iter().filter_map(|(vq, _)| *vq).collect();
                        let lines: Vec<String> = bad
                            .iter()
                            .map(|(vq, ran)| {
                                let vq = vq.unwrap_or(1);
                                let lanes = (vq * p.spec.width) as usize;
                                format!("at vscale {vq} ({} bits): {}", vq * 128, describe_failure(p, inp, ran, lanes))
                            })
                            .collect();
                        (lines.join("\n"), repro_command_at(p.seed, opts, &vqs))
                    }
                    _ => (describe_failure(p, inp, first, p.spec.width as usize), repro_command(p.seed, opts)),
                };
                sum.failures.push(CrossFailure {
                    seed: p.seed,
                    variant: p.spec.vector_name.clone(),
                    message,
                    ir: p.program.ir.clone(),
                    repro,
                });
                continue;
            }
            sum.clones_built += 1;
            if let Built::Fallback(why) = &p.built {
                sum.fallbacks += 1;
                *sum.reasons.entry(format!("per-lane fallback: {}", reason_key(why))).or_default() += 1;
            } else {
                sum.divergent += p.divergent as usize;
            }
            sum.masked += p.spec.mask.is_some() as usize;
            let scalable = p.clone_sig.1.starts_with("<vscale x ");
            sum.scalable += scalable as usize;
            let key = if scalable {
                format!("vscale x {} x {}", p.spec.width, p.program.ret.ir())
            } else {
                format!("{} x {}", p.spec.width, p.program.ret.ir())
            };
            *sum.widths.entry(key).or_default() += 1;
        }
    }
    sum.failures.sort_by_key(|f| f.seed);
    sum.failed_seeds = sum.failures.iter().map(|f| f.seed).collect();
    sum.failures.truncate(opts.keep_failures);
    sum
}

/// Checks `count` programs, seeds `seed..seed+count`, in batches spread
/// over [`CrossOptions::threads`] threads; `progress` gets the running
/// summary after each batch.
pub fn run(count: usize, seed: u64, opts: &CrossOptions, progress: &(dyn Fn(&CrossSummary) + Sync)) -> CrossSummary {
    let start = Instant::now();
    let batch = opts.batch.max(1);
    let batches = count.div_ceil(batch);
    let next = AtomicUsize::new(0);
    let total = Mutex::new(CrossSummary::default());
    std::thread::scope(|scope| {
        for _ in 0..opts.threads.clamp(1, batches.max(1)) {
            scope.spawn(|| loop {
                let b = next.fetch_add(1, Ordering::SeqCst);
                if b >= batches {
                    break;
                }
                let seeds: Vec<u64> =
                    (b * batch..((b + 1) * batch).min(count)).map(|i| seed.wrapping_add(i as u64)).collect();
                let s = check_batch(&seeds, opts);
                let mut t = total.lock().unwrap_or_else(|e| e.into_inner());
                t.merge(&s, opts.keep_failures);
                t.elapsed = start.elapsed();
                progress(&t);
            });
        }
    });
    let mut t = total.into_inner().unwrap_or_else(|e| e.into_inner());
    t.elapsed = start.elapsed();
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn output_is_parsed() {
        let out = "start 0\ndone 0\nstart 1\nmismatch 1 3 2 000000003f800000 0000000040000000\ndone 1\nstart 2\n";
        let r = parse_output(out);
        assert_eq!(r.done, vec![0, 1]);
        assert_eq!(r.running, Some(2));
        assert_eq!(
            r.mismatches,
            vec![LaneMismatch { program: 1, trial: 3, lane: 2, expected: 0x3f80_0000, got: 0x4000_0000 }]
        );
        assert_eq!(r.summary, None);
        assert_eq!(parse_output("summary 3 120 0\n").summary, Some((120, 0)));
    }

    #[test]
    fn widths_follow_the_characteristic_type() {
        let opts = CrossOptions::default();
        for seed in 0..200 {
            assert_eq!(shape_of(seed, Ty::F64, &opts).0, 2);
            assert!([2, 4].contains(&shape_of(seed, Ty::I32, &opts).0));
        }
    }
}
