//! The fuzzer: random programs from [`crate::gen`], optionally optimised by
//! LLVM's `default<O2>` pipeline, batched by batchify with the parameter
//! kinds each program chose (varying, uniform, linear: [`spec_for`]), and
//! checked by the [`crate::oracle`] on random inputs (and random masks for
//! masked clones), buffer contents and recorder logs included.
//!
//! Program `i` of a run with seed `S` is generated from seed `S + i`
//! (wrapping), and everything else about it (whether it is optimised, the
//! oracle's inputs) derives from that seed only, so any program reproduces
//! alone with `batchify-fuzz --seed S+i --count 1` and the same
//! `--width`, `--unmasked` and `--opt-fraction` flags.
//!
//! Everything runs in the calling process (on [`FuzzOptions::threads`]
//! worker threads), one LLVM context per program, dropped before the next
//! one, so memory stays bounded over long runs. A clone that never returns
//! cannot be interrupted in process; with [`FuzzOptions::timeout`] the
//! calling thread watches the workers and, past the limit, prints the
//! program and its reproduction command and aborts instead of hanging.
//!
//! (About 1,100 lines for one job, the fuzz loop: its options, the check of
//! one program in each engine, and the summary those checks fill; the
//! generator, the oracle and the map check live in their own modules.)

use crate::gen::{generate, GenConfig, Program};
use crate::jit::JitTarget;
use crate::map_check::{check_map, MapCheckConfig, MapCheckError};
use crate::{CheckConfig, Oracle, OracleError, OracleOptions};
use batchify_core::driver::{self, OnError, Selection};
use batchify_core::map_entry::{MapForm, MapRequest};
use batchify_core::spec::mask_abi_for;
use batchify_core::vfabi::{Isa, Param, ParamKind, VariantName};
use batchify_core::{CloneReport, CloneSpec, Error, Options};
use inkwell::context::Context;
use inkwell::module::Module;
use inkwell::values::AnyValue;
use std::collections::BTreeMap;
use std::fmt::{self, Write as _};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// What builds the N-lane clone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Engine {
    /// batchify (the thing under test).
    Batchify,
    /// A hand-written reference clone that calls the scalar function once
    /// per lane: checks the generator and the harness, not batchify.
    ScalarLoop,
    /// A reference clone that calls, once per lane, a copy of the program
    /// generated without its optional attributes
    /// ([`GenConfig::emit_attrs`] off): checks that the generator's
    /// attributes hold (a false one shows once `default<O2>` exploits it),
    /// not batchify.
    AttrCheck,
    /// batchify's masked and unmasked clones and the map entry point built
    /// on them (`batchify_core::map_entry`), checked by
    /// [`crate::map_check`] over whole arrays instead of one clone call.
    Map,
}

/// What to fuzz.
#[derive(Debug, Clone)]
pub struct FuzzOptions {
    /// Number of programs.
    pub count: usize,
    /// Seed of the first program (program `i` uses `seed + i`).
    pub seed: u64,
    /// Lanes of the clones.
    pub width: u32,
    /// Build masked clones (`<N x i1>` mask); the oracle then draws random masks.
    pub masked: bool,
    /// Fraction of programs run through LLVM's `default<O2>` before batchify.
    pub optimize_fraction: f64,
    /// Fraction of programs whose module, clone included, runs through
    /// LLVM's `default<O2>` after batchify, as a user's build of
    /// batchify's output would ([`optimize_after_batching`]).
    pub post_optimize_fraction: f64,
    /// Oracle trials per program (each is one clone call and `width` scalar calls).
    pub trials: usize,
    /// Generator bounds.
    pub gen: GenConfig,
    /// What builds the clones.
    pub engine: Engine,
    /// Failures kept (with their IR) in the summary.
    pub keep_failures: usize,
    /// Abort the process (after printing the program) if one program takes
    /// longer than this: a clone that never returns would otherwise hang the run.
    pub timeout: Option<Duration>,
    /// Worker threads (programs are independent; each has its own LLVM context).
    pub threads: usize,
    /// Keep the `default<O2>` form of optimised programs and the clone's IR
    /// in [`Checked`] (for `--dump`).
    pub keep_ir: bool,
    /// Build the clones for automatic differentiation
    /// (`batchify_core::Options::for_autodiff`).
    pub for_autodiff: bool,
    /// Target ISA of the clones: `Isa::Llvm` (target-independent, the
    /// default) or an x86 ISA (GCC's vector ABI and that ISA's lowering,
    /// such as full-width masks without AVX-512).
    pub isa: Isa,
    /// The CPU the oracle's JIT compiles for (default: `BATCHIFY_JIT_CPU`,
    /// else the host; see [`crate::jit::JitTarget`]).
    pub jit_target: JitTarget,
    /// How [`Engine::Map`]'s maps run their elements (`--map-form`).
    pub map_form: MapForm,
    /// Lane groups per trip of their refill workers (`--refill-groups`;
    /// `None`: as the driver decides).
    pub refill_groups: Option<u32>,
    /// Bucket [`Engine::Map`]'s maps (`--bucket`): LLVM's `function-attrs`
    /// infers which programs write no memory, a key of the parameters'
    /// bits ([`add_bucket_key`]) sorts them, and a program that may write
    /// memory is refused (unsupported).
    pub bucket: bool,
}

impl Default for FuzzOptions {
    fn default() -> Self {
        FuzzOptions {
            count: 1000,
            seed: 0,
            width: 8,
            masked: true,
            optimize_fraction: 0.25,
            post_optimize_fraction: 0.0,
            trials: 20,
            gen: GenConfig::default(),
            engine: Engine::Batchify,
            keep_failures: 5,
            timeout: Some(Duration::from_secs(120)),
            threads: 1,
            keep_ir: false,
            for_autodiff: false,
            isa: Isa::Llvm,
            jit_target: JitTarget::from_env(),
            map_form: MapForm::Adaptive,
            refill_groups: None,
            bucket: false,
        }
    }
}

/// The class of one program's result. Every program gets exactly one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Outcome {
    /// Batched and checked: every active lane matched.
    Ok,
    /// The oracle found a lane whose clone result differs.
    Mismatch,
    /// batchify reported an internal error (its output did not verify, or
    /// an LLVM pass failed).
    InvalidIr,
    /// batchify declined the program (`Unsupported` and other user-facing errors).
    Unsupported,
    /// The oracle could not build or run its wrappers.
    OracleSetupError,
    /// batchify (or the harness) panicked.
    Panic,
}

impl Outcome {
    /// Whether this outcome is a bug that fails a run.
    pub fn is_failure(self) -> bool {
        matches!(self, Outcome::Mismatch | Outcome::InvalidIr | Outcome::Panic)
    }

