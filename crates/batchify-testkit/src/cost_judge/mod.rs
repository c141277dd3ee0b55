//! Judging the cost model (`batchify_core::cost`) against measurement:
//! `batchify-judge-cost`, `cargo xtask judge-cost`.
//!
//! For each random program of [`crate::gen`] (program `i` of a run seeded
//! `S` has seed `S + i`, as in the fuzzer) the judge builds the clone three
//! times, each in a fresh module from the same input:
//! * with the default options: the cost model's **choice** (the report's
//!   fallback reason starts with `cost model:` when it chose the per-lane
//!   loop);
//! * with `cost_model: false`: the **vector form** (a program whose vector
//!   build is a per-lane fallback for another reason is unsupported: there
//!   is no choice to judge, and it is skipped);
//! * with `force_per_lane: true`: the **per-lane loop**.
//!
//! The vector form and the per-lane loop are then timed on the same inputs
//! ([`timing`]: the same argument sets, masks and buffer contents), the
//! samples interleaved, and the choice is compared with the faster form:
//! [`Timed::ratio`] is the chosen form's median time over the faster one's.
//! When the choice is neither (the cost model kept the function vector but
//! made a callee's clone the per-lane loop: [`Choice::Mixed`]) the choice's
//! own build is timed too. [`JudgeSummary::report`] gives the table
//! (chosen x faster), the share of programs within 10% of the faster form,
//! the worst ratios with their cost notes, and the skips by reason.
//!
//! What the programs are ([`JudgeOptions`]): [`judge_gen_config`] (more
//! buffers, helpers and loops than the fuzzer's defaults, loop caps up to
//! 16 so that `default<O2>`'s full unrolling of short loops leaves
//! divergent loops), each program run through `default<O2>` first as a C
//! or Rust front end's output would be (its helpers `noinline`, so that
//! calls stay calls, as across translation units), clones for the best x86
//! ISA of the host (the cost model only acts for x86 ISAs), 4, 8 or 16
//! lanes and masked or not, chosen from the program's seed.
//!
//! [`replay`] scores a changed cost model against a run's stored timings
//! without timing again, [`tune`] calibrates the cost table on them, and
//! [`judge_ir`] times one clone of a user's function the same way.

pub mod replay;
pub mod timing;
pub mod tune;

use crate::fuzz::{self, FuzzOptions};
use crate::gen::{Elem, GenConfig, Program};
use crate::inputs::Scalar;
use crate::jit::{host_has_feature, JitTarget};
use batchify_core::llvm::{create_enum_attribute, Module as IrModule, FUNCTION_INDEX};
use batchify_core::vfabi::Isa;
use batchify_core::{CloneReport, CloneSpec, Error, Options};
use inkwell::context::Context;
use inkwell::module::Module;
use std::collections::BTreeMap;
use std::fmt::{self, Write as _};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::{Duration, Instant};
use timing::{Failed, Form, Inputs, TimingConfig};

/// The prefix of the fallback reason the cost model gives.
pub const COST_MODEL_PREFIX: &str = "cost model:";

/// What to judge and how to measure.
#[derive(Debug, Clone)]
pub struct JudgeOptions {
    /// Number of programs.
    pub count: usize,
    /// Seed of the first program (program `i` uses `seed + i`).
    pub seed: u64,
    /// Generator settings.
    pub gen: GenConfig,
    /// The clones' ISA (default: the best x86 ISA of the host, [`host_isa`]).
    pub isa: Isa,
    /// Lanes: fixed, or (`None`) 4, 8 or 16 from each program's seed.
    pub width: Option<u32>,
    /// Masked clones: fixed, or (`None`) from each program's seed.
    pub masked: Option<bool>,
    /// Run `default<O2>` on each program before batchify.
    pub optimize: bool,
    /// Let `default<O2>` inline the helpers (by default they are `noinline`).
    pub inline_callees: bool,
    /// Argument sets the timing loop cycles through (a power of two).
    pub sets: usize,
    /// How to measure.
    pub timing: TimingConfig,
    /// The CPU the JIT compiles for.
    pub jit_target: JitTarget,
    /// Worst programs kept in the report.
    pub keep_worst: usize,
}

impl Default for JudgeOptions {
    fn default() -> Self {
        JudgeOptions {
            count: 100,
            seed: 0,
            gen: judge_gen_config(),
            isa: host_isa(),
            width: None,
            masked: None,
            optimize: true,
            inline_callees: false,
            sets: 8,
            timing: TimingConfig { sample_ns: 1_000_000, samples: 15, timeout_secs: 120 },
            jit_target: JitTarget::from_env(),
            keep_worst: 10,
        }
    }
}

/// The generator settings of the judge: the fuzzer's, with more buffer
/// parameters, helpers and loops, and loop caps up to 16.
pub fn judge_gen_config() -> GenConfig {
    GenConfig { p_buffers: 0.6, p_helper: 0.5, p_loop: 0.25, max_trip: 16, ..GenConfig::default() }
}

