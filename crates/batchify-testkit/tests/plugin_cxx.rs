//! C++ callers of `declare simd` functions that are not `noexcept`
//! (issue 22, item 2): `tests/front-doors/cxx_invoke/`, compiled by
//! `clang++-22 -O2 -fopenmp-simd -march=x86-64-v3 -fpass-plugin=...` with
//! default flags. The `omp simd` loop's call is an `invoke` (a
//! `std::vector` is live); its machine code must call the AVX2 variant
//! (relocations in `objdump -dr`), and the program's results must equal
//! its scalar reference bit for bit.
//!
//! Needs clang++-22, objdump, an AVX2 CPU and the built plugin; skipped
//! loudly otherwise.

use batchify_testkit::skip;
use std::path::Path;
use std::process::Command;

const TEST: &str = "plugin_cxx::invoke_in_an_omp_simd_loop_calls_the_variant";

#[test]
fn invoke_in_an_omp_simd_loop_calls_the_variant() {
    let Some(plugin) = batchify_testkit::plugin::require(TEST) else { return };
    if !skip::require_tool(TEST, "clang++-22") || !skip::require_tool(TEST, "objdump") {
        return;
    }
    if !skip::require_cpu(TEST, "avx2") {
        return;
    }
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/front-doors/cxx_invoke");
    let dir = tempfile::tempdir().unwrap();
    let compile = |name: &str| {
        let obj = dir.path().join(format!("{name}.o"));
        let out = Command::new("clang++-22")
            .args(["-O2", "-fopenmp-simd", "-march=x86-64-v3", "-c"])
            .arg(format!("-fpass-plugin={}", plugin.display()))
            .arg(src.join(format!("{name}.cpp")))
            .arg("-o")
            .arg(&obj)
            .output()
            .expect("run clang++-22");
        assert!(out.status.success(), "clang++-22 {name}.cpp: {}", String::from_utf8_lossy(&out.stderr));
        obj
    };
    let main = compile("main");
    let kernel = compile("kernel");
    let dump = Command::new("objdump").arg("-dr").arg(&main).output().expect("run objdump");
    let text = String::from_utf8_lossy(&dump.stdout);
    let variant = "_ZGVdN8v__Z15halve_below_onef";
    let calls = text.lines().filter(|l| l.contains("R_X86_64_PLT32") && l.contains(variant)).count();
    assert!(calls > 0, "main.o does not call {variant}:\n{text}");
    let exe = dir.path().join("cxx_invoke");
    let st = Command::new("clang++-22").arg(&main).arg(&kernel).arg("-o").arg(&exe).status().unwrap();
    assert!(st.success(), "link");
    let run = Command::new(&exe).output().unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(run.status.success(), "{stdout}");
    assert!(stdout.contains("0 of 1003 wrong"), "{stdout}");
}