    fn name(self) -> &'static str {
        match self {
            Outcome::Ok => "ok",
            Outcome::Mismatch => "mismatch",
            Outcome::InvalidIr => "invalid IR",
            Outcome::Unsupported => "unsupported",
            Outcome::OracleSetupError => "oracle setup error",
            Outcome::Panic => "panic",
        }
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The result of checking one program.
#[derive(Debug, Clone)]
pub struct Checked {
    /// Its class.
    pub outcome: Outcome,
    /// Whether it went through `default<O2>` first.
    pub optimized: bool,
    /// Whether its module, clone included, went through `default<O2>`
    /// after batchify.
    pub post_optimized: bool,
    /// The error or mismatch, one line (empty when ok).
    pub message: String,
    /// Lanes the oracle compared.
    pub lanes_compared: usize,
    /// The module's IR after `default<O2>` (optimised programs, with
    /// [`FuzzOptions::keep_ir`]).
    pub optimized_ir: Option<String>,
    /// batchify's report on the clone, when it built one.
    pub report: Option<CloneReport>,
    /// The clone's IR (with [`FuzzOptions::keep_ir`]), when there is one.
    pub clone_ir: Option<String>,
    /// [`Engine::Map`] with a form that may refill: whether the map runs a
    /// refill worker (`Ok`, with its lane groups per trip) or why not
    /// (`Err`, the driver's note).
    pub refill: Option<Result<u32, String>>,
    /// How the program's reads of its constant tables came out
    /// ([`Engine::Batchify`] only).
    pub tables: TableReads,
}

/// The reads of a program's constant tables ([`GenConfig::p_tables`]; also
/// `default<O2>`'s switch tables, `@switch.table.*`) in the module batchify
/// gets (after `default<O2>` when optimised), and what the clone's report
/// (callee clones included) says became of them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TableReads {
    /// Loads from a table, in every function of the module.
    pub loads: usize,
    /// Report lines `table permute[, R registers]`: R of each.
    pub permutes: Vec<u32>,
    /// Table loads the report says were gathered: the table's length of each.
    pub gathers: Vec<u64>,
}

/// A table load found in a module: its function, its text, its table's length.
struct TableLoad {
    function: String,
    text: String,
    len: u64,
}

impl TableReads {
    /// The table loads of `module`.
    fn loads_of(module: &Module<'_>) -> Vec<TableLoad> {
        let text = module.print_to_string().to_string();
        // Table globals and their lengths: `@"f.table0" = ... constant [K x T] ...`.
        let mut lens: Vec<(&str, u64)> = Vec::new();
        for line in text.lines().filter(|l| l.starts_with('@') && l.contains(".table")) {
            let Some((name, def)) = line.split_once(" = ") else { continue };
            let len = def.split("constant [").nth(1).and_then(|r| r.split(" x ").next()).and_then(|k| k.parse().ok());
            if let Some(len) = len {
                lens.push((name, len));
            }
        }
        let table_of = |operands: &str| lens.iter().find(|(n, _)| operands.contains(&format!("ptr {n}"))).map(|x| x.1);
        let mut out = Vec::new();
        for f in text.split("\ndefine ").skip(1) {
            let name = f.split('@').nth(1).and_then(|n| n.split('(').next()).unwrap_or("").trim_matches('"');
            // Values that are addresses in a table, and its length.
            let mut geps: Vec<(&str, u64)> = Vec::new();
            for line in f.lines().map(str::trim) {
                let Some((lhs, rhs)) = line.split_once(" = ") else { continue };
                if rhs.starts_with("getelementptr") {
                    if let Some(len) = table_of(rhs) {
                        geps.push((lhs, len));
                    }
                } else if rhs.starts_with("load ") {
                    let ptr = rhs.split(", ptr ").nth(1).unwrap_or("");
                    let len = match geps.iter().find(|(g, _)| ptr.split(',').next() == Some(g)) {
                        Some((_, len)) => Some(*len),
                        None => table_of(rhs),
                    };
                    if let Some(len) = len {
                        out.push(TableLoad { function: name.to_string(), text: line.to_string(), len });
                    }
                }
            }
        }
        out
    }

    /// Fills in what `report` (and its callee clones) did with `loads`.
    fn count(&mut self, report: &CloneReport, loads: &[TableLoad]) {
        for what in &report.stats.memory_what {
            if let Some(rest) = what.strip_prefix("table permute") {
                let registers =
                    rest.strip_prefix(", ").and_then(|r| r.split(' ').next()).and_then(|r| r.parse().ok()).unwrap_or(1);
                self.permutes.push(registers);
            } else if what.starts_with("gather") || what.starts_with("sparse gather") {
                let inst = what.split('`').nth(1).unwrap_or("");
                if let Some(l) = loads.iter().find(|l| l.function == report.spec.scalar_name && l.text == inst) {
                    self.gathers.push(l.len);
                }
            }
        }
        for c in &report.callee_clones {
            self.count(c, loads);
        }
    }
}

/// Message prefix of programs whose clone is batchify's per-lane fallback.
const FALLBACK: &str = "per-lane fallback: ";

impl Checked {
    fn new(outcome: Outcome, optimized: bool, message: String, optimized_ir: Option<String>) -> Checked {
        Checked {
            outcome,
            optimized,
            post_optimized: false,
            message: one_line(&message),
            lanes_compared: 0,
            optimized_ir,
            report: None,
            clone_ir: None,
            refill: None,
            tables: TableReads::default(),
        }
    }
}

/// A kept failure, with what it takes to reproduce it.
#[derive(Debug, Clone)]
pub struct Failure {
    /// Its class.
    pub outcome: Outcome,
    /// The program's own seed.
    pub seed: u64,
    /// Whether it went through `default<O2>` first.
    pub optimized: bool,
    /// The error or mismatch.
    pub message: String,
    /// The generated program (before any optimisation).
    pub ir: String,
    /// A command line that reruns just this program and prints it.
    pub repro: String,
}

/// Counts of a run, and its first failures.
#[derive(Debug, Clone, Default)]
pub struct FuzzSummary {
    /// Programs run.
    pub programs: usize,
    /// Programs batched and checked without a mismatch.
    pub ok: usize,
    /// Oracle mismatches.
    pub mismatches: usize,
    /// batchify internal errors (invalid IR).
    pub invalid_ir: usize,
    /// Programs batchify declined.
    pub unsupported: usize,
    /// Oracle setup errors.
    pub oracle_setup_errors: usize,
    /// Panics.
    pub panics: usize,
    /// Programs optimised with `default<O2>` before batching.
    pub optimized: usize,
    /// Programs whose clone went through `default<O2>` after batching.
    pub post_optimized: usize,
    /// Lanes compared by the oracle, over all programs.
    pub lanes_compared: usize,
    /// Unsupported programs that batchify built as a per-lane fallback
    /// (checked by the oracle all the same).
    pub fallbacks: usize,
    /// Ok programs whose clone has divergent control flow (a divergent loop
    /// or a linearized level): the ones that exercise masks.
    pub divergent: usize,
    /// Divergent loops over all ok programs.
    pub divergent_loops: usize,
    /// Why programs were unsupported: message prefix -> count.
    pub unsupported_reasons: BTreeMap<String, usize>,
    /// Ok maps that run a refill worker ([`Checked::refill`]).
    pub refill_maps: usize,
    /// Of those, the ones whose worker runs two lane groups per trip.
    pub two_group_refill_maps: usize,
    /// Why ok maps have no refill form: reason prefix -> count.
    pub no_refill_reasons: BTreeMap<String, usize>,
    /// Programs whose module (as batchify gets it) loads from a constant
    /// table ([`TableReads`]).
    pub table_programs: usize,
    /// Table loads over all programs.
    pub table_loads: usize,
    /// Table loads the clones read by permutes: registers -> count (ok
    /// programs, callee clones included).
    pub table_permutes: BTreeMap<u32, usize>,
    /// Table loads the clones gathered: table length -> count (ok programs).
    pub table_gathers: BTreeMap<u64, usize>,
    /// The first failures (mismatch, invalid IR, panic), up to
    /// [`FuzzOptions::keep_failures`].
    pub failures: Vec<Failure>,
    /// Wall time of the run.
    pub elapsed: Duration,
}