/// The widest x86 ISA the host runs (AVX-512 needs F, BW, DQ and VL).
pub fn host_isa() -> Isa {
    if ["avx512f", "avx512bw", "avx512dq", "avx512vl"].iter().all(|f| host_has_feature(f)) {
        Isa::Avx512
    } else if host_has_feature("avx2") {
        Isa::Avx2
    } else if host_has_feature("avx") {
        Isa::Avx
    } else {
        Isa::Sse2
    }
}

fn splitmix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The lanes and masking of program `seed`'s clone.
pub fn clone_kind(seed: u64, opts: &JudgeOptions) -> (u32, bool) {
    let r = splitmix(seed ^ 0x006a_7564_6765);
    let width = opts.width.unwrap_or([4, 8, 16][(r % 3) as usize]);
    let masked = opts.masked.unwrap_or((r >> 8) & 1 == 1);
    (width, masked)
}

/// The fuzzer's options that generate program `seed` and its clone spec.
pub fn fuzz_options(seed: u64, opts: &JudgeOptions) -> FuzzOptions {
    let (width, masked) = clone_kind(seed, opts);
    FuzzOptions {
        width,
        masked,
        isa: opts.isa,
        gen: opts.gen.clone(),
        jit_target: opts.jit_target,
        ..FuzzOptions::default()
    }
}

/// One of the two forms timed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum FormKind {
    /// The vector form (`cost_model: false`).
    Vector,
    /// The per-lane loop (`force_per_lane: true`).
    PerLane,
}

impl fmt::Display for FormKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            FormKind::Vector => "vector",
            FormKind::PerLane => "per-lane",
        })
    }
}

/// What the cost model chose.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Choice {
    /// The vector form, callees' clones included.
    Vector,
    /// The per-lane loop.
    PerLane,
    /// The vector form, with the per-lane loop for some callee's clone.
    Mixed,
}

impl fmt::Display for Choice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Choice::Vector => "vector",
            Choice::PerLane => "per-lane",
            Choice::Mixed => "mixed",
        })
    }
}

/// The samples of one form, summarised (nanoseconds per clone call).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Timing {
    /// Median.
    pub median: f64,
    /// Fastest sample.
    pub min: f64,
    /// Slowest sample.
    pub max: f64,
}

impl Timing {
    /// Summarises samples (at least one).
    pub fn of(samples: &[f64]) -> Timing {
        let mut s = samples.to_vec();
        s.sort_by(f64::total_cmp);
        let n = s.len();
        let median = if n % 2 == 1 { s[n / 2] } else { (s[n / 2 - 1] + s[n / 2]) / 2.0 };
        Timing { median, min: s[0], max: s[n - 1] }
    }

    /// `(max - min) / median`.
    pub fn spread(&self) -> f64 {
        (self.max - self.min) / self.median.max(1e-9)
    }
}

/// What the program and its vector form hold, for sorting out what the
/// cost model gets wrong (from the vector build's report, callee clones
/// included, and the scalar IR batchify got).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Features {
    /// Vector instructions of the clones.
    pub vectorized: usize,
    /// Instructions the clones run once per lane.
    pub serialized: usize,
    /// Linearized levels (divergent branches turned into masks).
    pub linearized: usize,
    /// Divergent loops.
    pub divergent_loops: usize,
    /// Gathers.
    pub gathers: usize,
    /// Scatters.
    pub scatters: usize,
    /// Other vector memory accesses (contiguous, wide, masked).
    pub vector_accesses: usize,
    /// Calls the clones make once per lane.
    pub per_lane_calls: usize,
    /// Calls of callee clones (or vector functions).
    pub batched_calls: usize,
    /// Callee clones built.
    pub callee_clones: usize,
    /// Divisions and remainders (integer and floating point) in the scalar IR.
    pub divisions: usize,
    /// Calls of functions that are not intrinsics in the scalar IR.
    pub calls: usize,
    /// The lowest speed-up the cost model estimates for a divergent loop.
    pub min_estimate: Option<f64>,
}

impl Features {
    fn of(report: &CloneReport, ir: &str) -> Features {
        let mut f = Features { callee_clones: report.callee_clones.len(), ..Features::default() };
        for r in std::iter::once(report).chain(&report.callee_clones) {
            let st = &r.stats;
            f.vectorized += st.vectorized;
            f.serialized += st.serialized;
            f.linearized += st.linearized_levels;
            f.divergent_loops += st.divergent_loops;
            for m in &st.memory_what {
                if m.starts_with("gather") {
                    f.gathers += 1;
                } else if m.starts_with("scatter") {
                    f.scatters += 1;
                } else {
                    f.vector_accesses += 1;
                }
            }
            f.per_lane_calls += st.per_lane_calls.len();
            f.batched_calls += st.batched_calls.len();
            for n in &st.cost_notes {
                let est = n.split("est. ").nth(1).and_then(|t| t.split('x').next()).and_then(|x| x.parse::<f64>().ok());
                if let Some(e) = est {
                    f.min_estimate = Some(f.min_estimate.map_or(e, |m: f64| m.min(e)));
                }
            }
        }
        for line in ir.lines().map(str::trim) {
            let op = line.split(" = ").nth(1).unwrap_or("").split(' ').next().unwrap_or("");
            f.divisions += matches!(op, "udiv" | "sdiv" | "urem" | "srem" | "fdiv" | "frem") as usize;
            let call = line.contains("call ") && !line.starts_with("declare") && !line.contains("@llvm.");
            f.calls += call as usize;
        }
        f
    }
}

