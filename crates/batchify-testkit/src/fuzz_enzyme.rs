//! Reverse derivatives of random programs: the fuzzer's programs
//! ([`crate::gen`], with [`gen_config`]'s Enzyme-friendly settings) are
//! differentiated by Enzyme in reverse mode, and Enzyme's derivative
//! `diffe<f>` is batched by batchify (unmasked and masked clones, per-lane
//! fallback allowed) and checked by the [`crate::oracle`].
//!
//! For each program a request function is appended that calls
//! `__enzyme_autodiff(ptr @f, args...)`: the float parameters active, the
//! integer and buffer (pointer) parameters marked `metadata
//! !"enzyme_const"`, so that Enzyme's pass defines `diffe<f>(params...,
//! [differet]) -> { gradients }`: the original parameters, then the seed
//! of the result's adjoint if the result is a float, returning the float
//! parameters' gradients as a struct (all zero when the result is an
//! integer). Buffers are constant to Enzyme (no shadow memory, whose
//! gradient accumulation would make lanes that share a buffer add into
//! the same bytes); the derivative still loads and stores them as the
//! program does, and the oracle compares every byte. The fast-math flags
//! Enzyme puts on derivative code are taken off
//! ([`crate::enzyme::without_fast_math`]) so that the derivative has one
//! result per input and every lane must match it bit for bit. Unlike the
//! C derivatives of `tests/enzyme_derivatives.rs`, no trial is dropped for
//! poison (`OracleOptions::skip_poison_inputs` stays off): the generator's
//! programs make none that reaches a result, on any input (they speculate
//! an out-of-range `fptosi` under a `select` that discards it, which the
//! oracle's poison flags would count), and Enzyme's derivative recomputes
//! or caches their values as they are.
//!
//! Before Enzyme, two edits of the program's text: `coldcc` becomes
//! `fastcc` (LLVM 22's x86-64 `coldcc` returns a `float` wrongly, and
//! Enzyme gives a helper's derivative the helper's convention and a
//! `{ float }` result), and the recorder's declaration gets `nofree
//! "enzyme_inactive"` (Enzyme rejects an external function it cannot
//! differentiate or prove `nofree`).
//!
//! Program `i` of a run seeded `S` is the fuzzer's program `S + i` (with
//! [`gen_config`]); `batchify-fuzz --enzyme-reverse --seed S+i --count 1
//! --dump` reproduces it alone. A fraction of the programs
//! ([`FuzzOptions::optimize_fraction`]) goes through `default<O2>` before
//! Enzyme. Programs that Enzyme rejects are counted by their first error
//! line (or crashing frame), not failures.

use crate::fuzz::{self, lock, mix, one_line, optimize_o2, parse_ir, reason_key, should_optimize, FuzzOptions};
use crate::gen::{generate, GenConfig, Program};
use crate::{enzyme, CheckConfig, Oracle, OracleError};
use batchify_core::spec::mask_abi_for;
use batchify_core::vfabi::{Isa, Param, ParamKind, VariantName};
use batchify_core::{CloneSpec, Error, Options};
use inkwell::context::Context;
use inkwell::values::AnyValue;
use std::collections::BTreeMap;
use std::fmt::{self, Write as _};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;
use std::process::Command;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The generator settings of reverse-derivative runs: the fuzzer's
/// defaults, with at least one float parameter (a program without one has
/// no gradient to take).
pub fn gen_config() -> GenConfig {
    GenConfig { float_params: 1..=3, ..GenConfig::default() }
}

/// The generator's declaration of the recorder.
const RECORDER_DECL: &str = "declare void @batchify_record(i64, i64)";

/// The derivative Enzyme defines for `program`'s function.
pub fn derivative_name(program: &Program) -> String {
    format!("diffe{}", program.name.trim_matches('"'))
}