impl FuzzSummary {
    /// Whether the run found a bug (mismatch, invalid IR or panic).
    pub fn failed(&self) -> bool {
        self.mismatches + self.invalid_ir + self.panics > 0
    }

    /// Adds another run's counts and failures to this one's (the wall
    /// times add up too).
    pub fn merge(&mut self, other: &FuzzSummary) {
        self.programs += other.programs;
        self.ok += other.ok;
        self.mismatches += other.mismatches;
        self.invalid_ir += other.invalid_ir;
        self.unsupported += other.unsupported;
        self.oracle_setup_errors += other.oracle_setup_errors;
        self.panics += other.panics;
        self.optimized += other.optimized;
        self.post_optimized += other.post_optimized;
        self.lanes_compared += other.lanes_compared;
        self.fallbacks += other.fallbacks;
        self.divergent += other.divergent;
        self.divergent_loops += other.divergent_loops;
        for (reason, n) in &other.unsupported_reasons {
            *self.unsupported_reasons.entry(reason.clone()).or_default() += n;
        }
        self.refill_maps += other.refill_maps;
        self.two_group_refill_maps += other.two_group_refill_maps;
        for (reason, n) in &other.no_refill_reasons {
            *self.no_refill_reasons.entry(reason.clone()).or_default() += n;
        }
        self.table_programs += other.table_programs;
        self.table_loads += other.table_loads;
        for (r, n) in &other.table_permutes {
            *self.table_permutes.entry(*r).or_default() += n;
        }
        for (k, n) in &other.table_gathers {
            *self.table_gathers.entry(*k).or_default() += n;
        }
        self.failures.extend(other.failures.iter().cloned());
        self.elapsed += other.elapsed;
    }

    /// Programs per second.
    pub fn rate(&self) -> f64 {
        self.programs as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }

    fn count(&mut self, c: &Checked) {
        self.programs += 1;
        self.optimized += c.optimized as usize;
        self.post_optimized += c.post_optimized as usize;
        self.lanes_compared += c.lanes_compared;
        self.table_programs += (c.tables.loads > 0) as usize;
        self.table_loads += c.tables.loads;
        for r in &c.tables.permutes {
            *self.table_permutes.entry(*r).or_default() += 1;
        }
        for k in &c.tables.gathers {
            *self.table_gathers.entry(*k).or_default() += 1;
        }
        match (&c.refill, c.outcome) {
            (Some(Ok(groups)), Outcome::Ok) => {
                self.refill_maps += 1;
                self.two_group_refill_maps += usize::from(*groups > 1);
            }
            (Some(Err(why)), Outcome::Ok) => *self.no_refill_reasons.entry(without_quotes(why)).or_default() += 1,
            _ => {}
        }
        if let Some(r) = &c.report {
            if c.outcome == Outcome::Ok {
                self.divergent += (r.stats.divergent_loops + r.stats.linearized_levels > 0) as usize;
                self.divergent_loops += r.stats.divergent_loops;
            }
        }
        match c.outcome {
            Outcome::Ok => self.ok += 1,
            Outcome::Mismatch => self.mismatches += 1,
            Outcome::InvalidIr => self.invalid_ir += 1,
            Outcome::Unsupported => {
                self.unsupported += 1;
                let key = match c.message.strip_prefix(FALLBACK) {
                    Some(why) => {
                        self.fallbacks += 1;
                        format!("{FALLBACK}{}", reason_key(why))
                    }
                    None => reason_key(&c.message),
                };
                *self.unsupported_reasons.entry(key).or_default() += 1;
            }
            Outcome::OracleSetupError => self.oracle_setup_errors += 1,
            Outcome::Panic => self.panics += 1,
        }
    }

    /// The summary line, then every kept failure with its reproduction
    /// command and IR, then the most common reasons for unsupported programs.
    pub fn report(&self) -> String {
        let mut s = format!("{self}\n");
        for f in &self.failures {
            let _ = writeln!(
                s,
                "\n{} in program seed {}{}: {}\n  reproduce: {}\n{}",
                f.outcome,
                f.seed,
                if f.optimized { " (after default<O2>)" } else { "" },
                f.message,
                f.repro,
                f.ir
            );
        }
        if self.table_programs > 0 {
            let permutes: usize = self.table_permutes.values().sum();
            let gathers: usize = self.table_gathers.values().sum();
            let by: Vec<String> = self.table_permutes.iter().map(|(r, n)| format!("{r} register(s): {n}")).collect();
            let gathered: Vec<String> = self.table_gathers.iter().map(|(k, n)| format!("K={k}: {n}")).collect();
            let _ = writeln!(
                s,
                "constant tables: {} programs read them, {} table loads; {permutes} table permutes ({}); {gathers} \
                 gathered ({}); the rest uniform, per-lane, or in programs that were not ok",
                self.table_programs,
                self.table_loads,
                if by.is_empty() { "none".to_string() } else { by.join(", ") },
                if gathered.is_empty() { "none".to_string() } else { gathered.join(", ") },
            );
        }
        if !self.unsupported_reasons.is_empty() {
            let mut reasons: Vec<(&String, &usize)> = self.unsupported_reasons.iter().collect();
            reasons.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
            let _ = writeln!(s, "unsupported, by reason:");
            for (r, n) in reasons.into_iter().take(8) {
                let _ = writeln!(s, "  {n:6}  {r}");
            }
        }
        if !self.no_refill_reasons.is_empty() {
            let mut reasons: Vec<(&String, &usize)> = self.no_refill_reasons.iter().collect();
            reasons.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
            let _ = writeln!(
                s,
                "{} maps through a refill worker ({} with two lane groups per trip); grouped maps, by reason:",
                self.refill_maps, self.two_group_refill_maps
            );
            for (r, n) in reasons.into_iter().take(8) {
                let _ = writeln!(s, "  {n:6}  {r}");
            }
        }
        s
    }
}