impl fmt::Display for Features {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "vector={} per-lane-insts={} linearized={} div-loops={} gathers={} scatters={} accesses={} \
             per-lane-calls={} batched-calls={} callee-clones={} divisions={} calls={}",
            self.vectorized,
            self.serialized,
            self.linearized,
            self.divergent_loops,
            self.gathers,
            self.scatters,
            self.vector_accesses,
            self.per_lane_calls,
            self.batched_calls,
            self.callee_clones,
            self.divisions,
            self.calls
        )?;
        if let Some(e) = self.min_estimate {
            write!(f, " min-estimate={e:.2}")?;
        }
        Ok(())
    }
}

/// A program whose forms were timed.
#[derive(Debug, Clone)]
pub struct Timed {
    /// The cost model's choice.
    pub choice: Choice,
    /// The vector form.
    pub vector: Timing,
    /// The per-lane loop.
    pub per_lane: Timing,
    /// The choice's own build, for [`Choice::Mixed`].
    pub mixed: Option<Timing>,
    /// Clone calls per sample.
    pub iters: u64,
    /// The harness's own time per call (median over the samples of a
    /// clone that returns at once, called the same way).
    pub overhead: f64,
    /// Whether one call of each form left different results or buffers.
    pub outputs_differ: bool,
    /// The cost notes of the vector build (`cost:` lines of `--report`),
    /// callees' clones included (prefixed with the callee clone's name).
    pub cost_notes: Vec<String>,
    /// The choice's fallback reason (`cost model: ...`), for
    /// [`Choice::PerLane`], or the callee clones' for [`Choice::Mixed`].
    pub choice_reason: Option<String>,
    /// What the program and its vector form hold.
    pub features: Features,
    /// Whether the choice's build has the same function bodies as the
    /// build of the form it names (vector or per-lane); always true for
    /// [`Choice::Mixed`], which is timed on its own build.
    pub builds_agree: bool,
}

impl Timed {
    /// The faster of the two forms (by median).
    pub fn faster(&self) -> FormKind {
        if self.vector.median <= self.per_lane.median {
            FormKind::Vector
        } else {
            FormKind::PerLane
        }
    }

    /// The chosen form's median.
    pub fn chosen(&self) -> f64 {
        match self.choice {
            Choice::Vector => self.vector.median,
            Choice::PerLane => self.per_lane.median,
            Choice::Mixed => self.mixed.map_or(self.vector.median, |t| t.median),
        }
    }

    /// The chosen form's median over the faster form's (1 when the choice
    /// is the faster one).
    pub fn ratio(&self) -> f64 {
        self.chosen() / self.vector.median.min(self.per_lane.median).max(1e-9)
    }

    /// [`Timed::ratio`] by the fastest sample of each form instead of the
    /// median (a check of the medians under load).
    pub fn ratio_by_min(&self) -> f64 {
        let chosen = match self.choice {
            Choice::Vector => self.vector.min,
            Choice::PerLane => self.per_lane.min,
            Choice::Mixed => self.mixed.map_or(self.vector.min, |t| t.min),
        };
        chosen / self.vector.min.min(self.per_lane.min).max(1e-9)
    }

    /// [`Timed::ratio`] with the harness's overhead taken off both forms
    /// (`None` when the faster form is within 20% of the overhead: a clone
    /// that does next to nothing).
    pub fn ratio_net(&self) -> Option<f64> {
        let faster = self.vector.median.min(self.per_lane.median);
        (faster - self.overhead > 0.2 * faster).then(|| (self.chosen() - self.overhead) / (faster - self.overhead))
    }

    /// The harness's overhead over the faster form's median.
    pub fn overhead_share(&self) -> f64 {
        self.overhead / self.vector.median.min(self.per_lane.median).max(1e-9)
    }

    /// The per-lane loop's median over the vector form's (the measured
    /// speed-up of the vector form).
    pub fn vector_speedup(&self) -> f64 {
        self.per_lane.median / self.vector.median.max(1e-9)
    }
}

/// A program the judge could not time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skipped {
    /// Why, short (the summary counts skips by it).
    pub key: String,
    /// The details.
    pub detail: String,
}

/// The judge's result for one program.
#[derive(Debug, Clone)]
pub struct Judged {
    /// Index in the run.
    pub index: usize,
    /// The program's seed.
    pub seed: u64,
    /// Lanes of the clone.
    pub width: u32,
    /// Whether the clone is masked.
    pub masked: bool,
    /// Divergent loops of the vector build (callees' clones included).
    pub divergent_loops: usize,
    /// The timing, or why there is none.
    pub result: Result<Timed, Skipped>,
}

