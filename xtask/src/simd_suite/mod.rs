//! `cargo xtask simd-suite [--mode a|b|c|d|all] [--march LEVEL] [--arch
//! x86_64|aarch64] [--jobs N] [--only NAME,..] [--verbose]`: the
//! self-checking `declare simd` C programs of `tests/simd-clone`, built and
//! run each way (see `engine.rs` and docs/testing.md), for the host or,
//! with `--arch aarch64`, cross-compiled for AArch64 (Advanced SIMD
//! variants) and run under `qemu-aarch64`, into
//! `target/simd-suite/[aarch64/][<level>/]<mode>/<program>/`,
//! with a table of the outcomes. `--march x86-64-v4` builds both
//! translation units of every program at that level (run only where the CPU
//! has AVX-512F). With `--arch aarch64 --march armv8-a+sve` clang asks for
//! SVE variants only, and `--sve-vq 1,2,4,16` runs every binary once per
//! SVE vector length (modes a and b: GCC 12 has no SVE callers or clones).
//! Fails on any FAIL or XPASS.

pub mod engine;

use crate::util::{self, header};
use engine::{Arch, Config, Mode};
use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

pub fn run(args: &[String]) -> Result<(), String> {
    let mut modes = Mode::ALL.to_vec();
    let mut jobs = std::thread::available_parallelism().map_or(2, |n| n.get());
    let mut only: Option<Vec<String>> = None;
    let mut verbose = false;
    let mut build = true;
    let mut march = None;
    let mut arch = Arch::X86_64;
    let mut sve_vqs = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value = |name: &str| it.next().cloned().ok_or_else(|| format!("{name} needs a value"));
        match a.as_str() {
            "--mode" => modes = Mode::parse(&value("--mode")?)?,
            "--jobs" => jobs = value("--jobs")?.parse().map_err(|e| format!("--jobs: {e}"))?,
            "--only" => only = Some(value("--only")?.split(',').map(str::to_string).collect()),
            "--verbose" | "-v" => verbose = true,
            "--no-build" => build = false,
            "--march" => march = Some(value("--march")?),
            "--sve-vq" => {
                sve_vqs = value("--sve-vq")?
                    .split(',')
                    .map(|v| v.parse::<u32>().ok().filter(|n| (1..=16).contains(n)))
                    .collect::<Option<Vec<u32>>>()
                    .ok_or("--sve-vq: expected N[,N..] with each N in 1..=16 (128-bit units)")?;
            }
            "--arch" => {
                arch = match value("--arch")?.as_str() {
                    "x86_64" => Arch::X86_64,
                    "aarch64" => Arch::Aarch64,
                    other => return Err(format!("--arch {other}: expected x86_64 or aarch64")),
                }
            }
            other => {
                return Err(format!(
                    "unexpected argument `{other}` (expected --mode a|b|c|d|all, --march LEVEL, --arch x86_64|aarch64, --sve-vq N[,N..], --jobs N, --only NAME,.., --verbose, --no-build)"
                ))
            }
        }
    }
    let root = util::root();
    let target = util::target_dir();
    if build && modes.iter().any(|m| matches!(m, Mode::B | Mode::C)) {
        header("building the CLI and the plugin");
        util::run(Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into())).args([
            "build",
            "-p",
            "batchify-cli",
            "-p",
            "batchify-plugin",
        ]))?;
    }
    let cfg = Config {
        src_dir: root.join("tests/simd-clone"),
        out_dir: target.join("simd-suite"),
        batchify: std::env::var_os("BATCHIFY").map_or_else(|| target.join("debug/batchify"), PathBuf::from),
        // The debug plugin, built beside the debug CLI above.
        plugin: std::env::var_os("BATCHIFY_PLUGIN")
            .map_or_else(|| target.join("debug/libbatchify_plugin.so"), PathBuf::from),
        clang: "clang-22".into(),
        gcc: arch.gcc().into(),
        jobs,
        run_timeout: Duration::from_secs(30),
        march,
        arch,
        sve_vqs,
    };
    let mut progs = engine::programs(&cfg.src_dir)?;
    if let Some(only) = &only {
        progs.retain(|p| only.iter().any(|o| p.name == *o || p.name.starts_with(&format!("{o}_"))));
        if progs.is_empty() {
            return Err(format!("no program matches --only {}", only.join(",")));
        }
    }
    for &m in &modes {
        if let Some(reason) = engine::mode_unavailable(&cfg, m) {
            println!("{}", util::yellow(&format!("SKIPPED mode {}: {reason}", m.letter())));
        }
    }
    header(&format!(
        "{} programs x modes {} into {} ({jobs} jobs)",
        progs.len(),
        modes.iter().map(|m| m.letter().to_string()).collect::<Vec<_>>().join(","),
        util::rel(&cfg.out_dir).display()
    ));
    let start = Instant::now();
    let outcomes = engine::run_suite(&cfg, &progs, &modes);
    println!("{}", engine::table(&progs, &modes, &outcomes, verbose));
    println!(
        "{} builds and runs in {:.1}s; logs in {}/<mode>/<program>/log.txt",
        outcomes.len(),
        start.elapsed().as_secs_f64(),
        util::rel(&cfg.out_dir).display()
    );
    let bad = outcomes.iter().filter(|o| o.status.is_bad()).count();
    if bad > 0 {
        Err(format!("{bad} FAIL/XPASS outcome(s)"))
    } else {
        println!("{}", util::green("simd-suite: no unexpected outcome"));
        Ok(())
    }
}