/// The request to append to `program`'s IR so that Enzyme defines its
/// reverse derivative, or why the program is skipped.
pub fn request_ir(program: &Program) -> Result<String, String> {
    let floats: Vec<&str> =
        program.abi.iter().map(|(t, _)| t.as_str()).filter(|t| *t == "float" || *t == "double").collect();
    if floats.is_empty() {
        return Err("no float parameter".into());
    }
    let params: Vec<String> = program.abi.iter().enumerate().map(|(i, (t, _))| format!("{t} %a{i}")).collect();
    let mut args = vec![format!("ptr @\"{}\"", program.name.trim_matches('"'))];
    for (i, (t, _)) in program.abi.iter().enumerate() {
        if t.starts_with('i') || t == "ptr" {
            args.push("metadata !\"enzyme_const\"".into());
        }
        args.push(format!("{t} %a{i}"));
    }
    let grads = format!("{{ {} }}", floats.join(", "));
    Ok(format!(
        "\ndeclare {grads} @__enzyme_autodiff(...)\n\ndefine {grads} @enzyme_request({}) {{\nentry:\n  %g = call \
         {grads} (...) @__enzyme_autodiff({})\n  ret {grads} %g\n}}\n",
        params.join(", "),
        args.join(", ")
    ))
}

/// The parameter kinds of the derivative's clone: the program's own
/// ([`Program::abi`]: varying, uniform, linear) for the original
/// parameters, varying for the result's adjoint; all varying if the
/// derivative's parameters are not that.
fn derivative_kinds(program: &Program, param_count: usize) -> Vec<ParamKind> {
    let mut kinds: Vec<ParamKind> = program.abi.iter().map(|(_, k)| *k).collect();
    if kinds.len() + 1 == param_count {
        kinds.push(ParamKind::Vector);
    }
    if kinds.len() != param_count {
        kinds = vec![ParamKind::Vector; param_count];
    }
    kinds
}

fn spec(name: &str, kinds: &[ParamKind], width: u32, masked: bool) -> CloneSpec {
    let isa = Isa::Llvm;
    let ps: Vec<Param> = kinds.iter().map(|&kind| Param { kind, align: None }).collect();
    CloneSpec {
        scalar_name: name.to_string(),
        vector_name: VariantName::mangle(isa, masked, width, &ps, name),
        width,
        aligns: vec![None; kinds.len()],
        params: kinds.to_vec(),
        mask: masked.then(|| mask_abi_for(isa)),
        isa,
    }
}

/// The class of one program's result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Outcome {
    /// Every clone (vectorized or per-lane fallback) matched the derivative.
    Ok,
    /// No gradient to take (no float parameter).
    Skipped,
    /// Enzyme's pass failed on the program.
    EnzymeRejected,
    /// batchify declined the derivative (an error, not a fallback).
    Unsupported,
    /// The oracle found a lane that differs.
    Mismatch,
    /// batchify's output did not verify (or an LLVM pass failed).
    InvalidIr,
    /// The oracle could not build or run its wrappers.
    OracleSetupError,
    /// batchify or the harness panicked.
    Panic,
}

impl Outcome {
    /// Whether this outcome is a bug that fails a run.
    pub fn is_failure(self) -> bool {
        matches!(self, Outcome::Mismatch | Outcome::InvalidIr | Outcome::Panic)
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Outcome::Ok => "ok",
            Outcome::Skipped => "skipped",
            Outcome::EnzymeRejected => "rejected by Enzyme",
            Outcome::Unsupported => "unsupported",
            Outcome::Mismatch => "mismatch",
            Outcome::InvalidIr => "invalid IR",
            Outcome::OracleSetupError => "oracle setup error",
            Outcome::Panic => "panic",
        })
    }
}

/// The result of one program.
#[derive(Debug, Clone)]
pub struct Checked {
    /// Its class.
    pub outcome: Outcome,
    /// Whether the program went through `default<O2>` before Enzyme.
    pub optimized: bool,
    /// The error, mismatch, skip or rejection reason (one line).
    pub message: String,
    /// Clones built (vectorized or fallback).
    pub clones: usize,
    /// The fallback reasons of the clones that are per-lane fallbacks.
    pub fallbacks: Vec<String>,
    /// Lanes the oracle compared.
    pub lanes_compared: usize,
    /// Vectorized clones with divergent control flow (a divergent loop or
    /// a linearized level: masks at work).
    pub divergent: usize,
    /// Whether the program has an irreducible cycle (`irr.a`/`irr.b`).
    pub irreducible: bool,
    /// With [`FuzzOptions::keep_ir`]: the derivative (without fast-math
    /// flags) and the clones, as IR.
    pub ir: Option<String>,
    /// batchify's report lines for the clones.
    pub report: Vec<String>,
}

