//! Helpers shared by the commands: paths, printing, running child processes.

use std::ffi::OsString;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

/// The workspace root (the parent of this crate).
pub fn root() -> PathBuf {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest.parent().unwrap_or(manifest).to_path_buf()
}

/// Cargo's target directory: `$CARGO_TARGET_DIR`, else `<root>/target`.
pub fn target_dir() -> PathBuf {
    match std::env::var_os("CARGO_TARGET_DIR") {
        Some(dir) if !dir.is_empty() => root().join(dir),
        _ => root().join("target"),
    }
}

/// `path` relative to the workspace root when it is inside it, for display.
pub fn rel(path: &Path) -> PathBuf {
    path.strip_prefix(root()).unwrap_or(path).to_path_buf()
}

fn styled(code: &str, text: &str) -> String {
    let color = std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none();
    if color {
        format!("\x1b[{code}m{text}\x1b[0m")
    } else {
        text.to_string()
    }
}

pub fn bold(text: &str) -> String {
    styled("1", text)
}
pub fn green(text: &str) -> String {
    styled("32", text)
}
pub fn yellow(text: &str) -> String {
    styled("33", text)
}
pub fn red(text: &str) -> String {
    styled("31", text)
}

/// Prints a step header: `==> text`.
pub fn header(text: &str) {
    println!("{}", bold(&format!("==> {text}")));
}

/// The command line of `cmd` as a shell would show it (paths inside the
/// workspace shown relative to its root).
pub fn show(cmd: &Command) -> String {
    let quote = |s: &std::ffi::OsStr| {
        let p = rel(Path::new(s));
        let s = p.to_string_lossy();
        if s.is_empty() || s.contains(|c: char| c.is_whitespace() || "'\"$;&|<>".contains(c)) {
            format!("'{}'", s.replace('\'', r"'\''"))
        } else {
            s.into_owned()
        }
    };
    let program = cmd.get_program();
    let program = if std::env::var_os("CARGO").is_some_and(|c| c == program) {
        "cargo".to_string() // not the toolchain's full path
    } else {
        quote(program)
    };
    std::iter::once(program).chain(cmd.get_args().map(quote)).collect::<Vec<_>>().join(" ")
}

/// Runs `cmd` with inherited stdio after printing it; an error (with the
/// command line) if it cannot start or exits non-zero.
pub fn run(cmd: &mut Command) -> Result<(), String> {
    let line = show(cmd);
    println!("$ {line}");
    let start = Instant::now();
    let status = cmd.status().map_err(|e| format!("cannot run `{line}`: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        let how = match status.code() {
            Some(code) => format!("exit status {code}"),
            None => "killed by a signal".to_string(),
        };
        Err(format!("`{line}` failed ({how}, after {:.1}s)", start.elapsed().as_secs_f64()))
    }
}

/// `PATH` with `dirs` in front.
pub fn path_with(dirs: &[PathBuf]) -> Result<OsString, String> {
    let mut all: Vec<PathBuf> = dirs.to_vec();
    if let Some(path) = std::env::var_os("PATH") {
        all.extend(std::env::split_paths(&path));
    }
    std::env::join_paths(all).map_err(|e| format!("cannot build PATH: {e}"))
}

/// Rejects any argument not in `allowed`; returns the ones given.
pub fn flags<'a>(args: &'a [String], allowed: &[&str]) -> Result<Vec<&'a str>, String> {
    args.iter()
        .map(|a| {
            if allowed.contains(&a.as_str()) {
                Ok(a.as_str())
            } else if allowed.is_empty() {
                Err(format!("unexpected argument `{a}` (this command takes none)"))
            } else {
                Err(format!("unexpected argument `{a}` (expected one of: {})", allowed.join(", ")))
            }
        })
        .collect()
}

/// What a benchmark command's run ended with.
#[derive(Debug)]
pub enum BenchOutcome {
    /// Measured; the markdown table.
    Done(String),
    /// Skipped for a missing tool or CPU feature: why.
    Skipped(String),
}

