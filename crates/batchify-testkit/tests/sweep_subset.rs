//! The bounded real-code sweep: `batchify-sweep --quick` (zlib at -O2 and
//! the Rust crates fastrand, itoa and ryu at opt-level 2, about 600 runs)
//! must show no internal error, panic, crash, invalid IR, clone without a
//! body, batchify timeout or oracle mismatch. See `docs/sweep.md`.
//!
//! It needs crates.io (or cargo's cache) for the sources, clang-22 and
//! opt-22, so it is `#[ignore]`d in plain `cargo test`; run it with
//!
//! ```sh
//! cargo test -p batchify-testkit --test sweep_subset -- --ignored
//! ```
//!
//! Offline with an empty cargo cache it fails with a message that says so;
//! it never passes without having run the sweep.

use std::path::Path;
use std::process::Command;

#[test]
#[ignore = "real-code sweep subset: fetches crates, about a minute in release; run with --ignored"]
fn quick_sweep_has_no_failures() {
    let exe = env!("CARGO_BIN_EXE_batchify-sweep");
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("sweep-subset");
    let jobs = std::thread::available_parallelism().map(|n| n.get().min(4)).unwrap_or(1).to_string();
    let output = Command::new(exe)
        .args(["--quick", "--jobs", &jobs, "--out"])
        .arg(&out)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {exe}: {e}"));
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    match output.status.code() {
        Some(0) => {}
        Some(1) => {
            let summary = stdout.lines().rev().find(|l| l.starts_with("sweep: FAILED")).unwrap_or("sweep: FAILED");
            let failures = stdout.find("## Failures").map(|i| &stdout[i..]).unwrap_or(&stdout);
            let failures: String = failures.lines().take(60).collect::<Vec<_>>().join("\n");
            panic!("{summary}\n(report: {})\n\n{failures}", out.join("report.md").display());
        }
        _ => panic!(
            "batchify-sweep --quick could not run ({}); it needs the sources from crates.io or cargo's cache, \
             clang-22 and opt-22:\n{stderr}\n{stdout}",
            output.status
        ),
    }
    assert!(stdout.contains("sweep: no failures"), "unexpected output:\n{stdout}");
    let runs = std::fs::read_to_string(out.join("runs.jsonl")).expect("runs.jsonl");
    let n = runs.lines().count();
    assert!(n >= 400, "the subset ran only {n} runs; the code bases did not build as expected");
    let checked = runs.lines().filter(|l| l.contains("\"oracle\":\"ok\"")).count();
    assert!(checked > 0, "the oracle checked no run at all");
}
