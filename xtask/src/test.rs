//! `cargo xtask test [--quick]`: everything CI checks, in order, stopping at
//! the first failure: build, cargo test, the lit suite, the corpora's
//! self-checks, the bounded real-code sweep, the documented commands,
//! rustfmt, clippy.

use crate::setup::{self, Env};
use crate::util::{self, bold, green, header, red, yellow};
use std::process::Command;
use std::time::{Duration, Instant};

enum Outcome {
    Passed(Duration),
    Failed(Duration),
    Skipped(String),
    NotRun,
}

struct Step {
    name: &'static str,
    /// What it runs, for the summary.
    what: &'static str,
    /// Runs the step; `Ok(Some(reason))` means skipped.
    run: fn(&Env) -> Result<Option<String>, String>,
    /// Skipped by `--quick`.
    slow_lint: bool,
}

const STEPS: &[Step] = &[
    Step {
        name: "build",
        what: "cargo build --workspace --all-targets",
        run: |env| cargo(env, &["build", "--workspace", "--all-targets"]),
        slow_lint: false,
    },
    Step {
        name: "test",
        what: "cargo test --workspace",
        run: |env| cargo(env, &["test", "--workspace"]),
        slow_lint: false,
    },
    Step { name: "lit", what: "lit -sv lit-tests", run: lit, slow_lint: false },
    Step {
        name: "corpus",
        what: "tests/corpus/{divergent,uniform}/check.sh (the corpora's own checks: shapes, directives, no UB)",
        run: corpus_checks,
        slow_lint: false,
    },
    Step {
        name: "sweep",
        what: "cargo xtask sweep --quick (bounded real-code sweep)",
        run: |_| {
            let out = util::target_dir().join("sweep-quick").to_string_lossy().into_owned();
            crate::sweep::run(&["--quick".into(), "--jobs".into(), "2".into(), "--out".into(), out]).map(|_| None)
        },
        slow_lint: false,
    },
    Step {
        name: "docs",
        what: "cargo xtask doc-commands (every sh command of README.md, docs/{rust,plugin,enzyme-batch}.md)",
        run: crate::doc_commands::check,
        slow_lint: false,
    },
    Step {
        name: "fmt",
        what: "cargo fmt --all -- --check (and examples/rust-mandelbrot, its own workspace)",
        run: |env| {
            cargo(env, &["fmt", "--all", "--", "--check"])?;
            cargo(env, &["fmt", "--manifest-path", EXAMPLE, "--", "--check"])
        },
        slow_lint: true,
    },
    Step {
        name: "clippy",
        what: "cargo clippy --workspace --all-targets -- -D warnings (and examples/rust-mandelbrot, bench included)",
        run: |env| {
            cargo(env, &["clippy", "--workspace", "--all-targets", "--", "-D", "warnings"])?;
            cargo(
                env,
                &[
                    "clippy",
                    "--manifest-path",
                    EXAMPLE,
                    "--locked",
                    "--all-targets",
                    "--features",
                    "bench",
                    "--",
                    "-D",
                    "warnings",
                ],
            )
        },
        slow_lint: true,
    },
];

/// The standalone example crate (not a workspace member), linted too.
const EXAMPLE: &str = "examples/rust-mandelbrot/Cargo.toml";

fn cargo(env: &Env, args: &[&str]) -> Result<Option<String>, String> {
    util::run(env.cargo(args).env("BATCHIFY_SKIP_LOG", skip_log())).map(|_| None)
}

/// File the test kit appends a line to for every test that skipped
/// because a tool or CPU feature is missing (`batchify_testkit::skip`).
fn skip_log() -> std::path::PathBuf {
    util::target_dir().join("test-skips.log")
}

