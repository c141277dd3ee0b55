//! `batchify`: the command-line front door.
//!
//! Reads a module (textual or binary IR, told apart by content; at most
//! `--max-input-bytes`, `input.rs`), builds the requested clones, and writes
//! the module atomically (a temporary file in the output's folder, renamed
//! on success), so an error never leaves a half-written output. The LLVM
//! work runs in a worker process (`isolation.rs`), so that a crash inside
//! LLVM's reader on a corrupt file is still reported. Every error is one
//! line on stderr and exit code 1.

// Links libLLVM-22 into the binary.
use batchify_llvm_link as _;

mod input;
mod isolation;

use batchify_core::driver::{self, MapForm, OnError, Selection};
use batchify_core::vfabi::{Isa, VariantName};
use batchify_core::{CloneSpec, Options, PrintAfter, VecLib};
use clap::{Parser, ValueEnum};
use inkwell::context::Context;
use inkwell::memory_buffer::MemoryBuffer;
use inkwell::module::Module;
use isolation::Sink;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Turn scalar LLVM IR functions into N-lane SIMD clones.
#[derive(Parser, Debug)]
#[command(name = "batchify", version, about, long_about = None)]
struct Cli {
    /// Input module (`.bc` or `.ll`; the format is detected from the
    /// content; `-` for standard input).
    #[arg(required_unless_present = "print_header")]
    input: Option<PathBuf>,
    /// Output module (`-` for standard output). Bitcode, unless `-S` is given or the name ends in `.ll`.
    #[arg(short = 'o', long = "output", required_unless_present = "print_header")]
    output: Option<PathBuf>,
    /// Print `batchify.h`, the C header of the cross-lane operations
    /// (docs/cross-lane.md), on standard output, and exit.
    #[arg(long = "print-header")]
    print_header: bool,
    /// Number of lanes for `--function` clones. Default 8; with
    /// `--for-autodiff` on an x86 ISA, the lanes that fill one register
    /// with the function's characteristic type (4 doubles on AVX2).
    #[arg(short = 'n', long = "lanes", value_parser = clap::value_parser!(u32).range(1..=1024))]
    lanes: Option<u32>,
    /// Batch this function with every parameter varying (repeatable).
    #[arg(long = "function", value_name = "NAME")]
    functions: Vec<String>,
    /// Build this Vector Function ABI variant, e.g. `_ZGVdN8uuv_smoothstep` (repeatable).
    #[arg(long = "variant", value_name = "VFABI_NAME")]
    variants: Vec<String>,
    /// Target ISA of `--function` clones (`sve`: scalable, `-n` does not
    /// apply).
    #[arg(long = "isa", value_enum, default_value_t = IsaArg::Generic)]
    isa: IsaArg,
    /// Optimisation level of the clones (`-O0` .. `-O3`).
    #[arg(short = 'O', default_value_t = 2, value_parser = clap::value_parser!(u8).range(0..=3))]
    opt_level: u8,
    /// Write textual IR.
    #[arg(short = 'S')]
    text: bool,
    /// Print what was done for each clone on stderr.
    #[arg(long = "report")]
    report: bool,
    /// Fail instead of building a per-lane loop when a function holds
    /// something the vectorizer does not handle yet.
    #[arg(long = "no-fallback")]
    no_fallback: bool,
    /// Build the vector form even where the cost model estimates the
    /// per-lane loop faster (the estimate stays in `--report`); functions
    /// the vectorizer cannot handle still get the per-lane loop.
    #[arg(long = "no-cost-model")]
    no_cost_model: bool,
    /// Build clones that count each divergent loop's trips and active
    /// lanes (and adaptive maps that count their choices) and print the
    /// lanes' utilisation at exit, to standard error or appended to the
    /// file named by `BATCHIFY_LANES_FILE` (docs/cli.md, "Lane utilisation").
    #[arg(long = "instrument-lanes")]
    instrument_lanes: bool,
    /// Also build `<function>_map(n, arrays..., out)` for each clone named by
    /// `--function` or `--variant`: the clone applied to `n` elements of
    /// arrays, the tail with its masked twin (docs/cli.md, "Maps").
    #[arg(long = "map")]
    map: bool,
    /// How maps run their elements: `adaptive` (time both forms on the
    /// input and run the faster), `refill` (lanes that finish take the next
    /// element at once) or `grouped` (one clone call per `N` elements).
    /// Functions that write memory or have no single outermost loop are
    /// always grouped.
    #[arg(long = "map-form", value_name = "FORM", default_value = "adaptive", value_parser = parse_map_form)]
    map_form: MapForm,
    /// Bucket the maps' elements by the key function KEY (same parameters
    /// as the function, an integer result, no memory written by either):
    /// each window of 4096 elements is sorted by key before it runs in
    /// groups, results in their own places (docs/cli.md, "Bucketed maps").
    #[arg(long = "bucket", value_name = "KEY")]
    bucket: Option<String>,
    /// Lane groups of the map's width that a refilling map runs per trip
    /// (1 or 2); by default two where the cost model finds the loop
    /// latency-bound and a group's values fill one register.
    #[arg(long = "refill-groups", value_name = "G", value_parser = clap::value_parser!(u32).range(1..=2))]
    refill_groups: Option<u32>,
    /// Print each clone's analyses on stderr: every instruction's uniformity,
    /// the loops, and the control plan of each level.
    #[arg(long = "print-analysis")]
    print_analysis: bool,
    /// Print each clone's plan on stderr: every instruction's recipe (the
    /// form it takes in the clone) and every block's mask.
    #[arg(long = "print-plan")]
    print_plan: bool,
    /// Print the IR after a stage on stderr: `prepare` (the normalised copy
    /// of the scalar function), `emit` (the clone as built), `finish` (the
    /// optimised clone) or `all`.
    #[arg(long = "print-after", value_name = "STAGE", value_parser = parse_stage)]
    print_after: Option<PrintAfter>,
    /// Vector math library for functions that are not correctly rounded
    /// (`exp`, `log`, `sin`, `pow`, ...): `none` (exact: one scalar call per
    /// lane), `libmvec` (x86-64: glibc's `_ZGV*` functions, at most 4 ulp
    /// from the exact result) or `sleef` (AArch64 Advanced SIMD clones:
    /// libsleefgnuabi's `_ZGVn*` functions, at most 1 ulp; link with
    /// `-lsleefgnuabi`); `--report` lists the calls
    #[arg(long = "veclib", value_name = "LIB", default_value = "none", value_parser = parse_veclib)]
    veclib: VecLib,
    /// Do not annotate the module's calls of `declare simd` functions with
    /// their variants (`vector-function-abi-variant`, declarations and
    /// adapters kept in `llvm.compiler.used`), which LLVM's loop vectorizer
    /// then calls.
    #[arg(long = "no-callers")]
    no_callers: bool,
    /// Only replace the module's vector math intrinsics (`llvm.log.v4f64`,
    /// ...) with calls of the `--veclib` library's vector functions, for
    /// each function's target: the step after Enzyme for `--for-autodiff`
    /// clones (docs/autodiff.md). Builds no clone; needs `--veclib
    /// libmvec` (or `sleef`).
    #[arg(long = "lower-vector-math", conflicts_with_all = ["functions", "variants", "for_autodiff", "map"])]
    lower_vector_math: bool,
    /// Build clones that Enzyme can differentiate (docs/autodiff.md): lanes
    /// that left a divergent loop hold their values, no gathers/scatters.
    #[arg(long = "for-autodiff")]
    for_autodiff: bool,
    /// Largest input read, in bytes (a larger file, or a pipe or device
    /// that gives more, is an error).
    #[arg(long = "max-input-bytes", value_name = "N", default_value_t = input::DEFAULT_MAX_BYTES)]
    max_input_bytes: u64,
}