fn skip(key: impl Into<String>, detail: impl Into<String>) -> Skipped {
    Skipped { key: key.into(), detail: one_line(&detail.into()) }
}

fn one_line(s: &str) -> String {
    s.lines().map(str::trim).filter(|l| !l.is_empty()).collect::<Vec<_>>().join(" | ")
}

/// A short key for a reason: up to the first backquote, without the
/// function's name, at most 80 characters.
fn reason_key(message: &str) -> String {
    let m = match message.find("`: ") {
        Some(i) if message.starts_with("cannot batchify") => &message[i + 3..],
        _ => message,
    };
    let head = m.split('`').next().unwrap_or(m).trim().trim_end_matches([':', ',', ' ']);
    head.chars().take(80).collect()
}

/// The program's IR as batchify gets it: helpers `noinline` (unless
/// [`JudgeOptions::inline_callees`]), then `default<O2>` (if
/// [`JudgeOptions::optimize`]).
pub fn prepared_ir(program: &Program, opts: &JudgeOptions) -> Result<String, String> {
    let ctx = Context::create();
    let module = fuzz::parse_ir(&ctx, &program.ir, &program.name)?;
    module.verify().map_err(|e| e.to_string())?;
    if !opts.inline_callees {
        let raw = IrModule::from_inkwell(&module);
        for f in raw.functions() {
            let name = f.name();
            if f.is_declaration() || name == program.name || name.starts_with("llvm.") {
                continue;
            }
            f.remove_enum_attribute(FUNCTION_INDEX, "alwaysinline");
            f.add_attribute(FUNCTION_INDEX, create_enum_attribute(raw.context(), "noinline", 0));
        }
    }
    if opts.optimize {
        fuzz::optimize_o2(&module)?;
        module.verify().map_err(|e| format!("after default<O2>: {e}"))?;
    }
    Ok(module.print_to_string().to_string())
}

/// One build of the clone.
pub struct Build<'c> {
    /// Its module.
    pub module: Module<'c>,
    /// batchify's report on the requested clone.
    pub report: CloneReport,
}

/// Builds `spec`'s clone into a fresh module parsed from `ir`.
pub fn build<'c>(ctx: &'c Context, ir: &str, spec: &CloneSpec, options: &Options) -> Result<Build<'c>, Error> {
    let module = fuzz::parse_ir(ctx, ir, &spec.scalar_name)
        .map_err(|message| Error::Internal { function: spec.scalar_name.clone(), message })?;
    let mut reports = batchify_core::batchify_inkwell(&module, std::slice::from_ref(spec), options)?;
    let report = reports.pop().ok_or_else(|| Error::Internal {
        function: spec.scalar_name.clone(),
        message: "batchify returned no report".into(),
    })?;
    Ok(Build { module, report })
}

/// The bodies of a module's functions, by name: what two builds must
/// share to be the same code.
pub fn definitions(module: &Module<'_>) -> String {
    let raw = IrModule::from_inkwell(module);
    let mut fns: Vec<(String, String)> =
        raw.functions().into_iter().filter(|f| !f.is_declaration()).map(|f| (f.name(), f.print_function())).collect();
    fns.sort();
    fns.into_iter().map(|(_, text)| text).collect::<Vec<_>>().join("\n")
}

/// The options of the three builds: the choice, the vector form, the per-lane loop.
pub fn build_options() -> [Options; 3] {
    [
        Options::default(),
        Options { cost_model: false, ..Options::default() },
        Options { force_per_lane: true, ..Options::default() },
    ]
}

/// The three builds of one program, and what their reports say.
pub struct Builds<'c> {
    /// The build with the default options.
    pub choice: Build<'c>,
    /// The build with `cost_model: false`.
    pub vector: Build<'c>,
    /// The build with `force_per_lane: true`.
    pub per_lane: Build<'c>,
    /// What the choice's report says.
    pub choice_kind: Choice,
}

/// Builds program `ir`'s clone three ways; `Err` skips the program.
pub fn build_three<'c>(ctx: &'c Context, ir: &str, spec: &CloneSpec) -> Result<Builds<'c>, Skipped> {
    let [choice_opts, vector_opts, per_lane_opts] = build_options();
    let error = |what: &str, e: Error| match e {
        Error::Internal { .. } => skip(format!("{what} build: internal error"), format!("{e}: {e:?}")),
        e => skip(format!("unsupported: {}", reason_key(&e.to_string())), e.to_string()),
    };
    let vector = build(ctx, ir, spec, &vector_opts).map_err(|e| error("vector", e))?;
    if let Some(why) = &vector.report.fallback {
        return Err(skip(format!("unsupported: {}", reason_key(why)), why.clone()));
    }
    let per_lane = build(ctx, ir, spec, &per_lane_opts).map_err(|e| error("per-lane", e))?;
    if per_lane.report.fallback.is_none() {
        return Err(skip("per-lane build: not a per-lane loop", "force_per_lane built a vector clone"));
    }
    let choice = build(ctx, ir, spec, &choice_opts).map_err(|e| error("choice", e))?;
    let choice_kind = match &choice.report.fallback {
        Some(why) if why.starts_with(COST_MODEL_PREFIX) => Choice::PerLane,
        Some(why) => {
            return Err(skip("choice build: fallback for another reason than cost", why.clone()));
        }
        None => {
            let callee_cost = choice
                .report
                .callee_clones
                .iter()
                .any(|c| c.fallback.as_deref().is_some_and(|w| w.starts_with(COST_MODEL_PREFIX)));
            if callee_cost {
                Choice::Mixed
            } else {
                Choice::Vector
            }
        }
    };
    Ok(Builds { choice, vector, per_lane, choice_kind })
}