impl fmt::Display for FuzzSummary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} programs, {} mismatches, {} invalid IR, {} panics, {} unsupported ({} per-lane fallbacks), {} oracle \
             setup errors, {} ok ({} with divergent control flow, {} divergent loops; {} optimized with default<O2>, \
             {} through default<O2> after batching, {} lanes compared, {:.1} programs/s)",
            self.programs,
            self.mismatches,
            self.invalid_ir,
            self.panics,
            self.unsupported,
            self.fallbacks,
            self.oracle_setup_errors,
            self.ok,
            self.divergent,
            self.divergent_loops,
            self.optimized,
            self.post_optimized,
            self.lanes_compared,
            self.rate()
        )
    }
}

/// The error text up to its first quoted instruction: groups unsupported
/// programs by reason.
pub(crate) fn reason_key(message: &str) -> String {
    // "cannot batchify `f`: what": drop the function's name.
    let m = match message.find("`: ") {
        Some(i) if message.starts_with("cannot batchify") => &message[i + 3..],
        _ => message,
    };
    let head = m.split('`').next().unwrap_or(m).trim();
    head.chars().take(100).collect()
}

/// `message` with every quoted part (an instruction) shown as `` `...` ``:
/// groups reasons that name different instructions.
fn without_quotes(message: &str) -> String {
    message.split('`').enumerate().map(|(k, part)| if k % 2 == 1 { "..." } else { part }).collect::<Vec<_>>().join("`")
}

/// Seed of program `index` of a run seeded with `run_seed`.
pub fn program_seed(run_seed: u64, index: usize) -> u64 {
    run_seed.wrapping_add(index as u64)
}

pub(crate) fn mix(mut z: u64) -> u64 {
    // splitmix64's finaliser.
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Whether the program of `seed` is optimised, for a given fraction.
pub fn should_optimize(seed: u64, fraction: f64) -> bool {
    seeded_choice(seed, 0x0f7, fraction)
}

/// Whether program `seed` goes through `default<O2>` after batching, for
/// [`FuzzOptions::post_optimize_fraction`] (independent of
/// [`should_optimize`]).
pub fn should_post_optimize(seed: u64, fraction: f64) -> bool {
    seeded_choice(seed, 0x2f0, fraction)
}

/// A choice made for `fraction` of the seeds, from `seed` alone; `salt`
/// keeps different choices independent.
fn seeded_choice(seed: u64, salt: u64, fraction: f64) -> bool {
    fraction > 0.0 && ((mix(seed ^ salt) >> 11) as f64 / (1u64 << 53) as f64) < fraction
}

/// Runs LLVM's `default<O2>` on the batched module, as a user's build of
/// batchify's output would, keeping the clone (in `llvm.compiler.used`).
/// The scalar function, the oracle's reference, stays as batchify saw it
/// (`optnone noinline`): optimised, it loses what its callers promise with
/// its unused parameters (`deadargelim` drops a `dereferenceable` once a
/// dead load is gone, and the oracle sizes buffers by it, while the clone,
/// built from the original, may still read there), and inlined into the
/// clone's per-lane calls it would meet LLVM 22's SLP defect
/// (docs/limits.md).
pub fn optimize_after_batching(module: &Module<'_>, scalar: &str, clone: &str) -> Result<(), String> {
    use batchify_core::llvm::{create_enum_attribute, Module as IrModule, FUNCTION_INDEX};
    let m = IrModule::from_inkwell(module);
    let scalar = m.function(scalar).ok_or("the scalar function is missing")?;
    let clone = m.function(clone).ok_or("the clone is missing")?;
    scalar.remove_enum_attribute(FUNCTION_INDEX, "alwaysinline");
    scalar.add_attribute(FUNCTION_INDEX, create_enum_attribute(m.context(), "noinline", 0));
    scalar.add_attribute(FUNCTION_INDEX, create_enum_attribute(m.context(), "optnone", 0));
    m.append_to_compiler_used(&[clone]);
    batchify_core::llvm::run_module_passes(m, "default<O2>")?;
    module.verify().map_err(|e| e.to_string())
}

/// The `batchify-fuzz` flags that select a generator configuration, if
/// the CLI can express it: `--straight-line`, the bound flags and the
/// probability flags.
pub fn gen_flags(gen: &GenConfig) -> Option<String> {
    [(GenConfig::default(), ""), (GenConfig::straight_line(), " --straight-line")]
        .into_iter()
        .find_map(|(base, flag)| gen_flags_from(gen, &base).map(|s| format!("{flag}{s}")))
}

/// The bound and probability flags that turn `base` into `gen`, if the CLI
/// can express the difference.
pub fn gen_flags_from(gen: &GenConfig, base: &GenConfig) -> Option<String> {
    let tuned = GenConfig {
        max_depth: gen.max_depth,
        max_stmts: gen.max_stmts,
        max_total_stmts: gen.max_total_stmts,
        max_trip: gen.max_trip,
        p_array: gen.p_array,
        p_helper: gen.p_helper,
        max_helpers: gen.max_helpers,
        p_cc: gen.p_cc,
        p_tail: gen.p_tail,
        p_attrs: gen.p_attrs,
        p_ptr_helper: gen.p_ptr_helper,
        p_sret: gen.p_sret,
        p_pair_ret: gen.p_pair_ret,
        p_top_attrs: gen.p_top_attrs,
        top_level_cc: gen.top_level_cc,
        top_level_internal: gen.top_level_internal,
        p_buffers: gen.p_buffers,
        max_buffers: gen.max_buffers,
        p_uniform_param: gen.p_uniform_param,
        p_linear_param: gen.p_linear_param,
        p_record: gen.p_record,
        p_recursive: gen.p_recursive,
        p_buf_helper: gen.p_buf_helper,
        p_tables: gen.p_tables,
        // Set from the run's width (see `gen_config`).
        lanes: gen.lanes,
        ..base.clone()
    };
    if tuned != *gen {
        return None;
    }
    let mut s = String::new();
    let mut num = |name: &str, a: u32, b: u32| {
        if a != b {
            let _ = write!(s, " --{name} {a}");
        }
    };
    num("max-depth", gen.max_depth, base.max_depth);
    num("max-stmts", gen.max_stmts, base.max_stmts);
    num("max-total-stmts", gen.max_total_stmts, base.max_total_stmts);
    num("max-trip", gen.max_trip, base.max_trip);
    num("max-callees", gen.max_helpers, base.max_helpers);
    num("max-buffers", gen.max_buffers, base.max_buffers);
    for (name, a, b) in [
        ("arrays", gen.p_array, base.p_array),
        ("callees", gen.p_helper, base.p_helper),
        ("cc-fraction", gen.p_cc, base.p_cc),
        ("tail-fraction", gen.p_tail, base.p_tail),
        ("attrs", gen.p_attrs, base.p_attrs),
        ("ptr-callees", gen.p_ptr_helper, base.p_ptr_helper),
        ("sret", gen.p_sret, base.p_sret),
        ("pair-ret", gen.p_pair_ret, base.p_pair_ret),
        ("top-attrs", gen.p_top_attrs, base.p_top_attrs),
        ("buffers", gen.p_buffers, base.p_buffers),
        ("uniform-params", gen.p_uniform_param, base.p_uniform_param),
        ("linear-params", gen.p_linear_param, base.p_linear_param),
        ("records", gen.p_record, base.p_record),
        ("recursion", gen.p_recursive, base.p_recursive),
        ("buf-callees", gen.p_buf_helper, base.p_buf_helper),
        ("tables", gen.p_tables, base.p_tables),
    ] {
        if a != b {
            let _ = write!(s, " --{name} {a}");
        }
    }
    if !gen.top_level_cc {
        s.push_str(" --no-top-level-cc");
    }
    if !gen.top_level_internal {
        s.push_str(" --no-top-level-internal");
    }
    Some(s)
}

/// The `--isa` values of the ISAs the tools take, in one place.
const ISA_FLAGS: [(Isa, &str); 5] =
    [(Isa::Llvm, "llvm"), (Isa::Sse2, "sse"), (Isa::Avx, "avx"), (Isa::Avx2, "avx2"), (Isa::Avx512, "avx512")];

/// The `--isa` value of an ISA.
pub fn isa_flag(isa: Isa) -> &'static str {
    ISA_FLAGS.iter().find(|(i, _)| *i == isa).map_or("llvm", |(_, f)| f)
}

