//! C++ reference parameters against GCC: `tests/abi/gcc/linear_ref.cpp`'s
//! `linear(ref(x))` and `linear(val(x))` functions go through clang++ and the
//! `batchify` CLI; a g++ 12 caller's `omp simd` loops, linked against that
//! object only (no GCC clones exist), must call batchify's
//! `_ZGVdN8R4__Z1fRf` (checked with `nm`) and get the scalar results (the
//! program checks every element, and the values written through the
//! references). Skipped loudly without g++ or clang++-22, or on a CPU
//! without AVX2.

use batchify_testkit::corpus::run_checked as run;
use batchify_testkit::skip;
use std::path::Path;
use std::process::Command;

#[test]
fn gcc_callers_use_batchify_linear_ref_variants() {
    let test = "gcc_callers_use_batchify_linear_ref_variants";
    if !skip::require_tool(test, "g++") || !skip::require_tool(test, "clang++-22") || !skip::require_cpu(test, "avx2") {
        return;
    }
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/abi/gcc/linear_ref.cpp");
    let batchify = env!("CARGO_BIN_EXE_batchify");
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    run(Command::new("clang++-22")
        .args(["-O2", "-fopenmp-simd", "-march=x86-64-v3", "-DCALLEE", "-emit-llvm", "-c", "-o"])
        .arg(d.join("callee.bc"))
        .arg(&src));
    run(Command::new(batchify).arg(d.join("callee.bc")).arg("-o").arg(d.join("batched.bc")));
    run(Command::new("clang++-22").args(["-O2", "-c", "-o"]).arg(d.join("callee.o")).arg(d.join("batched.bc")));
    run(Command::new("g++")
        .args(["-O3", "-fopenmp-simd", "-march=x86-64-v3", "-c", "-o"])
        .arg(d.join("caller.o"))
        .arg(&src));
    let undefined = run(Command::new("nm").arg("-u").arg(d.join("caller.o")));
    assert!(undefined.contains("_ZGVdN8R4__Z1fRf"), "g++'s loop does not call the R4 variant:\n{undefined}");
    run(Command::new("g++").arg("-o").arg(d.join("app")).arg(d.join("caller.o")).arg(d.join("callee.o")));
    let out = run(&mut Command::new(d.join("app")));
    assert!(out.contains("bad 0"), "{out}");
}