impl Checked {
    fn new(outcome: Outcome, optimized: bool, message: &str) -> Checked {
        Checked {
            outcome,
            optimized,
            message: one_line(message),
            clones: 0,
            fallbacks: Vec::new(),
            lanes_compared: 0,
            divergent: 0,
            irreducible: false,
            ir: None,
            report: Vec::new(),
        }
    }
}

/// Runs Enzyme's pass on textual IR; `Err` holds its output.
fn run_enzyme(plugin: &Path, ir: &str, dir: &Path, seed: u64) -> Result<String, String> {
    let input = dir.join(format!("p{seed}.ll"));
    let output = dir.join(format!("p{seed}.enzyme.ll"));
    std::fs::write(&input, ir).map_err(|e| format!("cannot write {}: {e}", input.display()))?;
    let out = Command::new("opt-22")
        .arg(format!("-load-pass-plugin={}", plugin.display()))
        .arg("-passes=enzyme")
        .arg("-S")
        .arg(&input)
        .arg("-o")
        .arg(&output)
        .output()
        .map_err(|e| format!("cannot run opt-22: {e}"))?;
    let text = std::fs::read_to_string(&output);
    let _ = std::fs::remove_file(&input);
    let _ = std::fs::remove_file(&output);
    if !out.status.success() {
        let stderr = String::from_utf8_lossy(&out.stderr);
        return Err(format!("{} ({})", first_error_line(&stderr), out.status));
    }
    text.map_err(|e| format!("no output from Enzyme: {e}"))
}

/// The line of Enzyme's (or opt's) output that says what went wrong:
/// Enzyme's own diagnostic (not the IR it prints with it), an assertion,
/// or for a crash the first Enzyme frame of the backtrace.
fn first_error_line(stderr: &str) -> String {
    let lines: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
    const DIAGNOSTICS: [&str; 8] = [
        "Assertion",
        "Cannot",
        "cannot",
        "unknown intrinsic",
        "not handled",
        "LLVM ERROR",
        "No augmented",
        "could not",
    ];
    let found = lines.iter().find(|l| DIAGNOSTICS.iter().any(|k| l.contains(k))).map(|l| l.trim().to_string());
    // A crash: the innermost frame of the backtrace in the plugin
    // (` #N 0xADDR function(args) (path+offset)`).
    let frame = || {
        lines.iter().map(|l| l.trim()).filter(|l| l.starts_with('#') && l.contains("LLVMEnzyme")).find_map(|l| {
            let mut words = l.splitn(3, ' ');
            let function = words.nth(2)?;
            let name = function.split(['(', '<']).next().unwrap_or(function).trim();
            Some(format!("crash in Enzyme's {name}"))
        })
    };
    found.or_else(frame).or(lines.first().map(|l| l.trim().to_string())).unwrap_or_default()
}

/// An Enzyme error line with its program-specific parts (numbers, value
/// names) collapsed, for counting rejections by kind.
pub fn rejection_kind(line: &str) -> String {
    // `error: <unknown>:0:0: in function preprocess_f T (..): Enzyme: what`
    let line = line.split_once("Enzyme: ").map_or(line, |(_, what)| what);
    let mut out = String::new();
    let mut last_digit = false;
    for c in line.chars() {
        if c.is_ascii_digit() {
            if !last_digit {
                out.push('N');
            }
            last_digit = true;
        } else {
            out.push(c);
            last_digit = false;
        }
    }
    out.chars().take(120).collect()
}