/// Cost notes of a report, callee clones' included.
fn cost_notes(report: &CloneReport) -> Vec<String> {
    let mut out = report.stats.cost_notes.clone();
    for c in &report.callee_clones {
        out.extend(c.stats.cost_notes.iter().map(|n| format!("{}: {n}", c.spec.vector_name)));
    }
    out
}

fn divergent_loops(report: &CloneReport) -> usize {
    report.stats.divergent_loops + report.callee_clones.iter().map(|c| c.stats.divergent_loops).sum::<usize>()
}

/// Judges program `seed` (index `index` of the run).
pub fn judge_program(index: usize, seed: u64, opts: &JudgeOptions) -> Judged {
    let (width, masked) = clone_kind(seed, opts);
    let mut divergent = 0;
    let result = catch_unwind(AssertUnwindSafe(|| judge_inner(seed, opts, &mut divergent))).unwrap_or_else(|p| {
        let msg = p
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_else(|| "non-string panic payload".into());
        Err(skip("panic", msg))
    });
    Judged { index, seed, width, masked, divergent_loops: divergent, result }
}

fn judge_inner(seed: u64, opts: &JudgeOptions, divergent: &mut usize) -> Result<Timed, Skipped> {
    let fo = fuzz_options(seed, opts);
    let program = fuzz::generate_for(seed, &fo);
    let spec = fuzz::spec_for(&program, &fo);
    let ir = prepared_ir(&program, opts).map_err(|e| skip("default<O2> failed", e))?;
    let elements: Vec<Option<Scalar>> = (0..spec.params.len())
        .map(|i| {
            program.buffers.get(i).and_then(|b| match b.elem {
                Elem::F32 => Some(Scalar::Float),
                Elem::F64 => Some(Scalar::Double),
                _ => None,
            })
        })
        .collect();
    judge_prepared(&ir, &spec, &elements, seed, opts, divergent)
}

/// Judges the clone `spec` of a function of the module `ir` (the
/// `--ir FILE --variant NAME` of `batchify-judge-cost`): its vector form
/// and per-lane loop timed as for a generated program, its pointer
/// arguments pointing into buffers of integers.
pub fn judge_ir(ir: &str, spec: &CloneSpec, opts: &JudgeOptions) -> Result<Timed, Skipped> {
    let mut divergent = 0;
    judge_prepared(ir, spec, &vec![None; spec.params.len()], 0x1e5, opts, &mut divergent)
}

/// Judges the clone `spec` of the prepared module `ir` (`elements`: the
/// floating-point element type of each buffer parameter, if any).
fn judge_prepared(
    ir: &str,
    spec: &CloneSpec,
    elements: &[Option<Scalar>],
    seed: u64,
    opts: &JudgeOptions,
    divergent: &mut usize,
) -> Result<Timed, Skipped> {
    let ir = ir.to_string();
    let spec = spec.clone();
    let ctx = Context::create();
    let builds = build_three(&ctx, &ir, &spec)?;
    *divergent = divergent_loops(&builds.vector.report);
    let choice_defs = definitions(&builds.choice.module);
    let builds_agree = match builds.choice_kind {
        Choice::Vector => choice_defs == definitions(&builds.vector.module),
        Choice::PerLane => choice_defs == definitions(&builds.per_lane.module),
        Choice::Mixed => true,
    };
    let choice_reason = match builds.choice_kind {
        Choice::PerLane => builds.choice.report.fallback.clone(),
        Choice::Mixed => Some(
            builds
                .choice
                .report
                .callee_clones
                .iter()
                .filter_map(|c| c.fallback.as_ref().map(|w| format!("{}: {w}", c.spec.vector_name)))
                .collect::<Vec<_>>()
                .join("; "),
        ),
        Choice::Vector => None,
    };
    let not_runnable = |e: String| skip(format!("not runnable: {}", reason_key(&e)), e);
    let scalar = IrModule::from_inkwell(&builds.vector.module)
        .function(&spec.scalar_name)
        .ok_or_else(|| skip("not runnable: no scalar function", spec.scalar_name.clone()))?;
    let mut inputs = Inputs::new(scalar, &spec, opts.sets, splitmix(seed ^ 0x1e5), elements).map_err(not_runnable)?;
    let vector =
        Form::compile(&builds.vector.module, &spec, opts.sets, &opts.jit_target, "vector").map_err(not_runnable)?;
    let per_lane =
        Form::compile(&builds.per_lane.module, &spec, opts.sets, &opts.jit_target, "per-lane").map_err(not_runnable)?;
    let mixed = match builds.choice_kind {
        Choice::Mixed => Some(
            Form::compile(&builds.choice.module, &spec, opts.sets, &opts.jit_target, "choice").map_err(not_runnable)?,
        ),
        _ => None,
    };
    let mut forms = vec![&vector, &per_lane];
    forms.extend(mixed.as_ref());
    let measured = timing::measure(&forms, &mut inputs, &opts.timing).map_err(|f| match f {
        Failed::Fault(key, detail) => skip(format!("fault: {key}"), detail),
        Failed::Setup(e) => skip("measurement failed", e),
    })?;
    Ok(Timed {
        choice: builds.choice_kind,
        vector: Timing::of(&measured.samples[0]),
        per_lane: Timing::of(&measured.samples[1]),
        mixed: measured.samples.get(2).map(|s| Timing::of(s)),
        iters: measured.iters,
        overhead: Timing::of(&measured.overhead).median,
        outputs_differ: measured.outputs_differ,
        cost_notes: cost_notes(&builds.vector.report),
        features: Features::of(&builds.vector.report, &ir),
        choice_reason,
        builds_agree,
    })
}