/// The ISA an `--isa` value names (`llvm`, `sse`, `avx`, `avx2`, `avx512`).
pub fn isa_from_flag(flag: &str) -> Option<Isa> {
    ISA_FLAGS.iter().find(|(_, f)| *f == flag).map(|(i, _)| *i)
}

/// The command line that reruns one program and prints it.
pub fn repro_command(seed: u64, opts: &FuzzOptions) -> String {
    let mut s = format!("batchify-fuzz --seed {seed} --count 1 --width {}", opts.width);
    if !opts.masked {
        s.push_str(" --unmasked");
    }
    let _ = write!(s, " --opt-fraction {}", opts.optimize_fraction);
    if opts.post_optimize_fraction > 0.0 {
        let _ = write!(s, " --post-opt-fraction {}", opts.post_optimize_fraction);
    }
    if opts.isa != Isa::Llvm {
        let _ = write!(s, " --isa {}", isa_flag(opts.isa));
    }
    if opts.trials != FuzzOptions::default().trials {
        let _ = write!(s, " --trials {}", opts.trials);
    }
    if let Some(cpu) = opts.jit_target.cpu {
        let _ = write!(s, " --cpu {cpu}");
    }
    if let Some(features) = opts.jit_target.features {
        let _ = write!(s, " --features {features}");
    }
    match gen_flags(&opts.gen) {
        Some(flags) => s.push_str(&flags),
        None => s.push_str(" (with the run's custom GenConfig)"),
    }
    match opts.engine {
        Engine::Batchify => {}
        Engine::ScalarLoop => s.push_str(" --self-test"),
        Engine::AttrCheck => s.push_str(" --attr-check"),
        Engine::Map => {
            s.push_str(" --map");
            if opts.map_form != MapForm::Adaptive {
                s.push_str(&format!(" --map-form {}", opts.map_form.name()));
            }
            if let Some(g) = opts.refill_groups {
                s.push_str(&format!(" --refill-groups {g}"));
            }
            if opts.bucket {
                s.push_str(" --bucket");
            }
        }
    }
    s.push_str(" --dump");
    s
}

/// The clone spec the fuzzer asks for: the parameter kinds the program
/// chose ([`Program::abi`]: varying, uniform, linear), for the run's ISA.
pub fn spec_for(program: &Program, opts: &FuzzOptions) -> CloneSpec {
    let isa = opts.isa;
    let params: Vec<ParamKind> = program.abi.iter().map(|(_, k)| *k).collect();
    let ps: Vec<Param> = params.iter().map(|&kind| Param { kind, align: None }).collect();
    CloneSpec {
        scalar_name: program.name.clone(),
        vector_name: VariantName::mangle(isa, opts.masked, opts.width, &ps, &program.name),
        width: opts.width,
        aligns: vec![None; params.len()],
        params,
        mask: opts.masked.then(|| mask_abi_for(isa)),
        isa,
    }
}

/// The generator configuration of a run: [`FuzzOptions::gen`] with
/// [`GenConfig::lanes`] set to the run's width.
pub fn gen_config(opts: &FuzzOptions) -> GenConfig {
    GenConfig { lanes: opts.width.max(1), ..opts.gen.clone() }
}

/// Generates program `seed` of a run (see [`gen_config`]).
pub fn generate_for(seed: u64, opts: &FuzzOptions) -> Program {
    generate(seed, &gen_config(opts))
}

/// IR of a reference clone named as `spec` asks: it calls the scalar
/// function once per active lane, in lane order (varying arguments from
/// their lane, uniform ones as they are, linear ones as `base + k*step`,
/// pointer steps in bytes), and assembles the results (inactive lanes:
/// poison).
pub fn scalar_loop_clone_ir(program: &Program, spec: &CloneSpec) -> String {
    let n = spec.width;
    let vt = |t: &str| format!("<{n} x {t}>");
    let mut params: Vec<String> = program
        .abi
        .iter()
        .zip(&spec.params)
        .enumerate()
        .map(|(i, ((t, _), k))| match k {
            ParamKind::Vector => format!("{} %a{i}", vt(t)),
            _ => format!("{t} %a{i}"),
        })
        .collect();
    if spec.mask.is_some() {
        params.push(format!("<{n} x i1> %mask"));
    }
    let rt = program.ret.ir();
    let mut s =
        format!("\ndefine {} @{}({}) {{\nentry:\n  br label %lane0\n", vt(rt), spec.vector_name, params.join(", "));
    let mut acc = "poison".to_string();
    for k in 0..n {
        let _ = writeln!(s, "lane{k}:");
        if spec.mask.is_some() {
            let _ = writeln!(s, "  %m.{k} = extractelement <{n} x i1> %mask, i32 {k}");
            let _ = writeln!(s, "  br i1 %m.{k}, label %call{k}, label %skip{k}");
        } else {
            let _ = writeln!(s, "  br i1 true, label %call{k}, label %skip{k}");
        }
        let _ = writeln!(s, "call{k}:");
        let mut args = Vec::new();
        for (i, ((t, _), kind)) in program.abi.iter().zip(&spec.params).enumerate() {
            let v = format!("%a{i}.{k}");
            match kind {
                ParamKind::Vector => {
                    let _ = writeln!(s, "  {v} = extractelement {} %a{i}, i32 {k}", vt(t));
                }
                ParamKind::Linear { step } if t == "ptr" => {
                    let _ = writeln!(s, "  {v} = getelementptr i8, ptr %a{i}, i64 {}", step * k as i64);
                }
                ParamKind::Linear { step } => {
                    let _ = writeln!(s, "  {v} = add {t} %a{i}, {}", step * k as i64);
                }
                _ => {
                    args.push(format!("{t} %a{i}"));
                    continue;
                }
            }
            args.push(format!("{t} {v}"));
        }
        // `noinline` at the call: inlined copies would meet LLVM 22's SLP
        // vectorizer under `default<O2>`, which miscompiles
        // `uitofp (sext i32 to i64)` into `uitofp <N x i32>`.
        let cc = if program.cc.is_empty() { String::new() } else { format!("{} ", program.cc) };
        let _ = writeln!(s, "  %r.{k} = call {cc}{rt} @{}({}) #0", program.name, args.join(", "));
        let _ = writeln!(s, "  %w.{k} = insertelement {} {acc}, {rt} %r.{k}, i32 {k}", vt(rt));
        let _ = writeln!(s, "  br label %skip{k}");
        let _ = writeln!(s, "skip{k}:");
        let _ = writeln!(s, "  %v.{k} = phi {} [ %w.{k}, %call{k} ], [ {acc}, %lane{k} ]", vt(rt));
        let next = if k + 1 < n { format!("lane{}", k + 1) } else { "done".to_string() };
        let _ = writeln!(s, "  br label %{next}");
        acc = format!("%v.{k}");
    }
    let _ = writeln!(s, "done:\n  ret {} {acc}\n}}\n\nattributes #0 = {{ noinline }}", vt(rt));
    s
}