/// Checks program `seed` (already generated): Enzyme, batchify, oracle.
/// `dir` is a scratch folder for Enzyme's input and output.
pub fn check_program(program: &Program, seed: u64, opts: &FuzzOptions, plugin: &Path, dir: &Path) -> Checked {
    let optimized = should_optimize(seed, opts.optimize_fraction);
    let request = match request_ir(program) {
        Ok(r) => r,
        Err(why) => return Checked::new(Outcome::Skipped, optimized, &why),
    };
    // LLVM 22's x86-64 `coldcc` returns a `float` result wrongly (it
    // treats XMM0 as callee-saved: the caller sees its first argument;
    // `tests/corpus/real/conventions.ll`). The generator keeps `coldcc` to
    // helpers with integer results, but Enzyme gives a helper's
    // derivative the helper's convention and a `{ float }` gradient
    // result, which the scalar reference would get wrong: `fastcc` instead.
    // The recorder is an external function without a derivative; marked
    // `enzyme_inactive`, Enzyme calls it in the derivative's forward pass.
    let primal = program
        .ir
        .replace(" coldcc ", " fastcc ")
        .replace(RECORDER_DECL, &format!("{RECORDER_DECL} nofree \"enzyme_inactive\""));
    let mut text = format!("{primal}{request}");
    if optimized {
        let ctx = Context::create();
        let module = parse_ir(&ctx, &text, &program.name)
            .unwrap_or_else(|e| panic!("program and request (seed {seed}) do not parse: {e}\n{text}"));
        if let Err(e) = optimize_o2(&module) {
            return Checked::new(Outcome::OracleSetupError, optimized, &format!("default<O2> failed: {e}"));
        }
        text = module.print_to_string().to_string();
    }
    let derivative_ir = match run_enzyme(plugin, &text, dir, seed) {
        Ok(ir) => enzyme::without_fast_math(&ir),
        Err(e) => return Checked::new(Outcome::EnzymeRejected, optimized, &e),
    };
    let name = derivative_name(program);
    let ctx = Context::create();
    let module = match parse_ir(&ctx, &derivative_ir, &name) {
        Ok(m) => m,
        Err(e) => return Checked::new(Outcome::OracleSetupError, optimized, &format!("Enzyme's output: {e}")),
    };
    let Some(f) = module.get_function(&name) else {
        return Checked::new(Outcome::EnzymeRejected, optimized, &format!("Enzyme defined no {name}"));
    };
    let mut ir = opts.keep_ir.then(|| f.print_to_string().to_string());
    let kinds = derivative_kinds(program, f.count_params() as usize);
    let specs: Vec<CloneSpec> =
        [false, true].iter().filter(|&&m| !m || opts.masked).map(|&m| spec(&name, &kinds, opts.width, m)).collect();
    let build = Options { cost_model: false, ..Options::default() };
    let fail = |outcome, message: String| Checked::new(outcome, optimized, &message);
    let reports = match batchify_core::batchify_inkwell(&module, &specs, &build) {
        Ok(r) => r,
        Err(e @ Error::Internal { .. }) => {
            let full = match &e {
                Error::Internal { message, .. } => format!("{e}: {message}"),
                _ => e.to_string(),
            };
            return fail(Outcome::InvalidIr, full);
        }
        Err(e) => return fail(Outcome::Unsupported, e.to_string()),
    };
    if let Some(ir) = &mut ir {
        for s in &specs {
            if let Some(c) = module.get_function(&s.vector_name) {
                let _ = write!(ir, "\n{}", c.print_to_string().to_string());
            }
        }
    }
    let report: Vec<String> = reports.iter().flat_map(|r| r.lines()).collect();
    let fallbacks: Vec<String> = reports.iter().filter_map(|r| r.fallback.clone()).collect();
    let divergent = reports
        .iter()
        .filter(|r| r.fallback.is_none() && r.stats.divergent_loops + r.stats.linearized_levels > 0)
        .count();
    let done = |outcome, message: String, lanes| Checked {
        clones: specs.len(),
        fallbacks: fallbacks.clone(),
        lanes_compared: lanes,
        divergent,
        irreducible: program.ir.contains("irr.a"),
        ir: ir.clone(),
        report: report.clone(),
        ..Checked::new(outcome, optimized, &message)
    };
    // Poison is not skipped (see the module's documentation).
    let oracle = match Oracle::new(&module, &specs) {
        Ok(o) => o,
        Err(e) => return done(Outcome::OracleSetupError, e.to_string(), 0),
    };
    let cfg = CheckConfig { trials: opts.trials, seed: mix(seed) };
    match oracle.check_all(&cfg) {
        Ok(stats) => done(Outcome::Ok, String::new(), stats.lanes_compared),
        Err(OracleError::Mismatch(m)) => done(Outcome::Mismatch, m.to_string(), 0),
        Err(e @ OracleError::Setup(_)) => done(Outcome::OracleSetupError, e.to_string(), 0),
    }
}