/// The command that judges one program again, printing it.
pub fn repro_command(seed: u64, opts: &JudgeOptions) -> String {
    let (width, masked) = clone_kind(seed, opts);
    let mut s = format!(
        "batchify-judge-cost --seed {seed} --count 1 --width {width} {} --isa {}",
        if masked { "--masked" } else { "--unmasked" },
        fuzz::isa_flag(opts.isa)
    );
    if !opts.optimize {
        s.push_str(" --no-opt");
    }
    if opts.inline_callees {
        s.push_str(" --inline-callees");
    }
    if opts.gen != judge_gen_config() {
        s.push_str(" (with the run's generator settings)");
    }
    s.push_str(" --dump");
    s
}

/// The results of a run.
#[derive(Debug, Clone, Default)]
pub struct JudgeSummary {
    /// Every program, in index order.
    pub programs: Vec<Judged>,
    /// Wall time.
    pub elapsed: Duration,
}

/// Ratio of the chosen form to the faster one that counts as "within".
pub const WITHIN: f64 = 1.10;
/// Worst ratio the requirement accepts.
pub const WORST_ACCEPTED: f64 = 1.5;
/// Share of programs that must be within [`WITHIN`].
pub const WITHIN_SHARE: f64 = 0.95;

impl JudgeSummary {
    /// The timed programs.
    pub fn timed(&self) -> impl Iterator<Item = (&Judged, &Timed)> {
        self.programs.iter().filter_map(|j| j.result.as_ref().ok().map(|t| (j, t)))
    }

    /// Skipped programs by reason key.
    pub fn skips(&self) -> BTreeMap<String, usize> {
        let mut out = BTreeMap::new();
        for j in &self.programs {
            if let Err(s) = &j.result {
                *out.entry(s.key.clone()).or_default() += 1;
            }
        }
        out
    }

    /// Counts by (choice, faster form).
    pub fn table(&self) -> BTreeMap<(Choice, FormKind), usize> {
        let mut out = BTreeMap::new();
        for (_, t) in self.timed() {
            *out.entry((t.choice, t.faster())).or_default() += 1;
        }
        out
    }

    /// Timed programs whose ratio is at most `within`, and how many were timed.
    pub fn within(&self, within: f64) -> (usize, usize) {
        let n = self.timed().count();
        (self.timed().filter(|(_, t)| t.ratio() <= within).count(), n)
    }

    /// The `k` timed programs of the worst ratio, worst first.
    pub fn worst(&self, k: usize) -> Vec<(&Judged, &Timed)> {
        let mut v: Vec<(&Judged, &Timed)> = self.timed().collect();
        v.sort_by(|a, b| b.1.ratio().total_cmp(&a.1.ratio()).then(a.0.index.cmp(&b.0.index)));
        v.truncate(k);
        v
    }

    /// Whether the run meets the requirement: at least [`WITHIN_SHARE`]
    /// of the timed programs within [`WITHIN`], none worse than
    /// [`WORST_ACCEPTED`].
    pub fn meets_requirement(&self) -> bool {
        let (w, n) = self.within(WITHIN);
        let worst = self.worst(1).first().map_or(1.0, |(_, t)| t.ratio());
        n > 0 && w as f64 >= WITHIN_SHARE * n as f64 && worst <= WORST_ACCEPTED
    }

