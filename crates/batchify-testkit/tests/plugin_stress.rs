//! The pass plugin under load in clang: 200 programs of the random program
//! generator (buffers, local arrays, divergent branches and loops, calls,
//! recursion), each compiled by `clang-22 -O2 -x ir -fpass-plugin=` with
//! `-mllvm -batchify-variant=` asking for the variant the fuzzer would ask
//! for, two compiles at a time. Every compile must succeed without a crash
//! or an error, and the object must define the variant (unless the
//! program's function is `internal`, whose clone LLVM may drop as unused).
//!
//! The clones' correctness is the fuzzer's and the oracle's job (the plugin
//! runs the same `batchify_module` as the CLI, checked by
//! `lit-tests/plugin/same-as-cli.ll`); this test is about the host process
//! surviving the plugin. Skipped loudly without clang-22, nm or the plugin.

use batchify_testkit::fuzz::{generate_for, program_seed, spec_for, FuzzOptions};
use batchify_testkit::skip;
use std::path::Path;
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

const PROGRAMS: usize = 200;
const SEED: u64 = 9_100_000;

/// Compiles program `i`; `Err` says what went wrong.
/// `Ok(true)` when the variant's symbol was checked in the object.
fn compile_one(i: usize, dir: &Path, plugin: &Path) -> Result<bool, String> {
    let seed = program_seed(SEED, i);
    let opts = FuzzOptions { masked: i % 2 == 1, width: [4, 8, 16][i % 3], ..FuzzOptions::default() };
    let program = generate_for(seed, &opts);
    let spec = spec_for(&program, &opts);
    let ll = dir.join(format!("p{i}.ll"));
    let obj = dir.join(format!("p{i}.o"));
    std::fs::write(&ll, &program.ir).map_err(|e| e.to_string())?;
    let out = Command::new("clang-22")
        .args(["-O2", "-c", "-x", "ir"])
        .arg(&ll)
        .arg(format!("-fpass-plugin={}", plugin.display()))
        .args(["-mllvm", &format!("-batchify-variant={}", spec.vector_name), "-o"])
        .arg(&obj)
        .output()
        .map_err(|e| e.to_string())?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() || stderr.contains("error") || stderr.contains("PLEASE submit") {
        return Err(format!("program {i} (seed {seed}): clang failed ({}):\n{stderr}", out.status));
    }
    if !program.internal {
        let nm = Command::new("nm").arg(&obj).output().map_err(|e| e.to_string())?;
        let symbols = String::from_utf8_lossy(&nm.stdout);
        if !symbols.lines().any(|l| l.ends_with(&format!(" {}", spec.vector_name))) {
            return Err(format!("program {i} (seed {seed}): {} is not defined in the object", spec.vector_name));
        }
    }
    Ok(!program.internal)
}

#[test]
fn clang_with_the_plugin_survives_200_generated_programs() {
    let test = "clang_with_the_plugin_survives_200_generated_programs";
    let plugin = batchify_testkit::plugin::library();
    if !plugin.exists() {
        skip::skip(test, &format!("the plugin {} is not built (cargo build -p batchify-plugin)", plugin.display()));
        return;
    }
    if !skip::require_tool(test, "clang-22") || !skip::require_tool(test, "nm") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let next = AtomicUsize::new(0);
    let failures = Mutex::new(Vec::new());
    let symbols_checked = AtomicUsize::new(0);
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= PROGRAMS {
                    break;
                }
                match compile_one(i, dir.path(), &plugin) {
                    Ok(checked) => {
                        symbols_checked.fetch_add(checked as usize, Ordering::Relaxed);
                    }
                    Err(e) => failures.lock().unwrap().push(e),
                }
            });
        }
    });
    let failures = failures.into_inner().unwrap();
    assert!(failures.is_empty(), "{} of {PROGRAMS} compiles failed:\n{}", failures.len(), failures.join("\n"));
    let checked = symbols_checked.into_inner();
    assert!(checked >= PROGRAMS / 2, "only {checked} of {PROGRAMS} variants could be looked for in their object");
}
