//! Callers written the way people write them, through the plugin (issue
//! 22), each compiled by clang with `-O2 -fopenmp-simd -march=x86-64-v3
//! -fpass-plugin=...` and otherwise default flags; the `omp simd` loop's
//! machine code must call the AVX2 variant (relocations in `objdump -dr`),
//! and the program's results must equal its scalar reference bit for bit:
//!
//! * `tests/front-doors/same_tu/`: the `declare simd` function and its
//!   caller in one C file (the inliner would take the call away);
//! * `tests/front-doors/cxx_invoke/`: a C++ function that is not
//!   `noexcept`, called where a `std::vector` is live (an `invoke`);
//! * `same_tu.c` with `-DF_ELSEWHERE` and `tests/front-doors/thinlto/`
//!   (the function in another file), linked
//!   with `-flto=thin -fuse-ld=lld` (the link imports the body and would
//!   inline it); the linked program's code must call the variant; with
//!   `-flto=full` the link inlines the variant, and `apply` must hold its
//!   AVX2 code.
//!
//! * `tests/front-doors/refused_loops/`: `omp simd` loops that LLVM's
//!   loop vectorizer refuses (a call with a uniform pointer argument, a
//!   `void` writer), which batchify batches itself; with the kernels in
//!   another file and in the same one.
//!
//! Needs clang-22, clang++-22, objdump, an AVX2 CPU and the built plugin;
//! skipped loudly otherwise.

use batchify_testkit::skip;
use std::path::Path;
use std::process::Command;

/// The plugin, or `None` after a loud skip of `test`.
fn setup(test: &str, compiler: &str) -> Option<std::path::PathBuf> {
    let plugin = batchify_testkit::plugin::require(test)?;
    let ok =
        skip::require_tool(test, compiler) && skip::require_tool(test, "objdump") && skip::require_cpu(test, "avx2");
    ok.then_some(plugin)
}

/// Compiles `sources` (in `tests/front-doors/<dir>`) with the plugin, checks
/// that the first object calls each of `variants`, links and runs the program, which
/// prints "0 of 1003 wrong" when every result equals its scalar reference.
fn build_and_run(compiler: &str, plugin: &Path, dir: &str, sources: &[&str], variants: &[&str]) {
    build_and_run_with(compiler, plugin, dir, sources, variants, &[])
}

/// [`build_and_run`] with `extra` flags for compiling and linking; with
/// `-flto=thin` the linked program (not the first object) must call
/// them; with `-flto=full`, whose link inlines them, its `apply` must
/// hold AVX2 code.
fn build_and_run_with(compiler: &str, plugin: &Path, dir: &str, sources: &[&str], variants: &[&str], extra: &[&str]) {
    let lto = extra.contains(&"-flto=thin");
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/front-doors").join(dir);
    let tmp = tempfile::tempdir().unwrap();
    let objects: Vec<_> = sources
        .iter()
        .map(|name| {
            let file = Path::new(name).file_name().unwrap().to_string_lossy();
            let obj = tmp.path().join(format!("{file}.o"));
            let out = Command::new(compiler)
                .args(["-O2", "-fopenmp-simd", "-march=x86-64-v3", "-c"])
                .args(extra)
                .arg(format!("-fpass-plugin={}", plugin.display()))
                .arg(src.join(name))
                .arg("-o")
                .arg(&obj)
                .output()
                .expect("run the compiler");
            assert!(out.status.success(), "{compiler} {name}: {}", String::from_utf8_lossy(&out.stderr));
            obj
        })
        .collect();
    let exe = tmp.path().join("program");
    let st = Command::new(compiler)
        .args(["-O2", "-fopenmp-simd", "-march=x86-64-v3"])
        .args(extra)
        .args(&objects)
        .arg("-lm")
        .arg("-o")
        .arg(&exe)
        .status()
        .unwrap();
    assert!(st.success(), "link");
    if extra.contains(&"-flto=full") {
        // The link inlines the variants into the loop: `apply` holds their
        // AVX2 code instead of calls.
        let dump = Command::new("objdump").arg("-d").arg("--disassemble=apply").arg(&exe).output().unwrap();
        let text = String::from_utf8_lossy(&dump.stdout);
        assert!(text.contains("%ymm"), "`apply` has no AVX2 code after the full LTO link:\n{text}");
    }
    let (dumped, what) = if lto { (&exe, "the linked program") } else { (&objects[0], sources[0]) };
    let dump = Command::new("objdump").arg("-dr").arg(dumped).output().expect("run objdump");
    let text = String::from_utf8_lossy(&dump.stdout);
    for variant in variants {
        let calls = text
            .lines()
            .filter(|l| {
                (l.contains("R_X86_64_PLT32") && l.contains(variant))
                    || (l.contains("call") && l.contains(&format!("<{variant}>")))
            })
            .count();
        assert!(calls > 0, "{what} does not call {variant}:\n{text}");
    }
    let run = Command::new(&exe).output().unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(run.status.success(), "{stdout}");
    assert!(stdout.contains("0 of 1003 wrong"), "{stdout}");
}