/// Whether missing tools must fail (`BATCHIFY_REQUIRE_TOOLS` set and not `0`).
pub fn tools_required() -> bool {
    std::env::var("BATCHIFY_REQUIRE_TOOLS").is_ok_and(|v| !v.is_empty() && v != "0")
}

/// The batchify binary `cargo build` made (debug, else release), if any:
/// what a benchmark's `--smoke` test runs.
#[cfg(test)]
pub fn built_batchify() -> Option<PathBuf> {
    ["debug", "release"].iter().map(|p| target_dir().join(p).join("batchify")).find(|p| p.exists())
}

/// A test that cannot run here skips loudly: it says why on stderr, logs
/// it to `BATCHIFY_SKIP_LOG` (which `cargo xtask test` reads back), and
/// fails instead where tools are required (`BATCHIFY_REQUIRE_TOOLS`).
#[cfg(test)]
pub fn skip_test(test: &str, why: &str) {
    assert!(!tools_required(), "{test}: {why} (BATCHIFY_REQUIRE_TOOLS is set)");
    log_skip(test, why);
}

/// A part of a test that needs the CPU feature `feature`, which this CPU
/// lacks, skips loudly like [`skip_test`], and fails where
/// `BATCHIFY_REQUIRE_CPU` lists the feature.
#[cfg(test)]
pub fn skip_cpu_part(test: &str, feature: &str) {
    let required = std::env::var("BATCHIFY_REQUIRE_CPU").is_ok_and(|v| v.split(',').any(|f| f.trim() == feature));
    let why = format!("the CPU has no {feature}");
    assert!(!required, "{test}: {why} (BATCHIFY_REQUIRE_CPU lists it)");
    log_skip(test, &why);
}

/// Prints a `SKIPPED` line and appends it to `BATCHIFY_SKIP_LOG`.
#[cfg(test)]
fn log_skip(test: &str, why: &str) {
    eprintln!("SKIPPED {test}: {why}");
    if let Some(log) = std::env::var_os("BATCHIFY_SKIP_LOG") {
        use std::io::Write as _;
        if let Ok(mut f) = std::fs::OpenOptions::new().create(true).append(true).open(log) {
            let _ = writeln!(f, "xtask {test}: {why}");
        }
    }
}

/// Ends `cargo xtask <command>`: fine after a measured run; after a skip,
/// prints `<command> SKIPPED: why` loudly, and fails where tools are
/// required.
pub fn finish_bench(command: &str, outcome: BenchOutcome) -> Result<(), String> {
    match outcome {
        BenchOutcome::Done(table) => {
            debug_assert!(table.contains('|'), "{command}: no table");
            Ok(())
        }
        BenchOutcome::Skipped(why) => {
            println!("{}", yellow(&bold(&format!("{command} SKIPPED: {why}"))));
            if tools_required() {
                Err(format!("{why} (BATCHIFY_REQUIRE_TOOLS is set)"))
            } else {
                Ok(())
            }
        }
    }
}

/// Output of `cmd`, or an error with its status and output; prints the
/// command line unless `quiet`.
pub fn output(cmd: &mut Command, quiet: bool) -> Result<std::process::Output, String> {
    let line = show(cmd);
    if !quiet {
        println!("$ {line}");
    }
    let out = cmd.output().map_err(|e| format!("cannot run `{line}`: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "`{line}` failed ({}):\n{}{}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(out)
}

/// Timing statistics of one measured version: median, min and max.
#[derive(Clone, Copy, Debug)]
pub struct Stat {
    /// The median.
    pub median: f64,
    /// The smallest time.
    pub min: f64,
    /// The largest time.
    pub max: f64,
}

/// The statistics of `xs`, or `None` if it is empty.
pub fn stat(mut xs: Vec<f64>) -> Option<Stat> {
    if xs.is_empty() {
        return None;
    }
    xs.sort_by(f64::total_cmp);
    let m = xs.len();
    let median = if !m.is_multiple_of(2) { xs[m / 2] } else { 0.5 * (xs[m / 2 - 1] + xs[m / 2]) };
    Some(Stat { median, min: xs[0], max: xs[m - 1] })
}
