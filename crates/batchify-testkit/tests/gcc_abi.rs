//! ABI interoperability with GCC: batchify's masked x86 clones of
//! `tests/abi/gcc/kern.c` (built from clang-22 IR, variants taken from the
//! `declare simd` attributes) are called from a GCC-compiled driver side by
//! side with GCC 12's own clones of the same source, with random masks
//! (a vector of the characteristic type on SSE/AVX/AVX2, a `__mmask16` on
//! AVX-512). Every active lane must agree bit for bit. Skipped loudly (a
//! failure under `BATCHIFY_REQUIRE_TOOLS=1`) when gcc or AVX-512 is missing.

use batchify_testkit::corpus::{compile_c, parse_module, run_checked as run, CLevel};
use batchify_testkit::skip;
use inkwell::context::Context;
use std::path::Path;
use std::process::Command;

#[test]
fn masked_clones_interoperate_with_gcc() {
    let test = "masked_clones_interoperate_with_gcc";
    if !skip::require_tool(test, "gcc") || !skip::require_cpu(test, "avx512f") {
        return;
    }
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/abi/gcc");
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // batchify's clones, from clang IR, for the variants the attributes ask for.
    let bc = compile_c(&src.join("kern.c"), CLevel::O2, &["-fopenmp-simd"]).unwrap();
    let ctx = Context::create();
    let module = parse_module(&ctx, &bc, "kern").unwrap();
    let specs = batchify_core::select::requested_variants(batchify_core::llvm::Module::from_inkwell(&module)).unwrap();
    let names: Vec<&str> = specs.iter().map(|s| s.vector_name.as_str()).collect();
    assert_eq!(names.len(), 4, "{names:?}");
    let reports = batchify_core::batchify_inkwell(&module, &specs, &Default::default()).unwrap();
    assert!(reports.iter().all(|r| r.fallback.is_none()));
    module.write_bitcode_to_path(d.join("ours.bc"));
    run(Command::new("clang-22").args(["-O2", "-c", "-o"]).arg(d.join("ours.o")).arg(d.join("ours.bc")));
    // GCC's clones, renamed gcc_*.
    run(Command::new("gcc").args(["-O2", "-fopenmp-simd", "-c", "-o"]).arg(d.join("gcc.o")).arg(src.join("kern.c")));
    let mut objcopy = Command::new("objcopy");
    for n in &names {
        objcopy.arg(format!("--redefine-sym={n}=gcc{n}"));
    }
    objcopy.arg("--redefine-sym=kern=gcc_kern").arg(d.join("gcc.o")).arg(d.join("gcc2.o"));
    run(&mut objcopy);
    run(Command::new("gcc")
        .args(["-O2", "-mavx512f", "-o"])
        .arg(d.join("driver"))
        .arg(src.join("driver.c"))
        .arg(d.join("ours.o"))
        .arg(d.join("gcc2.o")));
    let out = run(&mut Command::new(d.join("driver")));
    assert!(out.contains(", 0 differ"), "{out}");
    let checked: usize = out.split_whitespace().next().and_then(|n| n.parse().ok()).unwrap_or(0);
    assert!(checked > 10_000, "{out}");
}
