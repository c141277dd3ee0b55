//! Skipping a test whose tool or CPU feature is missing, loudly.
//!
//! A test that cannot run here prints a `SKIPPED` line on stderr and
//! returns. Where every tool must be present (CI: `cargo xtask test` sets
//! `BATCHIFY_REQUIRE_TOOLS=1`), the same situation fails the test instead,
//! so that nothing passes by not running.

/// Name of the environment variable that turns skips into failures.
pub const REQUIRE_TOOLS: &str = "BATCHIFY_REQUIRE_TOOLS";

/// Whether skips must fail (`BATCHIFY_REQUIRE_TOOLS` set and not `0`).
pub fn tools_required() -> bool {
    std::env::var(REQUIRE_TOOLS).is_ok_and(|v| !v.is_empty() && v != "0")
}

/// Reports that `test` cannot run because of `reason`: panics when tools
/// are required, else prints a loud `SKIPPED` line. The caller returns
/// right after.
pub fn skip(test: &str, reason: &str) {
    if tools_required() {
        panic!("{test} cannot run: {reason} ({REQUIRE_TOOLS} is set, so this is a failure)");
    }
    eprintln!("SKIPPED {test}: {reason} (set {REQUIRE_TOOLS}=1 to make this a failure)");
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
        skip(test, &format!("the CPU has no {feature}"));
    }
    has
}

/// Whether `tool --version` runs; if not, [`skip`]s `test` and returns `false`.
pub fn require_tool(test: &str, tool: &str) -> bool {
    let ok = std::process::Command::new(tool).arg("--version").output().is_ok_and(|o| o.status.success());
    if !ok {
        skip(test, &format!("`{tool}` is not installed"));
    }
    ok
}