fn parse_map_form(s: &str) -> Result<MapForm, String> {
    MapForm::parse(s).ok_or_else(|| format!("unknown map form `{s}` (expected adaptive, refill or grouped)"))
}

fn parse_veclib(s: &str) -> Result<VecLib, String> {
    VecLib::parse(s).ok_or_else(|| format!("unknown vector math library `{s}` (expected none, libmvec or sleef)"))
}

fn parse_stage(s: &str) -> Result<PrintAfter, String> {
    PrintAfter::parse(s).ok_or_else(|| format!("unknown stage `{s}` (expected prepare, emit, finish or all)"))
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum IsaArg {
    Sse,
    Avx,
    Avx2,
    Avx512,
    /// AArch64 Advanced SIMD (`_ZGVn…`, 128-bit).
    Neon,
    /// AArch64 SVE, scalable length (`_ZGVsNx…`; `-n` does not apply).
    Sve,
    Generic,
}

impl From<IsaArg> for Isa {
    fn from(i: IsaArg) -> Isa {
        match i {
            IsaArg::Sse => Isa::Sse2,
            IsaArg::Avx => Isa::Avx,
            IsaArg::Avx2 => Isa::Avx2,
            IsaArg::Avx512 => Isa::Avx512,
            IsaArg::Neon => Isa::AdvSimd,
            IsaArg::Sve => Isa::Sve,
            IsaArg::Generic => Isa::Llvm,
        }
    }
}

/// The C header of the cross-lane operations, as installed with the tools.
const BATCHIFY_H: &str = include_str!("../../../include/batchify.h");

impl Cli {
    /// The input module's path (clap requires it unless `--print-header`).
    fn input(&self) -> &Path {
        self.input.as_deref().expect("clap requires an input")
    }

    /// The output module's path (clap requires it unless `--print-header`).
    fn output(&self) -> &Path {
        self.output.as_deref().expect("clap requires an output")
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    if cli.print_header {
        print!("{BATCHIFY_H}");
        return ExitCode::SUCCESS;
    }
    if std::env::var_os(isolation::WORKER_ENV).is_some() {
        return worker_main(&cli);
    }
    let input = match input::read_bounded(cli.input(), cli.max_input_bytes) {
        Ok(bytes) => bytes,
        Err(msg) => return fail(&msg),
    };
    if std::env::var_os(isolation::IN_PROCESS_ENV).is_some() {
        return in_process(&cli, &input);
    }
    let worker = match isolation::run_worker(&input) {
        Ok(w) => w,
        // No process to isolate the work in: do it here.
        Err(_) => return in_process(&cli, &input),
    };
    let shown = cli.input().display().to_string();
    if let Some(msg) = isolation::crash_message(&shown, &worker) {
        if std::env::var_os(isolation::CRASH_OUTPUT_ENV).is_some() {
            let _ = std::io::stderr().write_all(&worker.stderr);
        }
        return fail(&msg);
    }
    if let (Some(0), Some(bytes)) = (worker.code, &worker.output) {
        if let Err(msg) = write_output(bytes, cli.output()) {
            return fail(&msg);
        }
    }
    let _ = std::io::stderr().write_all(&worker.stderr);
    if worker.code == Some(0) {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// Prints the one error line and returns the failure exit code.
fn fail(msg: &str) -> ExitCode {
    eprintln!("batchify: error: {msg}");
    ExitCode::FAILURE
}

/// The worker (`isolation.rs`): the input's bytes on standard input, frames
/// on standard output, messages on standard error.
fn worker_main(cli: &Cli) -> ExitCode {
    use std::io::Read;
    let mut input = Vec::new();
    if let Err(e) = std::io::stdin().read_to_end(&mut input) {
        return fail(&format!("cannot read `{}`: {e}", cli.input().display()));
    }
    work_and_report(cli, &input, &mut isolation::Frames)
}

/// Everything in this process, writing the output itself.
fn in_process(cli: &Cli, input: &[u8]) -> ExitCode {
    let mut sink = isolation::Collected::default();
    let code = work_and_report(cli, input, &mut sink);
    match sink.output {
        Some(bytes) if code == ExitCode::SUCCESS => match write_output(&bytes, cli.output()) {
            Ok(()) => code,
            Err(msg) => fail(&msg),
        },
        _ => code,
    }
}

/// Runs the work, then prints its report lines (with `--report`) or its
/// error line.
fn work_and_report(cli: &Cli, input: &[u8], sink: &mut dyn Sink) -> ExitCode {
    match run(cli, input, sink) {
        Ok(lines) => {
            if cli.report {
                let mut err = std::io::stderr().lock();
                for l in lines {
                    let _ = writeln!(err, "batchify: {l}");
                }
            }
            ExitCode::SUCCESS
        }
        Err(msg) => fail(&msg),
    }
}

fn first_line(s: &str) -> &str {
    s.lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or("unknown error")
}

/// Reads a module from textual or binary IR, detected by content.
fn read_module<'c>(ctx: &'c Context, path: &Path, bytes: &[u8], sink: &mut dyn Sink) -> Result<Module<'c>, String> {
    let is_bitcode = bytes.starts_with(b"BC\xC0\xDE") || bytes.starts_with(&[0xDE, 0xC0, 0x17, 0x0B]);
    sink.stage(if is_bitcode { "reading the bitcode" } else { "reading the textual IR" });
    let buf = MemoryBuffer::create_from_memory_range_copy(bytes, &path.to_string_lossy());
    let parsed = if is_bitcode {
        Module::parse_bitcode_from_buffer(&buf, ctx).map_err(|e| e.to_string())
    } else {
        if std::str::from_utf8(bytes).is_err() {
            return Err(format!("`{}` is neither LLVM bitcode nor textual IR", path.display()));
        }
        ctx.create_module_from_ir(buf).map_err(|e| e.to_string())
    };
    let kind = if is_bitcode { "bitcode" } else { "textual IR" };
    let module = parsed.map_err(|e| format!("cannot parse `{}` as LLVM {kind}: {}", path.display(), first_line(&e)))?;
    // Reject invalid input up front, so that verifier failures later on are
    // batchify's own bugs and are reported as such.
    sink.stage("verifying the module");
    module
        .verify()
        .map_err(|e| format!("`{}` is not valid LLVM IR: {}", path.display(), first_line(&e.to_string())))?;
    Ok(module)
}

/// The clones the command line names, or `None` to build the ones the
/// module asks for.
fn named_specs(cli: &Cli, module: &Module<'_>) -> Result<Option<Vec<CloneSpec>>, String> {
    if cli.functions.is_empty() && cli.variants.is_empty() {
        return Ok(None);
    }
    let mut specs = Vec::new();
    for name in &cli.functions {
        let fty = batchify_core::llvm::Module::from_inkwell(module)
            .function(name)
            .map(|f| f.function_type())
            .ok_or_else(|| format!("unknown function `{name}`: no function of that name in the module"))?;
        let core = batchify_core::llvm::Module::from_inkwell(module);
        let lanes = driver::function_lanes(core, fty, cli.isa.into(), cli.for_autodiff, cli.lanes);
        specs.push(CloneSpec::all_varying_for(name, fty, lanes, cli.isa.into()).map_err(|e| e.to_string())?);
    }
    for name in &cli.variants {
        let v = VariantName::parse(name).map_err(|e| e.to_string())?;
        let spec = CloneSpec::for_variant_in(&v, batchify_core::llvm::Module::from_inkwell(module));
        specs.push(spec.map_err(|e| e.to_string())?);
    }
    Ok(Some(specs))
}

/// Reads, batches and serializes the module (sent to `sink`); returns the
/// report lines.
fn run(cli: &Cli, input: &[u8], sink: &mut dyn Sink) -> Result<Vec<String>, String> {
    let ctx = Context::create();
    let module = read_module(&ctx, cli.input(), input, sink)?;
    if cli.lower_vector_math {
        return lower_vector_math(cli, &module, sink);
    }
    let selection = match named_specs(cli, &module)? {
        Some(specs) => Selection::Named { specs, only_here: false },
        None => Selection::Requested { isa: None, only_here: false },
    };
    let requested = matches!(selection, Selection::Requested { .. });
    if cli.map && requested {
        return Err("--map builds the maps of the clones named by --function or --variant; none is named".into());
    }
    let opts = Options {
        opt_level: cli.opt_level,
        allow_fallback: !cli.no_fallback,
        print_analysis: cli.print_analysis,
        print_plan: cli.print_plan,
        print_after: cli.print_after,
        veclib: cli.veclib,
        cost_model: !cli.no_cost_model,
        instrument_lanes: cli.instrument_lanes,
        for_autodiff: cli.for_autodiff,
        refill_groups: cli.refill_groups,
        ..Options::default()
    };
    let plan = driver::Run {
        selection,
        on_error: OnError::Stop,
        callers: !cli.no_callers,
        maps: cli.map,
        map_form: cli.map_form,
        bucket: cli.bucket.clone(),
    };
    let mut progress = |s: &CloneSpec| sink.stage(&format!("batching `{}` as `{}`", s.scalar_name, s.vector_name));
    let core = batchify_core::llvm::Module::from_inkwell(&module);
    let out = driver::run(core, &plan, &opts, &mut progress).map_err(|e| e.to_string())?;
    if requested && out.nothing_asked {
        if !out.declares_variants {
            return Err("nothing to batchify: pass --function NAME or --variant VFABI_NAME, mark functions \
                        with `#pragma omp declare simd`, or call `__enzyme_batch`"
                .into());
        }
        eprintln!(
            "batchify: note: no clone to build: the module only declares `declare simd` functions (their bodies \
             are in another module)"
        );
    }
    for text in out.reports.iter().flat_map(|r| &r.printed) {
        eprintln!("{text}");
    }
    for w in &out.warnings {
        eprintln!("batchify: warning: {w}");
    }
    for (_, kind, message) in &out.missed {
        if *kind == "PerLaneFallback" {
            eprintln!("batchify: warning: {message}");
        }
    }
    sink.stage("serializing the module");
    sink.output(serialize(&module, cli.output(), cli.text));
    for r in &out.reports {
        if let Some(why) = &r.fallback {
            eprintln!(
                "batchify: warning: `{}` -> `{}` is a per-lane loop over the scalar function: {why}",
                r.spec.scalar_name, r.spec.vector_name
            );
        }
    }
    Ok(out.reports.iter().flat_map(|r| r.lines()).chain(out.notes).collect())
}

/// `--lower-vector-math`: the module's vector math intrinsics to library
/// calls ([`driver::lower_vector_math`]); returns the report lines.
fn lower_vector_math(cli: &Cli, module: &Module<'_>, sink: &mut dyn Sink) -> Result<Vec<String>, String> {
    if cli.veclib == VecLib::None {
        return Err("--lower-vector-math needs a vector math library: --veclib libmvec (or sleef)".into());
    }
    sink.stage("lowering the vector math intrinsics");
    let core = batchify_core::llvm::Module::from_inkwell(module);
    let lowered = driver::lower_vector_math(core, cli.veclib).map_err(|e| e.to_string())?;
    sink.stage("serializing the module");
    sink.output(serialize(module, cli.output(), cli.text));
    let mut lines = vec![format!("lowered {} vector math call(s) to {}", lowered.calls, cli.veclib.name())];
    lines.extend(lowered.lines);
    lines.extend(lowered.kept.into_iter().map(|k| format!("kept {k}")));
    Ok(lines)
}

/// `path` with every symbolic link at its end followed (at most 40, as the
/// kernel does); a dangling link gives the path it names.
fn resolve_links(path: &Path) -> PathBuf {
    let mut p = path.to_path_buf();
    for _ in 0..40 {
        match std::fs::read_link(&p) {
            Ok(next) => {
                p = match p.parent() {
                    Some(dir) if next.is_relative() => dir.join(next),
                    _ => next,
                }
            }
            Err(_) => break,
        }
    }
    p
}

/// The module as textual IR (`-S`, or an output named `*.ll`) or bitcode.
fn serialize(module: &Module<'_>, out: &Path, force_text: bool) -> Vec<u8> {
    if force_text || out.extension().is_some_and(|e| e == "ll") {
        module.print_to_string().to_bytes().to_vec()
    } else {
        module.write_bitcode_to_memory().as_slice().to_vec()
    }
}

/// Writes the output atomically: to a temporary file beside it, then
/// renamed over it.
fn write_output(bytes: &[u8], out: &Path) -> Result<(), String> {
    if out.as_os_str() == "-" {
        return std::io::stdout().lock().write_all(bytes).map_err(|e| format!("cannot write to standard output: {e}"));
    }
    // A device or pipe (`/dev/null`, a FIFO) is written in place: renaming a
    // file over it would replace the device.
    if std::fs::metadata(out).is_ok_and(|m| !m.is_file() && !m.is_dir()) {
        return std::fs::OpenOptions::new()
            .write(true)
            .open(out)
            .and_then(|mut f| f.write_all(bytes))
            .map_err(|e| format!("cannot write `{}`: {e}", out.display()));
    }
    // A symbolic link keeps pointing where it did: the file it names (which
    // may not exist yet) is the one replaced.
    let target = resolve_links(out);
    let out = target.as_path();
    let dir = match out.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let fail = |e: &dyn std::fmt::Display| format!("cannot write `{}`: {e}", out.display());
    // Mode 0666 before the umask, like any file a compiler writes.
    use std::os::unix::fs::PermissionsExt;
    let mut tmp = tempfile::Builder::new()
        .prefix(".batchify-")
        .permissions(std::fs::Permissions::from_mode(0o666))
        .tempfile_in(&dir)
        .map_err(|e| fail(&e))?;
    tmp.write_all(bytes).map_err(|e| fail(&e))?;
    tmp.persist(out).map_err(|e| fail(&e.error))?;
    Ok(())
}
