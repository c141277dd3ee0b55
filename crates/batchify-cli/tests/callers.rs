//! The caller side (`batchify_core::callers`, on by default in the CLI):
//! `tests/abi/callers/caller.c` sees only the `declare simd` declarations of
//! `kern` and `isq`. Compiled with `clang-22 -O2 -march=x86-64-v3
//! -fopenmp-simd -emit-llvm`, run through `batchify`, and compiled with
//! `clang-22 -O3 -march=x86-64-v3`, its loops (a plain loop, `#pragma omp
//! simd` loops with and without a condition, float and int) call the AVX2
//! variants (checked in the assembly, function by function); linked against
//! batchify's variants of `callee.c`, and against GCC 12's own clones of it,
//! every result equals the scalar call.
//! With `--no-callers` no loop calls a variant. Skipped (with a message)
//! without clang-22 or AVX2.

use std::path::{Path, PathBuf};
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_batchify");

fn src(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/abi/callers").join(name)
}

fn run(cmd: &mut Command) -> String {
    let out = cmd.output().unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}"));
    let text = String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{cmd:?} failed:\n{text}");
    text
}

/// `clang-22 -O2 -march=x86-64-v3 -fopenmp-simd -emit-llvm` of `c`, then
/// `batchify` with `flags`, then `clang-22 -O3 -march=x86-64-v3` to `out`
/// (`-S`: assembly).
fn build(d: &Path, c: &str, flags: &[&str], out: &str, asm: bool) -> PathBuf {
    let bc = d.join(format!("{c}.bc"));
    let bc2 = d.join(format!("{c}.{out}.bc"));
    run(Command::new("clang-22")
        .args(["-O2", "-march=x86-64-v3", "-fopenmp-simd", "-emit-llvm", "-c", "-o"])
        .arg(&bc)
        .arg(src(c)));
    run(Command::new(BIN).arg(&bc).arg("-o").arg(&bc2).args(flags));
    let o = d.join(out);
    let mut clang = Command::new("clang-22");
    clang.args(["-O3", "-march=x86-64-v3", "-Wno-pass-failed", if asm { "-S" } else { "-c" }, "-o"]).arg(&o).arg(&bc2);
    run(&mut clang);
    o
}

/// The functions of an assembly file, each with its text.
fn functions(asm: &str) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for line in asm.lines() {
        let label = line.split_once(':').map(|(n, _)| n).filter(|n| {
            !line.starts_with(char::is_whitespace) && !n.is_empty() && !n.starts_with('.') && !n.contains([' ', '\t'])
        });
        if let Some(name) = label {
            out.push((name.to_string(), String::new()));
        } else if let Some(f) = out.last_mut() {
            f.1.push_str(line);
            f.1.push('\n');
        }
    }
    out
}

#[test]
fn caller_loops_call_the_avx2_variants() {
    if Command::new("clang-22").arg("--version").output().is_err() || !std::is_x86_feature_detected!("avx2") {
        eprintln!("SKIPPED caller_loops_call_the_avx2_variants: needs clang-22 and an AVX2 CPU");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let asm = std::fs::read_to_string(build(d, "caller.c", &[], "caller.s", true)).unwrap();
    let fns = functions(&asm);
    let body = |name: &str| fns.iter().find(|(n, _)| n == name).map(|(_, b)| b.clone()).unwrap_or_default();
    assert!(body("plain").contains("_ZGVdN8vv_kern"), "plain:\n{}", body("plain"));
    assert!(body("ints").contains("_ZGVdN8vv_isq"), "ints:\n{}", body("ints"));
    // Masked calls go through the adapter that encodes GCC's mask.
    assert!(body("masked").contains("__batchify.call._ZGVdM8vv_kern"), "masked:\n{}", body("masked"));
    assert!(body("__batchify.call._ZGVdM8vv_kern").contains("_ZGVdM8vv_kern@PLT"));
    assert!(body("ints_masked").contains("__batchify.call._ZGVdM8vv_isq"), "ints_masked:\n{}", body("ints_masked"));
    // Results, linked against batchify's variants of the callee.
    let caller = build(d, "caller.c", &[], "caller.o", false);
    let callee = build(d, "callee.c", &[], "callee.o", false);
    let exe = d.join("main");
    run(Command::new("clang-22").args(["-O1", "-o"]).arg(&exe).arg(src("main.c")).arg(&caller).arg(&callee));
    let out = run(&mut Command::new(&exe));
    assert!(out.contains(" 0 differ"), "{out}");
    // The same caller linked against GCC 12's own clones of the callee.
    if Command::new("gcc").arg("--version").output().is_ok() {
        let gcc_callee = d.join("gcc_callee.o");
        run(Command::new("gcc").args(["-O2", "-fopenmp-simd", "-c", "-o"]).arg(&gcc_callee).arg(src("callee.c")));
        let exe = d.join("main_gcc");
        run(Command::new("clang-22").args(["-O1", "-o"]).arg(&exe).arg(src("main.c")).arg(&caller).arg(&gcc_callee));
        let out = run(&mut Command::new(&exe));
        assert!(out.contains(" 0 differ"), "against GCC's clones: {out}");
    } else {
        eprintln!("SKIPPED caller_loops_call_the_avx2_variants (GCC's clones): needs gcc");
    }
    // --no-callers: the loops call the scalar functions only.
    let asm = std::fs::read_to_string(build(d, "caller.c", &["--no-callers"], "plain.s", true)).unwrap();
    assert!(!asm.contains("_ZGV"), "{asm}");
}