    /// One line per program, tab-separated, with a header.
    pub fn tsv(&self) -> String {
        let mut s = String::from(
            "index\tseed\twidth\tmasked\tdivergent_loops\tchoice\tfaster\tvector_ns\tper_lane_ns\tmixed_ns\t\
             vector_spread\tper_lane_spread\tratio\tratio_by_min\toverhead_ns\titers\toutputs_differ\tskip\tfeatures\tcost_notes\n",
        );
        for j in &self.programs {
            let _ = write!(s, "{}\t{}\t{}\t{}\t{}\t", j.index, j.seed, j.width, j.masked, j.divergent_loops);
            match &j.result {
                Ok(t) => {
                    let _ = writeln!(
                        s,
                        "{}\t{}\t{:.2}\t{:.2}\t{}\t{:.3}\t{:.3}\t{:.4}\t{:.4}\t{:.2}\t{}\t{}\t\t{}\t{}",
                        t.choice,
                        t.faster(),
                        t.vector.median,
                        t.per_lane.median,
                        t.mixed.map_or(String::new(), |m| format!("{:.2}", m.median)),
                        t.vector.spread(),
                        t.per_lane.spread(),
                        t.ratio(),
                        t.ratio_by_min(),
                        t.overhead,
                        t.iters,
                        t.outputs_differ,
                        t.features,
                        t.cost_notes.join(" | ")
                    );
                }
                Err(e) => {
                    let _ = writeln!(s, "\t\t\t\t\t\t\t\t\t\t\t\t{}\t\t", e.key);
                }
            }
        }
        s
    }