/// The generator settings of a run ([`fuzz::gen_config`]).
pub fn generate_for(seed: u64, opts: &FuzzOptions) -> Program {
    generate(seed, &fuzz::gen_config(opts))
}

/// The command line that reruns one program and prints it.
pub fn repro_command(seed: u64, opts: &FuzzOptions) -> String {
    let base = fuzz::repro_command(seed, opts);
    // The generator flags are relative to the fuzzer's defaults; the CLI's
    // --enzyme-reverse starts from `gen_config()` instead.
    let straight = GenConfig { float_params: gen_config().float_params, ..GenConfig::straight_line() };
    let flags = fuzz::gen_flags_from(&opts.gen, &gen_config())
        .or_else(|| fuzz::gen_flags_from(&opts.gen, &straight).map(|f| format!(" --straight-line{f}")))
        .unwrap_or_else(|| " (with the run's custom GenConfig)".into());
    let head = base.split(" --opt-fraction").next().unwrap_or(&base).to_string();
    let mut s = format!("{head} --enzyme-reverse --opt-fraction {}", opts.optimize_fraction);
    if opts.trials != FuzzOptions::default().trials {
        let _ = write!(s, " --trials {}", opts.trials);
    }
    let _ = write!(s, "{flags} --dump");
    s
}

/// Generates and checks program `seed`, a panic turned into [`Outcome::Panic`].
pub fn check_seed(seed: u64, opts: &FuzzOptions, plugin: &Path, dir: &Path) -> (Program, Checked) {
    let _current = fuzz::CurrentProgram::enter(repro_command(seed, opts));
    let program = generate_for(seed, opts);
    let optimized = should_optimize(seed, opts.optimize_fraction);
    let checked =
        catch_unwind(AssertUnwindSafe(|| check_program(&program, seed, opts, plugin, dir))).unwrap_or_else(|p| {
            let msg = p
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "non-string panic payload".into());
            Checked::new(Outcome::Panic, optimized, &msg)
        });
    (program, checked)
}

/// A kept failure.
#[derive(Debug, Clone)]
pub struct Failure {
    /// Its class.
    pub outcome: Outcome,
    /// The program's seed.
    pub seed: u64,
    /// The error or mismatch.
    pub message: String,
    /// The command that reproduces it.
    pub repro: String,
}

/// Counts of a run.
#[derive(Debug, Clone, Default)]
pub struct Summary {
    /// Programs generated.
    pub programs: usize,
    /// Programs skipped (no float parameter, pointer parameters), by reason.
    pub skipped: BTreeMap<String, usize>,
    /// Programs Enzyme rejected, by the kind of its first error line, with
    /// one full line and its program's seed as an example.
    pub rejected: BTreeMap<String, (usize, String, u64)>,
    /// Programs Enzyme differentiated.
    pub accepted: usize,
    /// Programs optimised with `default<O2>` before Enzyme.
    pub optimized: usize,
    /// Clones built (unmasked and masked per accepted program).
    pub clones: usize,
    /// Clones batchify vectorized (not a per-lane fallback).
    pub vectorized: usize,
    /// Vectorized clones with divergent control flow.
    pub divergent: usize,
    /// Accepted programs with an irreducible cycle.
    pub irreducible: usize,
    /// Per-lane fallback clones by reason (checked all the same).
    pub fallbacks: BTreeMap<String, usize>,
    /// Programs whose every clone matched.
    pub ok: usize,
    /// Programs batchify declined with an error, by reason.
    pub unsupported: BTreeMap<String, usize>,
    /// Oracle mismatches.
    pub mismatches: usize,
    /// batchify internal errors.
    pub invalid_ir: usize,
    /// Oracle setup errors, by reason.
    pub oracle_setup_errors: BTreeMap<String, usize>,
    /// Panics.
    pub panics: usize,
    /// Lanes compared over all clones.
    pub lanes_compared: usize,
    /// The first failures.
    pub failures: Vec<Failure>,
    /// Wall time.
    pub elapsed: Duration,
}

