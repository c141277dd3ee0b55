//! `batchify-sweep`: every defined function of real C and Rust code bases,
//! batched at AVX2 ×8 and AVX-512 ×16, masked and unmasked, and checked by
//! the oracle. See `docs/sweep.md`; `cargo xtask sweep` builds this in
//! release mode and runs it.
//!
//! ```text
//! batchify-sweep [--quick] [--jobs N] [--out DIR] [--only CODEBASE]... [--trials T]
//!                [--oracle-timeout S] [--batchify-timeout S] [--chunk N]
//! batchify-sweep --one MODULE.bc [--codebase C] [--level L] [--function NAME] [--variant CLONE]
//! ```
//!
//! The first form fetches and builds the code bases under `DIR` (default
//! `target/sweep`), runs every function in child processes (`--one` with
//! the protocol flags), writes `DIR/report.md` and `DIR/runs.jsonl`, prints
//! the report, and exits 1 if any run failed (internal error, panic, crash,
//! invalid IR, clone without a body, batchify timeout, oracle mismatch).
//! The second form reruns functions of one module and prints one readable
//! line per run: the repro command of a failure.

use batchify_testkit::sweep::{self, ChildArgs, InputConfig, SweepConfig};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

const USAGE: &str = "usage: batchify-sweep [--quick] [--jobs N] [--out DIR] [--only CODEBASE]... [--trials T]
                      [--oracle-timeout S] [--batchify-timeout S] [--chunk N] [--build-only]
       batchify-sweep --one MODULE.bc [--codebase C] [--level L] [--function NAME] [--variant CLONE] [--trials T]

  --quick               the bounded subset: zlib at -O2 and the Rust crates fastrand, itoa, ryu at opt-level 2
  --jobs N              child processes at once (default: available CPUs)
  --out DIR             work and output folder (default: target/sweep of the workspace)
  --only CODEBASE       only this code base (zlib, lz4, newlib-libm, libm, fastrand, regex-syntax, itoa, ryu); repeatable
  --trials T            oracle trials per run (default 16)
  --oracle-timeout S    seconds before one oracle check counts as a timeout (default 10)
  --batchify-timeout S  seconds before batchify on one variant counts as hung (default 60)
  --chunk N             functions per child process (default 64)
  --build-only          fetch and build the code bases, then stop
  --one MODULE.bc       run the functions of one module in this process and print one line per run";

fn value<T: std::str::FromStr>(flag: &str, v: Option<String>) -> Result<T, String> {
    let v = v.ok_or_else(|| format!("{flag} needs a value"))?;
    v.parse().map_err(|_| format!("{flag}: cannot parse `{v}`"))
}

fn workspace_root() -> PathBuf {
    // crates/batchify-testkit -> the workspace.
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    manifest.parent().and_then(|p| p.parent()).map(PathBuf::from).unwrap_or(manifest)
}

fn main() -> ExitCode {
    match real_main() {
        Ok(code) => code,
        Err(e) => {
            eprintln!("batchify-sweep: error: {e}");
            ExitCode::from(2)
        }
    }
}