/// IR to append to `program` for [`Engine::AttrCheck`]: `plain` (the same
/// program without optional attributes) renamed with a `ref.` prefix, and a
/// reference clone named as `spec` asks that calls it once per lane.
pub fn attr_check_ir(program: &Program, plain: &Program, spec: &CloneSpec) -> String {
    let mut s = String::from("\n");
    for line in plain.ir.lines() {
        // The intrinsic declarations are in the program already.
        if line.starts_with("declare ") || line.starts_with(';') || line.starts_with("@llvm.compiler.used") {
            continue;
        }
        s.push_str(&line.replace("@\"fuzz_", "@\"ref.fuzz_"));
        s.push('\n');
    }
    let reference = Program { name: format!("\"ref.{}\"", program.name), ..program.clone() };
    s.push_str(&scalar_loop_clone_ir(&reference, spec));
    s
}

/// Parses textual IR into a module of `ctx` (without inkwell 0.11's
/// buffer leak: see [`batchify_core::llvm::parse_ir`]).
pub fn parse_ir<'c>(ctx: &'c Context, text: &str, name: &str) -> Result<Module<'c>, String> {
    batchify_core::llvm::parse_ir(ctx, text, name)
}

/// Runs LLVM's `default<O2>` pipeline on a whole module.
pub fn optimize_o2(module: &Module<'_>) -> Result<(), String> {
    batchify_core::llvm::run_module_passes(batchify_core::llvm::Module::from_inkwell(module), "default<O2>")
}

pub(crate) fn one_line(s: &str) -> String {
    s.lines().map(str::trim).filter(|l| !l.is_empty()).collect::<Vec<_>>().join(" | ")
}

/// Checks one program (the program of `seed`, already generated).
/// Panics only if the generator produced IR that does not parse or verify
/// (a bug in [`crate::gen`], which its tests rule out).
pub fn check_program(program: &Program, seed: u64, opts: &FuzzOptions) -> Checked {
    let optimized = should_optimize(seed, opts.optimize_fraction);
    let spec = spec_for(program, opts);
    let ctx = Context::create();
    let mut text = program.ir.clone();
    match opts.engine {
        Engine::Batchify | Engine::Map => {}
        Engine::ScalarLoop => text.push_str(&scalar_loop_clone_ir(program, &spec)),
        Engine::AttrCheck => {
            let plain = generate(seed, &GenConfig { emit_attrs: false, ..gen_config(opts) });
            text.push_str(&attr_check_ir(program, &plain, &spec));
        }
    }
    let module = parse_ir(&ctx, &text, &program.name)
        .unwrap_or_else(|e| panic!("generated program (seed {seed}) does not parse: {e}\n{}", program.ir));
    if let Err(e) = module.verify() {
        panic!("generated program (seed {seed}) does not verify: {e}\n{}", program.ir);
    }
    let mut optimized_ir = None;
    if optimized {
        if let Err(e) = optimize_o2(&module).and_then(|_| module.verify().map_err(|e| e.to_string())) {
            return Checked::new(Outcome::OracleSetupError, optimized, format!("default<O2> failed: {e}"), None);
        }
        if opts.keep_ir {
            optimized_ir = Some(module.print_to_string().to_string());
        }
    }
    let fail = |outcome, message: String| Checked::new(outcome, optimized, message, optimized_ir.clone());
    if opts.engine == Engine::Map {
        let m = check_map_of(&module, &spec, seed, opts);
        return Checked {
            report: m.report,
            lanes_compared: m.elements,
            refill: m.refill,
            ..fail(m.outcome, m.message)
        };
    }
    let specs = [spec];
    let mut report = None;
    let table_loads = if opts.engine == Engine::Batchify && program.ir.contains(".table") {
        TableReads::loads_of(&module)
    } else {
        Vec::new()
    };
    let loads = table_loads.len();
    let fail = |outcome, message: String| Checked {
        tables: TableReads { loads, ..TableReads::default() },
        ..fail(outcome, message)
    };
    if opts.engine == Engine::Batchify {
        let build = Options { cost_model: false, for_autodiff: opts.for_autodiff, ..Options::default() };
        match batchify_core::batchify_inkwell(&module, &specs, &build) {
            Ok(mut reports) => report = reports.pop(),
            Err(e @ Error::Internal { .. }) => {
                let full = match &e {
                    Error::Internal { message, .. } => format!("{e}: {message}"),
                    _ => e.to_string(),
                };
                return fail(Outcome::InvalidIr, full);
            }
            Err(e) => return fail(Outcome::Unsupported, e.to_string()),
        }
    }
    if let Some(d) =
        batchify_core::vector_widths::check_module(batchify_core::llvm::Module::from_inkwell(&module)).first()
    {
        return fail(Outcome::InvalidIr, format!("calls disagree on vector registers: {d}"));
    }
    let post_optimized = opts.engine == Engine::Batchify && should_post_optimize(seed, opts.post_optimize_fraction);
    if post_optimized {
        if let Err(e) = optimize_after_batching(&module, &program.name, &specs[0].vector_name) {
            let message = format!("default<O2> after batching failed: {e}");
            return Checked { post_optimized, ..fail(Outcome::OracleSetupError, message) };
        }
    }
    let clone_ir = if opts.keep_ir {
        module.get_function(&specs[0].vector_name).map(|f| f.print_to_string().to_string())
    } else {
        None
    };
    let fail =
        |outcome, message: String| Checked { clone_ir: clone_ir.clone(), post_optimized, ..fail(outcome, message) };
    let oracle_opts = OracleOptions { jit_target: opts.jit_target, ..OracleOptions::default() };
    let oracle = match Oracle::with_options(&module, &specs, &oracle_opts) {
        Ok(o) => o,
        Err(e) => return fail(Outcome::OracleSetupError, e.to_string()),
    };
    let cfg = CheckConfig { trials: opts.trials, seed: mix(seed) };
    match oracle.check_all(&cfg) {
        Ok(stats) => {
            // A per-lane fallback clone is checked too, but it does not count
            // as vectorized.
            let fallback = report.as_ref().and_then(|r| r.fallback.clone());
            let (outcome, message) = match &fallback {
                Some(why) => (Outcome::Unsupported, format!("{FALLBACK}{why}")),
                None => (Outcome::Ok, String::new()),
            };
            let mut tables = TableReads { loads, ..TableReads::default() };
            if let Some(r) = &report {
                tables.count(r, &table_loads);
            }
            Checked { lanes_compared: stats.lanes_compared, report, tables, ..fail(outcome, message) }
        }
        Err(OracleError::Mismatch(m)) => fail(Outcome::Mismatch, m.to_string()),
        Err(e @ OracleError::Setup(_)) => fail(Outcome::OracleSetupError, e.to_string()),
    }
}

