//! The self-checking `declare simd` C suite (`tests/simd-clone`, see
//! docs/testing.md): every program built the (b) and (c) ways, linked and
//! run, in parallel over the programs. (b): callee TU through clang-22
//! `-emit-llvm`, this crate's `batchify` (the variants the attributes ask
//! for) and clang-22, caller TU by clang-22; (c): the same callee, caller TU
//! by GCC 12, with a check that the `_ZGV*` symbols the GCC caller uses are
//! defined by batchify's object only. Any FAIL or XPASS (a `SUITE-XFAIL`
//! line that no longer holds) fails the test. Skipped loudly (a failure
//! under `BATCHIFY_REQUIRE_TOOLS=1`) without clang-22 or gcc.
//!
//! Modes (a) and (d) need the pass plugin (`target/debug/libbatchify_plugin.so`
//! or `$BATCHIFY_PLUGIN`, which `cargo test` does not build but `cargo xtask
//! test` does): `plugin_modes` runs them, and skips loudly without it.
//!
//! `aarch64_advanced_simd` builds every program for `aarch64-linux-gnu`
//! (Advanced SIMD `_ZGVn` variants) in all four modes and runs it under
//! `qemu-aarch64`; skipped loudly without the cross GCC or qemu.
//! `aarch64_sve` builds them with `-march=armv8-a+sve` (clang asks for SVE
//! variants only) in modes (a) and (b) and runs each binary at 128, 256,
//! 512 and 2048-bit vectors; in mode (a) clang's loop vectorizer calls the
//! `_ZGVsMx` variants the plugin declares on the loops' calls.
//!
//! The engine is `xtask/src/simd_suite/engine.rs`, shared with
//! `cargo xtask simd-suite`.

#[path = "../../../xtask/src/simd_suite/engine.rs"]
#[allow(dead_code)]
mod engine;

use batchify_testkit::skip;
use engine::{Arch, Config, Mode};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn config(plugin: PathBuf) -> Config {
    Config {
        src_dir: root().join("tests/simd-clone"),
        out_dir: Path::new(env!("CARGO_TARGET_TMPDIR")).join("simd-suite"),
        batchify: PathBuf::from(env!("CARGO_BIN_EXE_batchify")),
        plugin,
        clang: "clang-22".into(),
        gcc: "gcc".into(),
        jobs: std::thread::available_parallelism().map_or(2, |n| n.get()),
        run_timeout: Duration::from_secs(30),
        march: None,
        arch: Arch::X86_64,
        sve_vqs: Vec::new(),
    }
}

fn run_modes(test: &str, cfg: &Config, modes: &[Mode]) -> Vec<engine::Outcome> {
    let progs = engine::programs(&cfg.src_dir).unwrap();
    assert!(progs.len() >= 25, "only {} programs in {}", progs.len(), cfg.src_dir.display());
    let start = Instant::now();
    let outcomes = engine::run_suite(cfg, &progs, modes);
    let table = engine::table(&progs, modes, &outcomes, false);
    eprintln!("{test}: {} builds and runs in {:.1}s\n{table}", outcomes.len(), start.elapsed().as_secs_f64());
    let bad: Vec<String> = outcomes
        .iter()
        .filter(|o| o.status.is_bad())
        .map(|o| format!("{} [{}] {}: {}", o.program, o.mode.letter(), o.status.word(), o.status.detail()))
        .collect();
    assert!(bad.is_empty(), "{} unexpected outcome(s):\n{}", bad.len(), bad.join("\n"));
    // Nothing passes by not running: every program ran (or was built and
    // linked where the CPU lacks a feature it needs).
    // Where the CPU lacks a feature a program needs (AVX-512), the program
    // was built and linked but not run: say so loudly, or fail where the
    // feature is required (`BATCHIFY_REQUIRE_CPU`).
    let mut features = std::collections::BTreeSet::new();
    for o in &outcomes {
        if let engine::Status::Skip(why) = &o.status {
            assert!(why.starts_with("built and linked"), "{} [{}] skipped: {why}", o.program, o.mode.letter());
            if let Some(p) = progs.iter().find(|p| p.name == o.program) {
                features.extend(p.needs_cpu.clone());
            }
        }
    }
    for f in features {
        skip::require_cpu(&format!("{test} (programs needing {f})"), &f);
    }
    outcomes
}

#[test]
fn batchify_and_gcc_callers() {
    let test = "simd_suite::batchify_and_gcc_callers";
    if !skip::require_tool(test, "clang-22") || !skip::require_tool(test, "gcc") || !skip::require_cpu(test, "avx2") {
        return;
    }
    let outcomes = run_modes(test, &config(PathBuf::new()), &[Mode::B, Mode::C]);
    // GCC 12 callers do call batchify's variants (not all loops vectorize).
    let calling = outcomes.iter().filter(|o| o.mode == Mode::C && engine::calls_variants(&o.status)).count();
    assert!(calling >= 20, "only {calling} GCC-built binaries call batchify's variants");
}

/// The plugin ([`batchify_testkit::plugin::require`]) when it and every
/// tool the plugin modes need are there; otherwise `test` is skipped loudly
/// (a failure where tools are required). `cargo test` does not build the
/// plugin; `cargo xtask test` (CI) builds it first.
fn plugin_and_tools(test: &str) -> Option<PathBuf> {
    let plugin = batchify_testkit::plugin::require(test)?;
    let tools = skip::require_tool(test, "clang-22") && skip::require_tool(test, "gcc");
    (tools && skip::require_cpu(test, "avx2")).then_some(plugin)
}

