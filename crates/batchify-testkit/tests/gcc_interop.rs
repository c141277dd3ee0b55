//! GCC 12 callers of batchify's variants, where GCC's x86 vector function
//! ABI and LLVM's natural lowering disagree (`docs/gcc-abi.md`). The callee
//! `tests/abi/gcc/wide.c` is compiled by clang-22 with `-march=x86-64-v3`
//! (so the clones must not inherit AVX2 where their ISA lacks it) and its
//! `declare simd` variants are built by batchify:
//!
//! * `wide_caller.c`, compiled by GCC once per ISA, calls the variants from
//!   `#pragma omp simd` loops; `nm` shows which (GCC's AVX integer names
//!   `_ZGVcN4v_foo`, a `_ZGVbN2v_deref` taking a vector of pointers, ...);
//!   results equal the scalar functions (SSE, AVX, AVX2 run here; AVX-512 is
//!   built and linked, and runs only on a CPU with AVX-512F);
//! * `wide_direct.c` calls the variants that GCC 12's vectorizer does not
//!   reach (results wider than a register, returned through a hidden
//!   pointer; AVX masks in 128-bit pieces) declared as GCC passes them, both
//!   batchify's and GCC's own clones (renamed `gcc_ZGV...`).
//!
//! Skipped loudly (a failure under `BATCHIFY_REQUIRE_TOOLS=1`) without gcc.

use batchify_testkit::corpus::{compile_c, parse_module, run_checked as run, CLevel};
use batchify_testkit::skip;
use inkwell::context::Context;
use std::path::{Path, PathBuf};
use std::process::Command;

fn src(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/abi/gcc").join(name)
}

/// batchify's clones of `wide.c` (clang-22 `-march=x86-64-v3` IR), as an object.
fn ours(d: &Path) -> PathBuf {
    let bc = compile_c(&src("wide.c"), CLevel::O2, &["-fopenmp-simd", "-march=x86-64-v3"]).unwrap();
    let ctx = Context::create();
    let module = parse_module(&ctx, &bc, "wide").unwrap();
    let specs = batchify_core::select::requested_variants(batchify_core::llvm::Module::from_inkwell(&module)).unwrap();
    let names: Vec<&str> = specs.iter().map(|s| s.vector_name.as_str()).collect();
    for gcc_name in ["_ZGVcN4v_foo", "_ZGVcM4v_foo", "_ZGVcN8v_foo"] {
        assert!(names.contains(&gcc_name), "{gcc_name} not requested: {names:?}");
    }
    batchify_core::batchify_inkwell(&module, &specs, &Default::default()).unwrap();
    // The SSE clone of a v3 function has no AVX feature and the baseline CPU.
    let b = module.get_function("_ZGVbN2v_deref").unwrap();
    let attr = |k: &str| {
        let a = b.get_string_attribute(inkwell::attributes::AttributeLoc::Function, k).unwrap();
        a.get_string_value().to_str().unwrap().to_string()
    };
    let features = attr("target-features");
    assert!(!features.split(',').any(|f| f == "+avx" || f == "+avx2"), "{features}");
    assert_eq!(attr("target-cpu"), "x86-64");
    let ir = module.print_to_string().to_string();
    assert!(
        ir.contains("define void @_ZGVdN8vvv_bar(ptr noalias sret(<8 x i64>) align 32"),
        "wide result not in memory"
    );
    module.write_bitcode_to_path(d.join("ours.bc"));
    run(Command::new("clang-22").args(["-O2", "-c", "-o"]).arg(d.join("ours.o")).arg(d.join("ours.bc")));
    d.join("ours.o")
}

#[test]
fn gcc_loops_call_batchify_variants() {
    let test = "gcc_loops_call_batchify_variants";
    if !skip::require_tool(test, "gcc") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let ours = ours(d);
    let expected: [(&str, &str, &[&str]); 4] = [
        ("b", "-msse2", &["_ZGVbN4v_foo", "_ZGVbN2v_deref"]),
        ("c", "-mavx", &["_ZGVcN4v_foo", "_ZGVcN8vv_foo8", "_ZGVcN4v_deref"]),
        ("d", "-mavx2", &["_ZGVdN8v_foo", "_ZGVdN8vv_foo8", "_ZGVdN4v_deref"]),
        ("e", "-mavx512f", &["_ZGVeN16v_foo", "_ZGVeN8vv_foo8", "_ZGVeN8v_deref", "_ZGVeN8vvv_bar"]),
    ];
    let mut objects = Vec::new();
    for (isa, flag, calls) in expected {
        let obj = d.join(format!("caller_{isa}.o"));
        run(Command::new("gcc")
            .args(["-O3", "-fopenmp-simd", flag, &format!("-DSUF={isa}"), "-c", "-o"])
            .arg(&obj)
            .arg(src("wide_caller.c")));
        let nm = run(Command::new("nm").arg(&obj));
        for c in calls {
            assert!(nm.contains(&format!("U {c}")), "GCC's {isa} loop does not call {c}:\n{nm}");
        }
        objects.push(obj);
    }
    run(Command::new("gcc")
        .args(["-O2", "-o"])
        .arg(d.join("driver"))
        .arg(src("wide_driver.c"))
        .args(&objects)
        .arg(&ours));
    let isas = if skip::require_cpu(test, "avx512f") { "bcde" } else { "bcd" };
    let out = run(Command::new(d.join("driver")).arg(isas));
    assert!(out.contains(" 0 differ"), "{out}");
}

#[test]
fn gcc_lowered_variants_match_gcc_clones() {
    let test = "gcc_lowered_variants_match_gcc_clones";
    if !skip::require_tool(test, "gcc") || !skip::require_cpu(test, "avx2") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let ours = ours(d);
    run(Command::new("gcc").args(["-O2", "-fopenmp-simd", "-c", "-o"]).arg(d.join("gcc.o")).arg(src("wide.c")));
    let nm = run(Command::new("nm").arg(d.join("gcc.o")));
    let mut objcopy = Command::new("objcopy");
    for sym in nm.split_whitespace().filter(|s| s.starts_with("_ZGV")) {
        objcopy.arg(format!("--redefine-sym={sym}=gcc{sym}"));
    }
    for f in ["bar", "foo", "foo8", "deref"] {
        objcopy.arg(format!("--redefine-sym={f}=gcc_{f}"));
    }
    run(objcopy.arg(d.join("gcc.o")).arg(d.join("gcc2.o")));
    run(Command::new("gcc")
        .args(["-O2", "-mavx2", "-o"])
        .arg(d.join("direct"))
        .arg(src("wide_direct.c"))
        .arg(&ours)
        .arg(d.join("gcc2.o")));
    let out = run(&mut Command::new(d.join("direct")));
    assert!(out.contains(", 0 differ"), "{out}");
}