#[test]
fn same_file_caller_calls_the_variant() {
    let Some(plugin) = setup("plugin_front_doors::same_file_caller_calls_the_variant", "clang-22") else { return };
    // `g` calls libm under -fmath-errno.
    build_and_run("clang-22", &plugin, "same_tu", &["same_tu.c"], &["_ZGVdN8v_f", "_ZGVdN8v_g"]);
}

#[test]
fn invoke_in_an_omp_simd_loop_calls_the_variant() {
    let test = "plugin_front_doors::invoke_in_an_omp_simd_loop_calls_the_variant";
    let Some(plugin) = setup(test, "clang++-22") else { return };
    build_and_run("clang++-22", &plugin, "cxx_invoke", &["main.cpp", "kernel.cpp"], &["_ZGVdN8v__Z15halve_below_onef"]);
}

#[test]
fn refused_caller_loops_call_the_variants() {
    let test = "plugin_front_doors::refused_caller_loops_call_the_variants";
    let Some(plugin) = setup(test, "clang-22") else { return };
    let variants = ["_ZGVdN4uuv_horner", "_ZGVdN4ulv_put"];
    build_and_run("clang-22", &plugin, "refused_loops", &["main.c", "kernels.c"], &variants);
    // In one file, `put` is inlined into the loop (a store); `horner`,
    // which has a loop, is called.
    build_and_run_with("clang-22", &plugin, "refused_loops", &["main.c"], &["_ZGVdN4uuv_horner"], &["-DSAME_FILE"]);
}

#[test]
fn thin_lto_link_calls_the_variant() {
    let test = "plugin_front_doors::thin_lto_link_calls_the_variant";
    let Some(plugin) = setup(test, "clang-22") else { return };
    if !skip::require_tool(test, "ld.lld-22") {
        return;
    }
    // same_tu.c with `f` only declared; kernel.c defines it.
    let sources = ["../same_tu/same_tu.c", "kernel.c"];
    let flags = ["-flto=thin", "-fuse-ld=lld", "-DF_ELSEWHERE"];
    build_and_run_with("clang-22", &plugin, "thinlto", &sources, &["_ZGVdN8v_f"], &flags);
    // With the plugin in the linker too, `g`'s loop (libm under
    // -fmath-errno, whose attribute the link infers again) calls its
    // variant as well.
    let in_linker = format!("-Wl,--load-pass-plugin={}", plugin.display());
    let flags = ["-flto=thin", "-fuse-ld=lld", "-DF_ELSEWHERE", &in_linker];
    build_and_run_with("clang-22", &plugin, "thinlto", &sources, &["_ZGVdN8v_f", "_ZGVdN8v_g"], &flags);
}

#[test]
fn full_lto_link_inlines_the_variant() {
    let test = "plugin_front_doors::full_lto_link_inlines_the_variant";
    let Some(plugin) = setup(test, "clang-22") else { return };
    if !skip::require_tool(test, "ld.lld-22") {
        return;
    }
    let sources = ["../same_tu/same_tu.c", "kernel.c"];
    let flags = ["-flto=full", "-fuse-ld=lld", "-DF_ELSEWHERE"];
    build_and_run_with("clang-22", &plugin, "thinlto", &sources, &[], &flags);
}