/// LLVM's lit on `lit-tests/`, with the fresh `target/debug/batchify` and
/// LLVM's `FileCheck` and `not` first on `PATH`.
fn lit(env: &Env) -> Result<Option<String>, String> {
    let suite = util::root().join("lit-tests");
    if !suite.join("lit.cfg.py").exists() {
        // Part of the repository: a checkout without it is broken, and the
        // suite must not pass by not running.
        return Err("lit-tests/lit.cfg.py is missing, so the lit suite cannot run".to_string());
    }
    let path = util::path_with(&[util::target_dir().join("debug"), env.llvm_prefix.join("bin")])?;
    util::run(
        Command::new(env.llvm_bin("lit"))
            .args(["-sv", "lit-tests"])
            .current_dir(util::root())
            .env("PATH", path)
            .env("LLVM_SYS_221_PREFIX", &env.llvm_prefix),
    )
    .map(|_| None)
}

/// The corpora's self-checks: every function compiles warning-free, has the
/// shape its corpus promises (divergent branches, or none on varying
/// values), well-formed directives, and (divergent corpus) runs without
/// undefined behaviour under UBSan and Rust's overflow checks.
fn corpus_checks(env: &Env) -> Result<Option<String>, String> {
    for corpus in ["divergent", "uniform"] {
        let script = util::root().join("tests/corpus").join(corpus).join("check.sh");
        util::run(
            Command::new("bash")
                .arg(&script)
                .current_dir(util::root())
                .env("CLANG", env.clang())
                .env("OPT", env.llvm_bin("opt")),
        )?;
    }
    Ok(None)
}

pub fn run(args: &[String]) -> Result<(), String> {
    let quick = util::flags(args, &["--quick"])?.contains(&"--quick");
    let env = setup::ensure(true)?;
    let _ = std::fs::remove_file(skip_log());

    let total = STEPS.len();
    let mut outcomes: Vec<Outcome> = Vec::with_capacity(total);
    let mut failure: Option<(&str, String)> = None;
    for (i, step) in STEPS.iter().enumerate() {
        if failure.is_some() {
            outcomes.push(Outcome::NotRun);
            continue;
        }
        if quick && step.slow_lint {
            outcomes.push(Outcome::Skipped("--quick".to_string()));
            continue;
        }
        header(&format!("test {}/{total}: {}: {}", i + 1, step.name, step.what));
        let start = Instant::now();
        outcomes.push(match (step.run)(&env) {
            Ok(None) => Outcome::Passed(start.elapsed()),
            Ok(Some(reason)) => Outcome::Skipped(reason),
            Err(e) => {
                failure = Some((step.name, e));
                Outcome::Failed(start.elapsed())
            }
        });
        println!();
    }

    header("test summary");
    for (step, outcome) in STEPS.iter().zip(&outcomes) {
        let (label, detail) = match outcome {
            Outcome::Passed(t) => (green("ok     "), format!("({:.1}s)", t.as_secs_f64())),
            Outcome::Failed(t) => (red("FAILED "), format!("({:.1}s)", t.as_secs_f64())),
            Outcome::Skipped(why) => (yellow("skipped"), format!("({why})")),
            Outcome::NotRun => ("not run".to_string(), "(an earlier step failed)".to_string()),
        };
        println!("  {label}  {:<7} {:<54} {detail}", step.name, step.what);
    }
    let skips = std::fs::read_to_string(skip_log()).unwrap_or_default();
    let mut skipped_tests: Vec<&str> = skips.lines().collect();
    skipped_tests.sort_unstable();
    skipped_tests.dedup();
    if !skipped_tests.is_empty() {
        println!(
            "{}",
            yellow(&format!("  {} test(s) skipped for a missing tool or CPU feature:", skipped_tests.len()))
        );
        for line in skipped_tests {
            println!("    {}", yellow(line));
        }
    }
    match failure {
        None => {
            let passed = outcomes.iter().filter(|o| matches!(o, Outcome::Passed(_))).count();
            println!(
                "{}",
                bold(&green(&format!(
                    "xtask test: all {passed} steps run passed{}",
                    if passed < total { format!(" ({} skipped)", total - passed) } else { String::new() }
                )))
            );
            Ok(())
        }
        Some((name, e)) => Err(format!("step `{name}` failed: {e}")),
    }
}