/// What [`check_map_of`] found.
struct MapChecked {
    outcome: Outcome,
    message: String,
    /// The report of the clone `spec`.
    report: Option<CloneReport>,
    /// Elements compared.
    elements: usize,
    /// See [`Checked::refill`].
    refill: Option<Result<u32, String>>,
}

/// [`Engine::Map`]: builds the map of `spec` through the driver (both
/// twins, the refill worker where [`FuzzOptions::map_form`] asks for one,
/// the map), then checks the map over whole arrays.
fn check_map_of(module: &Module<'_>, spec: &CloneSpec, seed: u64, opts: &FuzzOptions) -> MapChecked {
    let done = |outcome, message: String, report| MapChecked { outcome, message, report, elements: 0, refill: None };
    let request = MapRequest::named(spec);
    if let Err(e) = request.clones() {
        return done(Outcome::Unsupported, e.to_string(), None);
    }
    let build = Options {
        cost_model: false,
        for_autodiff: opts.for_autodiff,
        refill_groups: opts.refill_groups,
        ..Options::default()
    };
    let core = batchify_core::llvm::Module::from_inkwell(module);
    let bucket = if opts.bucket {
        if let Err(e) = batchify_core::llvm::run_module_passes(core, "function-attrs") {
            return done(Outcome::OracleSetupError, format!("function-attrs: {e}"), None);
        }
        match core.function(&spec.scalar_name) {
            Some(f) => Some(add_bucket_key(core, f)),
            None => return done(Outcome::OracleSetupError, format!("no `{}`", spec.scalar_name), None),
        }
    } else {
        None
    };
    let run = driver::Run {
        selection: Selection::Named { specs: vec![spec.clone()], only_here: false },
        on_error: OnError::Stop,
        callers: false,
        maps: true,
        map_form: opts.map_form,
        bucket,
    };
    let out = match driver::run(core, &run, &build, &mut |_| {}) {
        Ok(out) => out,
        Err(e @ Error::Internal { .. }) => return done(Outcome::InvalidIr, e.to_string(), None),
        Err(e) => return done(Outcome::Unsupported, e.to_string(), None),
    };
    let refill = (opts.map_form != MapForm::Grouped && !opts.bucket).then(|| {
        let prefix = format!("map: {} has no refill form: ", request.name);
        match out.notes.iter().find_map(|n| n.strip_prefix(&prefix)) {
            Some(why) => Err(why.to_string()),
            None => {
                let built = format!("map: {} over ", request.name);
                let two = out
                    .notes
                    .iter()
                    .any(|n| n.starts_with(&built) && n.ends_with("(refilling 2 lane groups per trip)"));
                Ok(if two { 2 } else { 1 })
            }
        }
    });
    let report = out.reports.into_iter().find(|r| r.spec.vector_name == spec.vector_name);
    if let Err(e) = module.verify() {
        return done(Outcome::InvalidIr, format!("the map does not verify: {e}"), report);
    }
    let cfg = MapCheckConfig {
        trials: opts.trials.max(8),
        seed: mix(seed),
        jit_target: opts.jit_target,
        // Thousands of elements: only where the adaptive driver or
        // bucketing windows are tested.
        probe_size: opts.map_form == MapForm::Adaptive || opts.bucket,
        ..MapCheckConfig::default()
    };
    let (outcome, message, elements) = match check_map(module, &request, &cfg) {
        Ok(stats) => match report.as_ref().and_then(|r| r.fallback.clone()) {
            Some(why) => (Outcome::Unsupported, format!("{FALLBACK}{why}"), stats.elements),
            None => (Outcome::Ok, String::new(), stats.elements),
        },
        Err(MapCheckError::Mismatch(m)) => (Outcome::Mismatch, m, 0),
        Err(e @ MapCheckError::Setup(_)) => (Outcome::OracleSetupError, e.to_string(), 0),
    };
    MapChecked { outcome, message, report, elements, refill }
}

/// The name of the key [`add_bucket_key`] adds.
pub const BUCKET_KEY: &str = "__fuzz_bucket_key";

/// Adds [`BUCKET_KEY`] to `module`, a `memory(none)` key of `f`'s
/// parameters for a bucketed map: the bits of its integer, floating-point
/// and pointer parameters mixed, in 0..511 (so that keys past the last
/// bucket occur), `0` for parameters of other types. Returns its name.
pub fn add_bucket_key(module: batchify_core::llvm::Module<'_>, f: batchify_core::llvm::Value<'_>) -> String {
    use batchify_core::llvm::{constant, create_enum_attribute, Builder, LLVMOpcode::*, LLVMTypeKind, Type};
    let ctx = module.context();
    let i32t = Type::int(ctx, 32);
    let i64t = Type::int(ctx, 64);
    let fty = f.function_type();
    let key = module.add_function(BUCKET_KEY, Type::function(i32t, &fty.param_types()));
    key.add_attribute(batchify_core::llvm::FUNCTION_INDEX, create_enum_attribute(ctx, "memory", 0));
    let b = Builder::new(ctx);
    b.position_at_end(key.append_block("entry"));
    let mut acc = constant::int(i64t, 0x9e37_79b9);
    for p in key.params() {
        let t = p.ty();
        let bits = match t.kind() {
            LLVMTypeKind::LLVMIntegerTypeKind if t.int_width() < 64 => b.cast(LLVMZExt, p, i64t),
            LLVMTypeKind::LLVMIntegerTypeKind if t.int_width() > 64 => b.cast(LLVMTrunc, p, i64t),
            LLVMTypeKind::LLVMIntegerTypeKind => p,
            LLVMTypeKind::LLVMPointerTypeKind => b.cast(LLVMPtrToInt, p, i64t),
            LLVMTypeKind::LLVMFloatTypeKind => b.cast(LLVMZExt, b.cast(LLVMBitCast, p, i32t), i64t),
            LLVMTypeKind::LLVMDoubleTypeKind => b.cast(LLVMBitCast, p, i64t),
            _ => continue,
        };
        acc = b.binop(LLVMMul, b.binop(LLVMXor, acc, bits), constant::int(i64t, 0x2545_f491_4f6c_dd1d));
    }
    let k = b.binop(LLVMLShr, acc, constant::int(i64t, 55));
    b.ret(Some(b.cast(LLVMTrunc, k, i32t)));
    BUCKET_KEY.to_string()
}