    /// The report: the table, the share within 10%, the worst programs
    /// and the skips (markdown).
    pub fn report(&self, opts: &JudgeOptions) -> String {
        let mut s = String::new();
        let timed = self.timed().count();
        let skipped = self.programs.len() - timed;
        let _ = writeln!(
            s,
            "{} programs: {timed} timed, {skipped} skipped ({:.0} s, {:.2} s per program)\n",
            self.programs.len(),
            self.elapsed.as_secs_f64(),
            self.elapsed.as_secs_f64() / self.programs.len().max(1) as f64
        );
        let table = self.table();
        let cell = |c: Choice, f: FormKind| table.get(&(c, f)).copied().unwrap_or(0);
        let _ = writeln!(s, "| chosen \\ faster | vector | per-lane | total |");
        let _ = writeln!(s, "|---|---:|---:|---:|");
        for c in [Choice::Vector, Choice::PerLane, Choice::Mixed] {
            let (v, p) = (cell(c, FormKind::Vector), cell(c, FormKind::PerLane));
            if c == Choice::Mixed && v + p == 0 {
                continue;
            }
            let _ = writeln!(s, "| {c} | {v} | {p} | {} |", v + p);
        }
        let (tv, tp) = (
            table.iter().filter(|((_, f), _)| *f == FormKind::Vector).map(|(_, n)| n).sum::<usize>(),
            table.iter().filter(|((_, f), _)| *f == FormKind::PerLane).map(|(_, n)| n).sum::<usize>(),
        );
        let _ = writeln!(s, "| total | {tv} | {tp} | {} |\n", tv + tp);
        let pct = |a: usize, b: usize| 100.0 * a as f64 / b.max(1) as f64;
        let (w10, n) = self.within(WITHIN);
        let worst = self.worst(1).first().map_or(1.0, |(_, t)| t.ratio());
        let _ = writeln!(
            s,
            "- chosen form within 10% of the faster one: {w10} of {n} ({:.1}%; required: at least {:.0}%)",
            pct(w10, n),
            WITHIN_SHARE * 100.0
        );
        let _ = writeln!(s, "- worst ratio chosen/faster: {worst:.2}x (required: at most {WORST_ACCEPTED}x)");
        let over = self.timed().filter(|(_, t)| t.ratio() > WORST_ACCEPTED).count();
        let _ = writeln!(s, "- programs more than {WORST_ACCEPTED}x slower than the faster form: {over}");
        let _ = writeln!(s, "- requirement met: {}", if self.meets_requirement() { "yes" } else { "no" });
        // The programs the cost model has estimates for.
        let with_loops: Vec<&Timed> = self.timed().filter(|(j, _)| j.divergent_loops > 0).map(|(_, t)| t).collect();
        let wl = with_loops.iter().filter(|t| t.ratio() <= WITHIN).count();
        let _ = writeln!(
            s,
            "- programs with divergent loops (the ones the cost model estimates): {}, {wl} within 10% ({:.1}%)",
            with_loops.len(),
            pct(wl, with_loops.len())
        );
        let differ = self.timed().filter(|(_, t)| t.outputs_differ).count();
        let disagree = self.timed().filter(|(_, t)| !t.builds_agree).count();
        let spread = |f: &dyn Fn(&Timed) -> f64| {
            let mut v: Vec<f64> = self.timed().map(|(_, t)| f(t)).collect();
            v.sort_by(f64::total_cmp);
            v.get(v.len() / 2).copied().unwrap_or(0.0)
        };
        let _ = writeln!(
            s,
            "- median spread (max-min)/median of the samples: vector {:.1}%, per-lane {:.1}%",
            100.0 * spread(&|t| t.vector.spread()),
            100.0 * spread(&|t| t.per_lane.spread())
        );
        let _ = writeln!(
            s,
            "- forms whose first call left different results or buffers: {differ}; choices whose build differs from \
             the form they name: {disagree}"
        );
        let by_min = self.timed().filter(|(_, t)| t.ratio_by_min() <= WITHIN).count();
        let _ = writeln!(
            s,
            "- the same by each form's fastest sample instead of its median: {by_min} within 10% ({:.1}%)",
            pct(by_min, n)
        );
        let nets: Vec<f64> = self.timed().filter_map(|(_, t)| t.ratio_net()).collect();
        let net_within = nets.iter().filter(|&&r| r <= WITHIN).count();
        let _ = writeln!(
            s,
            "- the same with the harness overhead taken off both forms: {net_within} of {} within 10% ({:.1}%; the \
             other {} programs' faster form is within 20% of the overhead)",
            nets.len(),
            pct(net_within, nets.len()),
            n - nets.len()
        );
        let mut overheads: Vec<f64> = self.timed().map(|(_, t)| t.overhead_share()).collect();
        overheads.sort_by(f64::total_cmp);
        if !overheads.is_empty() {
            let big = overheads.iter().filter(|&&o| o > 0.25).count();
            let _ = writeln!(
                s,
                "- harness overhead per call (a clone that returns at once, called the same way) over the faster \
                 form's time: median {:.1}%, 90% {:.1}%; above 25% in {big} programs",
                100.0 * overheads[overheads.len() / 2],
                100.0 * overheads[(overheads.len() - 1) * 9 / 10]
            );
        }
        let mut speedups: Vec<f64> = self.timed().map(|(_, t)| t.vector_speedup()).collect();
        speedups.sort_by(f64::total_cmp);
        if !speedups.is_empty() {
            let q = |p: f64| speedups[((speedups.len() - 1) as f64 * p).round() as usize];
            let _ = writeln!(
                s,
                "- measured speed-up of the vector form over the per-lane loop: min {:.2}x, 10% {:.2}x, median \
                 {:.2}x, 90% {:.2}x, max {:.2}x",
                q(0.0),
                q(0.1),
                q(0.5),
                q(0.9),
                q(1.0)
            );
        }
        let skips = self.skips();
        if !skips.is_empty() {
            let _ = writeln!(s, "\nSkipped, by reason:\n");
            let mut v: Vec<(&String, &usize)> = skips.iter().collect();
            v.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
            for (k, n) in v {
                let _ = writeln!(s, "- {n}: {k}");
            }
        }
        let worst = self.worst(opts.keep_worst);
        if !worst.is_empty() {
            let _ = writeln!(s, "\nThe {} worst choices:\n", worst.len());
            let _ = writeln!(
                s,
                "| index | seed | lanes | mask | div. loops | chosen | faster | vector ns | per-lane ns | ratio |"
            );
            let _ = writeln!(s, "|---:|---:|---:|---|---:|---|---|---:|---:|---:|");
            for (j, t) in &worst {
                let _ = writeln!(
                    s,
                    "| {} | {} | {} | {} | {} | {} | {} | {:.1} | {:.1} | {:.2} |",
                    j.index,
                    j.seed,
                    j.width,
                    if j.masked { "masked" } else { "unmasked" },
                    j.divergent_loops,
                    t.choice,
                    t.faster(),
                    t.vector.median,
                    t.per_lane.median,
                    t.ratio()
                );
            }
            let _ = writeln!(s);
            for (j, t) in &worst {
                let _ = writeln!(s, "- seed {} (`{}`):", j.seed, repro_command(j.seed, opts));
                let _ = writeln!(s, "  - {}", t.features);
                if let Some(why) = &t.choice_reason {
                    let _ = writeln!(s, "  - choice: {why}");
                }
                for n in &t.cost_notes {
                    let _ = writeln!(s, "  - cost: {n}");
                }
            }
        }
        s
    }
}

/// Judges programs `0..opts.count`, one at a time (timing needs the
/// machine to itself), calling `progress` after each `every` programs.
pub fn run(opts: &JudgeOptions, every: usize, progress: &mut dyn FnMut(&JudgeSummary)) -> JudgeSummary {
    let start = Instant::now();
    let mut summary = JudgeSummary::default();
    for i in 0..opts.count {
        let seed = fuzz::program_seed(opts.seed, i);
        summary.programs.push(judge_program(i, seed, opts));
        summary.elapsed = start.elapsed();
        if every > 0 && (i + 1) % every == 0 {
            progress(&summary);
        }
    }
    summary.elapsed = start.elapsed();
    summary
}

impl fmt::Display for JudgeSummary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (w, n) = self.within(WITHIN);
        let worst = self.worst(1).first().map_or(1.0, |(_, t)| t.ratio());
        write!(
            f,
            "{} programs, {n} timed, {} skipped; within 10%: {w} ({:.1}%), worst ratio {worst:.2}x ({:.0} s)",
            self.programs.len(),
            self.programs.len() - n,
            100.0 * w as f64 / n.max(1) as f64,
            self.elapsed.as_secs_f64()
        )
    }
}