impl Summary {
    /// Whether the run found a bug (mismatch, invalid IR, panic).
    pub fn failed(&self) -> bool {
        self.mismatches + self.invalid_ir + self.panics > 0
    }

    /// Programs Enzyme rejected.
    pub fn rejected_count(&self) -> usize {
        self.rejected.values().map(|(n, _, _)| n).sum()
    }

    /// Per-lane fallback clones.
    pub fn fallback_count(&self) -> usize {
        self.fallbacks.values().sum()
    }

    fn count(&mut self, c: &Checked, seed: u64) {
        self.programs += 1;
        self.optimized += c.optimized as usize;
        self.lanes_compared += c.lanes_compared;
        let accepted = !matches!(c.outcome, Outcome::Skipped | Outcome::EnzymeRejected);
        self.accepted += accepted as usize;
        self.clones += c.clones;
        self.vectorized += c.clones - c.fallbacks.len();
        self.divergent += c.divergent;
        self.irreducible += (accepted && c.irreducible) as usize;
        for f in &c.fallbacks {
            *self.fallbacks.entry(reason_key(f)).or_default() += 1;
        }
        match c.outcome {
            Outcome::Ok => self.ok += 1,
            Outcome::Skipped => *self.skipped.entry(c.message.clone()).or_default() += 1,
            Outcome::EnzymeRejected => {
                let e = self.rejected.entry(rejection_kind(&c.message)).or_insert((0, c.message.clone(), seed));
                e.0 += 1;
            }
            Outcome::Unsupported => *self.unsupported.entry(reason_key(&c.message)).or_default() += 1,
            Outcome::Mismatch => self.mismatches += 1,
            Outcome::InvalidIr => self.invalid_ir += 1,
            Outcome::OracleSetupError => {
                // `oracle setup failed: CLONE: the scalar function `diffef` crashed ...`
                let why = c.message.split_once(": the ").map_or(c.message.as_str(), |(_, w)| w);
                *self.oracle_setup_errors.entry(rejection_kind(why)).or_default() += 1
            }
            Outcome::Panic => self.panics += 1,
        }
    }

    /// The summary line, the counts by reason and the kept failures.
    pub fn report(&self) -> String {
        let mut s = format!("{self}\n");
        let mut list = |title: &str, m: &BTreeMap<String, usize>| {
            if !m.is_empty() {
                let _ = writeln!(s, "{title}:");
                let mut v: Vec<_> = m.iter().collect();
                v.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
                for (r, n) in v {
                    let _ = writeln!(s, "  {n:6}  {r}");
                }
            }
        };
        list("skipped, by reason", &self.skipped);
        list("per-lane fallback clones, by reason", &self.fallbacks);
        list("unsupported by batchify, by reason", &self.unsupported);
        list("oracle setup errors, by reason", &self.oracle_setup_errors);
        if !self.rejected.is_empty() {
            let _ = writeln!(s, "rejected by Enzyme, by first error line (one example each):");
            let mut v: Vec<_> = self.rejected.values().collect();
            v.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
            for (n, line, seed) in v {
                let _ = writeln!(s, "  {n:6}  seed {seed}: {line}");
            }
        }
        for f in &self.failures {
            let _ = writeln!(s, "\n{} in program seed {}: {}\n  reproduce: {}", f.outcome, f.seed, f.message, f.repro);
        }
        s
    }
}