#[test]
fn plugin_modes() {
    let test = "simd_suite::plugin_modes";
    let Some(plugin) = plugin_and_tools(test) else { return };
    let outcomes = run_modes(test, &config(plugin), &[Mode::A, Mode::D]);
    // Caller side: clang + plugin callers use the variants (the plugin
    // annotates call sites with `vector-function-abi-variant`).
    for mode in [Mode::A, Mode::D] {
        let calling = outcomes.iter().filter(|o| o.mode == mode && engine::calls_variants(&o.status)).count();
        assert!(calling > 0, "mode {}: no binary calls a variant (are call sites annotated?)", mode.letter());
    }
}

/// All four modes with both translation units of every program built at
/// `-march=x86-64-v2` and `-v4`: SSE and AVX-512 callers of every variant
/// the programs declare (the `-v4` builds run where the CPU has AVX-512F;
/// elsewhere they are built and linked, and skipped loudly). `-v3` is the
/// level of `batchify_and_gcc_callers` and `plugin_modes`, which run the
/// four modes there already.
/// At `-v4` the loops pass 512-bit vectors to `e` variants and their
/// adapters, whose registers must agree (`batchify_core::vector_widths`).
#[test]
fn every_mode_at_x86_64_v2_and_v4() {
    let test = "simd_suite::every_mode_at_x86_64_v2_and_v4";
    let Some(plugin) = plugin_and_tools(test) else { return };
    for level in ["x86-64-v2", "x86-64-v4"] {
        let mut cfg = config(plugin.clone());
        cfg.march = Some(level.to_string());
        let outcomes = run_modes(&format!("{test} ({level})"), &cfg, &Mode::ALL);
        let ran = outcomes.iter().filter(|o| matches!(o.status, engine::Status::Pass(_))).count();
        if level == "x86-64-v4" && ran == 0 {
            skip::require_cpu(&format!("{test} ({level} runs)"), "avx512f");
        } else {
            assert!(ran >= outcomes.len() / 2, "{level}: only {ran} of {} builds ran and passed", outcomes.len());
        }
    }
}

/// The suite's configuration for AArch64 builds into `dir`, or `None`
/// (skipped loudly) without the plugin, the cross tools or qemu.
fn aarch64_config(test: &str, dir: &str) -> Option<Config> {
    let plugin = batchify_testkit::plugin::require(test)?;
    let tools = ["clang-22", Arch::Aarch64.gcc(), engine::QEMU_AARCH64, "aarch64-linux-gnu-objdump"];
    if !tools.iter().all(|t| skip::require_tool(test, t)) {
        return None;
    }
    let mut cfg = config(plugin);
    cfg.arch = Arch::Aarch64;
    cfg.gcc = Arch::Aarch64.gcc().into();
    cfg.out_dir = cfg.out_dir.join(dir);
    Some(cfg)
}

/// Every program cross-compiled for AArch64 in all four modes and run
/// under `qemu-aarch64`: (a) clang-22 `--target=aarch64-linux-gnu` + the
/// plugin, (b) clang -> batchify -> clang, (c) `aarch64-linux-gnu-gcc -O3
/// -fopenmp-simd` callers of batchify's `_ZGVn` variants (checked with
/// `nm`/`objdump`: the binary's variants are batchify's), (d) GCC's clones
/// called from clang + the plugin.
#[test]
fn aarch64_advanced_simd() {
    let test = "simd_suite::aarch64_advanced_simd";
    let Some(cfg) = aarch64_config(test, "aarch64") else { return };
    let outcomes = run_modes(test, &cfg, &Mode::ALL);
    let ran = outcomes.iter().filter(|o| matches!(o.status, engine::Status::Pass(_))).count();
    assert_eq!(ran, outcomes.len(), "every AArch64 build runs under qemu");
    let calling = outcomes.iter().filter(|o| o.mode == Mode::C && engine::calls_variants(&o.status)).count();
    assert!(calling >= 20, "only {calling} AArch64 GCC-built binaries call batchify's variants");
}

/// The suite for SVE: both TUs at `-march=armv8-a+sve`, modes (a) and (b)
/// (GCC 12 makes and calls no SVE clones), each binary run under `qemu-aarch64
/// -cpu max,sve-max-vq=N` for N = 1, 2, 4, 16. The programs whose only
/// variants are fixed-length SVE ones are XFAIL in mode (a) (`SUITE-XFAIL:
/// a@armv8-a+sve`).
#[test]
fn aarch64_sve() {
    let test = "simd_suite::aarch64_sve";
    let Some(mut cfg) = aarch64_config(test, "aarch64-sve") else { return };
    cfg.march = Some("armv8-a+sve".into());
    cfg.sve_vqs = vec![1, 2, 4, 16];
    let outcomes = run_modes(test, &cfg, &[Mode::A, Mode::B]);
    let passed = outcomes.iter().filter(|o| matches!(o.status, engine::Status::Pass(_))).count();
    assert!(passed >= 90, "only {passed} SVE builds ran at every vector length");
    let calling = outcomes.iter().filter(|o| o.mode == Mode::A && engine::calls_variants(&o.status)).count();
    assert!(calling >= 20, "only {calling} SVE binaries of mode (a) call batchify's variants");
}
