//! Skipping a test whose tool or CPU feature is missing, loudly.
//!
//! A test that cannot run here prints a `SKIPPED` line on stderr and
//! returns. Where every tool must be present (CI: `.ci/run` sets
//! `BATCHIFY_REQUIRE_TOOLS=1`), a missing tool fails the test instead, so
//! that nothing passes by not running. CPU features differ between
//! machines of one kind (some have AVX-512, some do not), so a missing
//! feature fails only if it is listed in `BATCHIFY_REQUIRE_CPU`
//! (comma-separated, e.g. `avx2,avx512f`; `.ci/run` requires `avx2`).

/// Name of the environment variable that turns skips into failures.
pub const REQUIRE_TOOLS: &str = "BATCHIFY_REQUIRE_TOOLS";

/// Name of the environment variable listing the CPU features that must be
/// present.
pub const REQUIRE_CPU: &str = "BATCHIFY_REQUIRE_CPU";

/// Whether missing tools must fail (`BATCHIFY_REQUIRE_TOOLS` set and not `0`).
pub fn tools_required() -> bool {
    std::env::var(REQUIRE_TOOLS).is_ok_and(|v| !v.is_empty() && v != "0")
}

/// Whether a missing CPU feature must fail (listed in `BATCHIFY_REQUIRE_CPU`).
pub fn cpu_required(feature: &str) -> bool {
    std::env::var(REQUIRE_CPU).is_ok_and(|v| v.split(',').any(|f| f.trim() == feature))
}

/// Reports that `test` cannot run because of `reason`: panics if `fatal`,
/// else prints a loud `SKIPPED` line. The caller returns right after.
fn report(test: &str, reason: &str, fatal: bool, how_to_require: &str) {
    if fatal {
        panic!("{test} cannot run: {reason} (required here, so this is a failure)");
    }
    let line = format!("SKIPPED {test}: {reason} ({how_to_require} to make this a failure)");
    eprintln!("{line}");
    // `cargo test` hides the output of passing tests; `cargo xtask test`
    // collects the skips here and lists them in its summary.
    if let Some(log) = std::env::var_os(SKIP_LOG) {
        use std::io::Write;
        if let Ok(mut f) = std::fs::OpenOptions::new().create(true).append(true).open(log) {
            let _ = writeln!(f, "{line}");
        }
    }
}

/// Name of the environment variable naming a file that every skip is
/// appended to (set by `cargo xtask test`).
pub const SKIP_LOG: &str = "BATCHIFY_SKIP_LOG";

/// Reports that `test` cannot run because a tool is missing: a failure
/// when tools are required, else a loud `SKIPPED` line.
pub fn skip(test: &str, reason: &str) {
    report(test, reason, tools_required(), &format!("set {REQUIRE_TOOLS}=1"));
}

/// Whether the host CPU has an x86 feature (`"avx2"`, `"avx512f"`); if not,
/// [`skip`]s `test` and returns `false`.
pub fn require_cpu(test: &str, feature: &str) -> bool {
    let has = match feature {
        "sse2" => std::arch::is_x86_feature_detected!("sse2"),
        "avx" => std::arch::is_x86_feature_detected!("avx"),
        "avx2" => std::arch::is_x86_feature_detected!("avx2"),
        "avx512f" => std::arch::is_x86_feature_detected!("avx512f"),
        other => panic!("require_cpu: unknown feature `{other}`"),
    };
    if !has {
        let how = format!("list it in {REQUIRE_CPU}");
        report(test, &format!("the CPU has no {feature}"), cpu_required(feature), &how);
    }
    has
}

/// Reports that `test` cannot run because the host lacks the CPU feature
/// `feature` (found missing by the caller): a failure when
/// `BATCHIFY_REQUIRE_CPU` lists it, else a loud `SKIPPED` line.
pub fn missing_cpu_feature(test: &str, feature: &str) {
    let how = format!("list it in {REQUIRE_CPU}");
    report(test, &format!("the CPU has no {feature}"), cpu_required(feature), &how);
}

/// Whether `tool --version` runs; if not, [`skip`]s `test` and returns `false`.
pub fn require_tool(test: &str, tool: &str) -> bool {
    let ok = std::process::Command::new(tool).arg("--version").output().is_ok_and(|o| o.status.success());
    if !ok {
        skip(test, &format!("`{tool}` is not installed"));
    }
    ok
}