fn real_main() -> Result<ExitCode, String> {
    let mut args = std::env::args().skip(1);
    let mut child = ChildArgs { to: usize::MAX, trials: 16, ..ChildArgs::default() };
    let mut one = false;
    let mut protocol = false;
    let mut quick = false;
    let mut jobs = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
    let mut out: Option<PathBuf> = None;
    let mut only = Vec::new();
    let mut oracle_timeout = 10u64;
    let mut batchify_timeout = 60u64;
    let mut chunk = 64usize;
    let mut build_only = false;
    while let Some(a) = args.next() {
        match a.as_str() {
            "-h" | "--help" => {
                println!("{USAGE}");
                return Ok(ExitCode::SUCCESS);
            }
            "--quick" => quick = true,
            "--jobs" => jobs = value(&a, args.next())?,
            "--out" => out = Some(PathBuf::from(value::<String>(&a, args.next())?)),
            "--only" => only.push(value::<String>(&a, args.next())?),
            "--trials" => child.trials = value(&a, args.next())?,
            "--oracle-timeout" => oracle_timeout = value(&a, args.next())?,
            "--batchify-timeout" => batchify_timeout = value(&a, args.next())?,
            "--chunk" => chunk = value(&a, args.next())?,
            "--build-only" => build_only = true,
            "--one" => {
                one = true;
                child.module = PathBuf::from(value::<String>(&a, args.next())?);
            }
            "--codebase" => child.codebase = value(&a, args.next())?,
            "--level" => child.level = value(&a, args.next())?,
            "--function" => child.function = Some(value(&a, args.next())?),
            "--variant" => child.variant = Some(value(&a, args.next())?),
            // Protocol flags, set by the parent.
            "--from" => {
                protocol = true;
                child.from = value(&a, args.next())?;
            }
            "--to" => child.to = value(&a, args.next())?,
            "--start-variant" => child.start_variant = value(&a, args.next())?,
            "--fns-dir" => child.fns_dir = Some(PathBuf::from(value::<String>(&a, args.next())?)),
            other => return Err(format!("unexpected argument `{other}`\n{USAGE}")),
        }
    }
    if one {
        child.human = !protocol;
        let failures = sweep::run_child(&child)?;
        return Ok(if failures > 0 { ExitCode::FAILURE } else { ExitCode::SUCCESS });
    }

    let start = Instant::now();
    let root = workspace_root();
    let out = out.unwrap_or_else(|| root.join("target").join("sweep"));
    let out = if out.is_absolute() { out } else { std::env::current_dir().map_err(|e| e.to_string())?.join(out) };
    let icfg = InputConfig { out: out.clone(), tools: root.join("tools").join("sweep"), quick, jobs, only };
    println!("==> sweep: fetch and build the code bases in {}", out.display());
    let (inputs, provenance) = sweep::prepare_inputs(&icfg)?;
    for p in &provenance {
        println!("  {p}");
    }
    if build_only {
        return Ok(ExitCode::SUCCESS);
    }
    let built = start.elapsed();
    println!("==> sweep: batch and check ({} modules, built in {:.0} s)", inputs.len(), built.as_secs_f64());
    let exe = std::env::current_exe().map_err(|e| format!("cannot find this executable: {e}"))?;
    let scfg = SweepConfig {
        exe: exe.clone(),
        out: out.clone(),
        jobs,
        trials: child.trials,
        chunk,
        batchify_timeout: Duration::from_secs(batchify_timeout),
        oracle_timeout: Duration::from_secs(oracle_timeout),
        progress: true,
    };
    let _ = std::fs::remove_dir_all(out.join("fns"));
    let (records, warnings) = sweep::run_sweep(&inputs, &scfg)?;
    let command = std::env::args().collect::<Vec<_>>().join(" ");
    let exe_shown =
        exe.strip_prefix(&root).map(|p| p.display().to_string()).unwrap_or_else(|_| exe.display().to_string());
    let report = sweep::report(&records, &provenance, &command, start.elapsed(), &exe_shown, &warnings)
        .replace(&format!("{}/", root.display()), "");
    sweep::write_outputs(&out, &records, &report)?;
    println!("\n{report}");
    let failures = sweep::failure_counts(&records);
    let skipped = warnings.iter().filter(|w| w.contains("the child died before batching")).count();
    println!(
        "sweep: {} runs in {:.0} s; report: {}; runs: {}",
        records.len(),
        start.elapsed().as_secs_f64(),
        out.join("report.md").display(),
        out.join("runs.jsonl").display()
    );
    if skipped > 0 {
        println!(
            "sweep: INCOMPLETE: {skipped} functions could not be cut out or loaded (see the warnings in the report)"
        );
    }
    if failures.is_empty() && skipped == 0 {
        println!("sweep: no failures");
        Ok(ExitCode::SUCCESS)
    } else {
        let mut list: Vec<String> = failures.iter().map(|(k, n)| format!("{n} {k}")).collect();
        if skipped > 0 {
            list.push(format!("{skipped} functions skipped"));
        }
        println!("sweep: FAILED: {}", list.join(", "));
        Ok(ExitCode::FAILURE)
    }
}