impl fmt::Display for Summary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} programs: {} skipped, {} rejected by Enzyme, {} accepted ({} optimized with default<O2> first); \
             {} with an irreducible cycle; {} clones of the reverse derivatives: {} vectorized ({} with divergent \
             control flow), {} per-lane fallbacks; {} programs ok, \
             {} unsupported, {} oracle setup errors; {} mismatches, {} invalid IR, {} panics; {} lanes compared \
             ({:.1} programs/s)",
            self.programs,
            self.skipped.values().sum::<usize>(),
            self.rejected_count(),
            self.accepted,
            self.optimized,
            self.irreducible,
            self.clones,
            self.vectorized,
            self.divergent,
            self.fallback_count(),
            self.ok,
            self.unsupported.values().sum::<usize>(),
            self.oracle_setup_errors.values().sum::<usize>(),
            self.mismatches,
            self.invalid_ir,
            self.panics,
            self.lanes_compared,
            self.programs as f64 / self.elapsed.as_secs_f64().max(1e-9)
        )
    }
}

/// Runs `opts.count` programs through Enzyme's reverse mode, batchify and
/// the oracle on [`FuzzOptions::threads`] threads, calling `progress`
/// after every `every` programs (never if 0). With
/// [`FuzzOptions::timeout`], a program that runs longer aborts the process
/// after printing its reproduction command.
pub fn run(opts: &FuzzOptions, plugin: &Path, every: usize, progress: &mut dyn FnMut(&Summary)) -> Summary {
    let start = Instant::now();
    let dir = tempfile::tempdir().expect("a scratch folder");
    let summary = Mutex::new(Summary::default());
    let failures: Mutex<Vec<(usize, Failure)>> = Mutex::new(Vec::new());
    let check = |i: usize, seed: u64| {
        let (_, checked) = check_seed(seed, opts, plugin, dir.path());
        if checked.outcome.is_failure() {
            let failure = Failure {
                outcome: checked.outcome,
                seed,
                message: checked.message.clone(),
                repro: repro_command(seed, opts),
            };
            fuzz::keep_failure(&failures, i, failure, opts.keep_failures);
        }
        lock(&summary).count(&checked, seed);
    };
    let stuck = |seed: u64| {
        format!(
            "batchify-fuzz --enzyme-reverse: program seed {seed} still running after {:?}; aborting.\n  \
             reproduce: {}",
            opts.timeout.unwrap_or_default(),
            repro_command(seed, opts)
        )
    };
    let mut report = || {
        let mut snapshot = lock(&summary).clone();
        snapshot.elapsed = start.elapsed();
        progress(&snapshot);
    };
    fuzz::for_each_program(opts, every, &check, &mut report, &stuck);
    let mut s = summary.into_inner().unwrap_or_else(|e| e.into_inner());
    s.failures = failures.into_inner().unwrap_or_else(|e| e.into_inner()).into_iter().map(|(_, f)| f).collect();
    s.elapsed = start.elapsed();
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_mark_integers_and_buffers_constant() {
        let opts = FuzzOptions { gen: gen_config(), ..FuzzOptions::default() };
        for seed in 0..40 {
            let p = generate_for(seed, &opts);
            let r = request_ir(&p).expect("every program has a float parameter");
            let constant = p.abi.iter().filter(|(t, _)| t.starts_with('i') || t == "ptr").count();
            assert_eq!(r.matches("metadata !\"enzyme_const\"").count(), constant, "seed {seed}:\n{r}");
            assert!(r.contains(&format!("@__enzyme_autodiff(ptr @\"fuzz_{seed}\"")), "{r}");
        }
    }

    #[test]
    fn reproduction_commands_name_the_mode_and_only_changed_flags() {
        let opts = FuzzOptions { gen: gen_config(), ..FuzzOptions::default() };
        assert_eq!(
            repro_command(7, &opts),
            "batchify-fuzz --seed 7 --count 1 --width 8 --enzyme-reverse --opt-fraction 0.25 --dump"
        );
        let opts = FuzzOptions { gen: GenConfig { p_record: 0.5, ..gen_config() }, masked: false, ..opts };
        assert_eq!(
            repro_command(7, &opts),
            "batchify-fuzz --seed 7 --count 1 --width 8 --unmasked --enzyme-reverse --opt-fraction 0.25 --records 0.5 \
             --dump"
        );
    }

    #[test]
    fn rejection_kinds_collapse_numbers() {
        assert_eq!(rejection_kind("cannot handle %t12 in fuzz_345"), "cannot handle %tN in fuzz_N");
    }
}