/// Generates and checks program `seed`, turning a panic into [`Outcome::Panic`].
/// Should LLVM abort the process (`LLVM ERROR: ...`), the program's seed
/// and reproduction command are printed first.
pub fn check_seed(seed: u64, opts: &FuzzOptions) -> (Program, Checked) {
    let _current = CurrentProgram::enter(repro_command(seed, opts));
    let program = generate_for(seed, opts);
    let optimized = should_optimize(seed, opts.optimize_fraction);
    let checked = catch_unwind(AssertUnwindSafe(|| check_program(&program, seed, opts))).unwrap_or_else(|p| {
        let msg = p
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_else(|| "non-string panic payload".into());
        Checked::new(Outcome::Panic, optimized, msg, None)
    });
    (program, checked)
}

/// Runs the fuzzer.
pub fn run(opts: &FuzzOptions) -> FuzzSummary {
    run_with_progress(opts, 0, &mut |_| {})
}

/// Runs the fuzzer, calling `progress` each time another `every` programs
/// are done (never if 0). Programs are spread over [`FuzzOptions::threads`]
/// worker threads; the counts do not depend on the number of threads, and
/// the kept failures are those of the lowest program indices.
pub fn run_with_progress(opts: &FuzzOptions, every: usize, progress: &mut dyn FnMut(&FuzzSummary)) -> FuzzSummary {
    let start = Instant::now();
    let summary = Mutex::new(FuzzSummary::default());
    let failures: Mutex<Vec<(usize, Failure)>> = Mutex::new(Vec::new());
    let check = |i: usize, seed: u64| {
        let (program, checked) = check_seed(seed, opts);
        if checked.outcome.is_failure() {
            let failure = Failure {
                outcome: checked.outcome,
                seed,
                optimized: checked.optimized,
                message: checked.message.clone(),
                ir: program.ir,
                repro: repro_command(seed, opts),
            };
            keep_failure(&failures, i, failure, opts.keep_failures);
        }
        lock(&summary).count(&checked);
    };
    let stuck = |seed: u64| {
        format!(
            "batchify-fuzz: program seed {seed} still running after {:?} (a clone or scalar function that never \
             returns?); aborting.\n  reproduce: {}\n{}",
            opts.timeout.unwrap_or_default(),
            repro_command(seed, opts),
            generate_for(seed, opts).ir
        )
    };
    let mut report = || {
        let mut snapshot = lock(&summary).clone();
        snapshot.elapsed = start.elapsed();
        progress(&snapshot);
    };
    for_each_program(opts, every, &check, &mut report, &stuck);
    let mut s = summary.into_inner().unwrap_or_else(|e| e.into_inner());
    s.failures = failures.into_inner().unwrap_or_else(|e| e.into_inner()).into_iter().map(|(_, f)| f).collect();
    s.elapsed = start.elapsed();
    s
}

/// Adds failure `f` of program `i` to `kept`, keeping the `keep` of the
/// lowest program indices.
pub(crate) fn keep_failure<F>(kept: &Mutex<Vec<(usize, F)>>, i: usize, f: F, keep: usize) {
    let mut kept = lock(kept);
    kept.push((i, f));
    kept.sort_by_key(|(i, _)| *i);
    kept.truncate(keep);
}

/// Spreads programs `0..opts.count` over [`FuzzOptions::threads`] worker
/// threads, calling `check(i, seed)` for program `i` (seed
/// [`program_seed`]), and `progress()` each time another `every` programs
/// are done (never if 0). With [`FuzzOptions::timeout`], this thread
/// watches the workers: a program still running past the limit prints
/// `stuck(seed)` and aborts the process (a clone that never returns
/// cannot be interrupted in process).
pub(crate) fn for_each_program(
    opts: &FuzzOptions,
    every: usize,
    check: &(dyn Fn(usize, u64) + Sync),
    progress: &mut dyn FnMut(),
    stuck: &(dyn Fn(u64) -> String + Sync),
) {
    let threads = opts.threads.clamp(1, opts.count.max(1));
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    let finished = AtomicUsize::new(0);
    // What each worker is checking, and since when (for the timeout).
    let running: Vec<Mutex<Option<(Instant, u64)>>> = (0..threads).map(|_| Mutex::new(None)).collect();
    std::thread::scope(|scope| {
        for slot in &running {
            let (next, done, finished) = (&next, &done, &finished);
            scope.spawn(move || {
                loop {
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    if i >= opts.count {
                        break;
                    }
                    let seed = program_seed(opts.seed, i);
                    *lock(slot) = Some((Instant::now(), seed));
                    check(i, seed);
                    *lock(slot) = None;
                    done.fetch_add(1, Ordering::SeqCst);
                }
                finished.fetch_add(1, Ordering::SeqCst);
            });
        }
        // This thread reports progress and watches for programs that never end.
        let mut reported = 0;
        loop {
            let all_done = finished.load(Ordering::SeqCst) == threads;
            let programs = done.load(Ordering::SeqCst);
            if every > 0 && programs >= reported + every {
                reported = programs - programs % every;
                progress();
            }
            if all_done {
                break;
            }
            if let Some(limit) = opts.timeout {
                for slot in &running {
                    if let Some((since, seed)) = *lock(slot) {
                        if since.elapsed() > limit {
                            eprintln!("{}", stuck(seed));
                            std::process::abort();
                        }
                    }
                }
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    });
}

pub(crate) fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// The programs being checked right now, per thread, for the LLVM
/// fatal-error handler (LLVM exits the process after calling it).
static CURRENT: Mutex<Vec<(std::thread::ThreadId, String)>> = Mutex::new(Vec::new());

fn on_llvm_fatal_error(reason: &str) {
    eprintln!("LLVM ERROR: {reason}");
    if let Ok(current) = CURRENT.try_lock() {
        for (_, repro) in current.iter() {
            eprintln!("batchify-fuzz: LLVM aborted while checking a program; reproduce: {repro}");
        }
    }
}

/// Registers the current thread's program for the fatal-error handler
/// (installed once per process) until dropped.
pub(crate) struct CurrentProgram;

impl CurrentProgram {
    pub(crate) fn enter(repro: String) -> CurrentProgram {
        // Installed by the first call only; the handler only formats and prints.
        batchify_core::llvm::install_fatal_error_handler(on_llvm_fatal_error);
        let id = std::thread::current().id();
        let mut current = CURRENT.lock().unwrap_or_else(|e| e.into_inner());
        current.retain(|(t, _)| *t != id);
        current.push((id, repro));
        CurrentProgram
    }
}

impl Drop for CurrentProgram {
    fn drop(&mut self) {
        let id = std::thread::current().id();
        CURRENT.lock().unwrap_or_else(|e| e.into_inner()).retain(|(t, _)| *t != id);
    }
}
