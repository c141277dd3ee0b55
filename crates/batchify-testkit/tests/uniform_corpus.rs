//! Oracle tests over the uniform-control-flow corpus (`tests/corpus/uniform`):
//! every function of every file, as C at `-O2` and at `-O0` + mem2reg and as
//! hand-written `.ll`, batched at N = 2, 4, 8, 16 and checked bit for bit
//! against N scalar calls.

use batchify_core::Options;
use batchify_testkit::corpus::{compile_c, parse_module, specs_for_module, CLevel, Directives};
use batchify_testkit::{CheckConfig, Oracle};
use inkwell::context::Context;
use std::path::{Path, PathBuf};

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus/uniform")
}

/// Batches and checks one file at one level and width; returns the number
/// of functions checked, or a description of every failure.
fn check_file(path: &Path, level: CLevel, width: u32) -> Result<usize, String> {
    let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    let dirs = Directives::parse(&text);
    let bytes =
        if path.extension().is_some_and(|e| e == "c") { compile_c(path, level, &[])? } else { text.into_bytes() };
    let ctx = Context::create();
    let module = parse_module(&ctx, &bytes, &path.to_string_lossy())?;
    let specs = specs_for_module(&module, &dirs, width, level);
    batchify_core::batchify_inkwell(&module, &specs, &Options::default()).map_err(|e| e.to_string())?;
    let oracle = Oracle::new(&module, &specs).map_err(|e| e.to_string())?;
    oracle.check_all(&CheckConfig { trials: 100, ..Default::default() }).map_err(|e| e.to_string())?;
    Ok(specs.len())
}

fn run_corpus(ext: &str, levels: &[CLevel]) {
    let mut files: Vec<PathBuf> = std::fs::read_dir(corpus_dir())
        .expect("corpus directory exists")
        .map(|e| e.expect("readable entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == ext))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no .{ext} files in the corpus");
    let mut failures = Vec::new();
    let mut checked = 0;
    for f in &files {
        for &level in levels {
            for width in [2, 4, 8, 16] {
                match check_file(f, level, width) {
                    Ok(n) => checked += n,
                    Err(e) => failures.push(format!("{} {level:?} N={width}: {e}", f.display())),
                }
            }
        }
    }
    assert!(failures.is_empty(), "{} failure(s):\n{}", failures.len(), failures.join("\n"));
    assert!(checked >= files.len() * 4, "too few functions checked: {checked}");
    eprintln!("checked {checked} (function, level, width) combinations");
}

#[test]
fn c_corpus_at_o2_and_o0() {
    run_corpus("c", &[CLevel::O2, CLevel::O0Mem2Reg]);
}

#[test]
fn ll_corpus() {
    run_corpus("ll", &[CLevel::O2]);
}
