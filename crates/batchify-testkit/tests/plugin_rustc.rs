//! The pass plugin inside rustc: a generated crate of 50 `#[no_mangle]`
//! scalar functions in 10 modules, each asking for a variant through an
//! array-form request (`#[export_name = "__batchify_array_<variant>"]`, see
//! `docs/plugin.md`), compiled with `-Z llvm-plugins` at 16 codegen units,
//! with fat LTO and with thin LTO. In each build every variant is built
//! exactly once (`-C remark=batchify` shows one remark per clone built), defined once in the binary
//! (`nm`; at most once with fat LTO, which may inline it into the request), and the program checks every request against scalar calls on
//! random inputs and masks (exit 0 only if all lanes agree bit for bit).
//!
//! Needs rustc (stable with `RUSTC_BOOTSTRAP=1` is enough), `nm`, an AVX2
//! CPU (the variants are `_ZGVd`) and the built plugin
//! (`cargo build -p batchify-plugin`; `cargo xtask test` builds it first).
//! Skipped loudly otherwise.

use batchify_testkit::corpus::run_checked;
use batchify_testkit::skip;
use std::fmt::Write as _;
use std::process::Command;

const FUNCTIONS: usize = 50;
const MODULES: usize = 10;

/// One generated kernel: its scalar function, its request and the check
/// in `main`.
struct Kernel {
    variant: String,
    source: String,
    check: String,
}

fn kernel(i: usize) -> Kernel {
    let c = 1.0 + i as f32 * 0.125;
    let (variant, source, check) = match i % 5 {
        // A loop whose trip count differs between lanes.
        0 => (
            format!("_ZGVdN8vu_k{i}"),
            format!(
                "#[no_mangle]\npub extern \"C\" fn k{i}(x: f32, lo: f32) -> u32 {{\n    let mut y = x;\n    let mut n = \
                 0u32;\n    while y < lo && n < 60 {{\n        y = y * {c:?} + 0.25;\n        n += 1;\n    }}\n    n\n}}\n\
                 #[export_name = \"__batchify_array__ZGVdN8vu_k{i}\"]\npub unsafe extern \"C\" fn k{i}_x8(out: *mut \
                 u32, x: *const f32, lo: f32) {{\n    for k in 0..8 {{\n        unsafe {{ *out.add(k) = k{i}(*x.add(k), \
                 lo) }};\n    }}\n}}\n"
            ),
            format!(
                "    {{ let x = floats(&mut s, 8); let lo = floats(&mut s, 1)[0].abs(); let mut out = [0u32; 8];\n      \
                 unsafe {{ m::k{i}_x8(out.as_mut_ptr(), black_box(x.as_ptr()), lo) }};\n      for k in 0..8 {{ bad += \
                 (out[k] != m::k{i}(x[k], lo)) as u32; }} }}\n"
            ),
        ),
        // Divergent branches on floats.
        1 => (
            format!("_ZGVdN8vv_k{i}"),
            format!(
                "#[no_mangle]\npub extern \"C\" fn k{i}(x: f32, y: f32) -> f32 {{\n    if x > y * {c:?} {{ x * {c:?} - y \
                 }} else if x < -y {{ (y - x).abs() + {c:?} }} else {{ x.min(y) }}\n}}\n#[export_name = \
                 \"__batchify_array__ZGVdN8vv_k{i}\"]\npub unsafe extern \"C\" fn k{i}_x8(out: *mut f32, x: *const f32, \
                 y: *const f32) {{\n    for k in 0..8 {{\n        unsafe {{ *out.add(k) = k{i}(*x.add(k), *y.add(k)) \
                 }};\n    }}\n}}\n"
            ),
            format!(
                "    {{ let x = floats(&mut s, 8); let y = floats(&mut s, 8); let mut out = [0f32; 8];\n      unsafe {{ \
                 m::k{i}_x8(out.as_mut_ptr(), black_box(x.as_ptr()), y.as_ptr()) }};\n      for k in 0..8 {{ bad += \
                 (out[k].to_bits() != m::k{i}(x[k], y[k]).to_bits()) as u32; }} }}\n"
            ),
        ),
        // An integer loop with a lane-varying trip count.
        2 => (
            format!("_ZGVdN8vv_k{i}"),
            format!(
                "#[no_mangle]\npub extern \"C\" fn k{i}(a: u32, b: u32) -> u32 {{\n    let mut h = a ^ {i};\n    for _ \
                 in 0..(b % 9) {{\n        h = h.wrapping_mul(0x9E37_79B1).rotate_left(5) ^ b;\n    }}\n    h\n}}\n\
                 #[export_name = \"__batchify_array__ZGVdN8vv_k{i}\"]\npub unsafe extern \"C\" fn k{i}_x8(out: *mut \
                 u32, a: *const u32, b: *const u32) {{\n    for k in 0..8 {{\n        unsafe {{ *out.add(k) = \
                 k{i}(*a.add(k), *b.add(k)) }};\n    }}\n}}\n"
            ),
            format!(
                "    {{ let a = ints(&mut s, 8); let b = ints(&mut s, 8); let mut out = [0u32; 8];\n      unsafe {{ \
                 m::k{i}_x8(out.as_mut_ptr(), black_box(a.as_ptr()), b.as_ptr()) }};\n      for k in 0..8 {{ bad += \
                 (out[k] != m::k{i}(a[k], b[k])) as u32; }} }}\n"
            ),
        ),
        // A table lookup through uniform pointer and length, guarded.
        3 => (
            format!("_ZGVdN8uuv_k{i}"),
            format!(
                "#[no_mangle]\npub extern \"C\" fn k{i}(t: *const f32, n: u64, j: u32) -> f32 {{\n    if (j as u64) < n \
                 {{ (unsafe {{ *t.add(j as usize) }}) * {c:?} }} else {{ -1.0 }}\n}}\n#[export_name = \
                 \"__batchify_array__ZGVdN8uuv_k{i}\"]\npub unsafe extern \"C\" fn k{i}_x8(out: *mut f32, t: *const f32, \
                 n: u64, j: *const u32) {{\n    for k in 0..8 {{\n        unsafe {{ *out.add(k) = k{i}(t, n, *j.add(k)) \
                 }};\n    }}\n}}\n"
            ),
            format!(
                "    {{ let t = floats(&mut s, 16); let j: Vec<u32> = ints(&mut s, 8).iter().map(|v| v % 24).collect(); \
                 let mut out = [0f32; 8];\n      unsafe {{ m::k{i}_x8(out.as_mut_ptr(), black_box(t.as_ptr()), 16, \
                 j.as_ptr()) }};\n      for k in 0..8 {{ bad += (out[k].to_bits() != m::k{i}(t.as_ptr(), 16, \
                 j[k]).to_bits()) as u32; }} }}\n"
            ),
        ),
        // A masked variant on doubles: inactive lanes' results stay unwritten.
        _ => (
            format!("_ZGVdM4v_k{i}"),
            format!(
                "#[no_mangle]\npub extern \"C\" fn k{i}(x: f64) -> f64 {{\n    if x < 0.0 {{ -x * {c:?} }} else {{ \
                 x.sqrt() + {c:?} }}\n}}\n#[export_name = \"__batchify_array__ZGVdM4v_k{i}\"]\npub unsafe extern \"C\" \
                 fn k{i}_x4(out: *mut f64, x: *const f64, mask: *const u8) {{\n    for k in 0..4 {{\n        unsafe {{ \
                 if *mask.add(k) != 0 {{ *out.add(k) = k{i}(*x.add(k)) }} }};\n    }}\n}}\n"
            ),
            format!(
                "    {{ let x: Vec<f64> = floats(&mut s, 4).iter().map(|v| *v as f64).collect(); let mask: Vec<u8> = \
                 ints(&mut s, 4).iter().map(|v| (v % 2) as u8).collect();\n      let mut out = [7.5f64; 4];\n      \
                 unsafe {{ m::k{i}_x4(out.as_mut_ptr(), black_box(x.as_ptr()), mask.as_ptr()) }};\n      for k in 0..4 \
                 {{ let want = if mask[k] != 0 {{ m::k{i}(x[k]) }} else {{ 7.5 }}; bad += (out[k].to_bits() != \
                 want.to_bits()) as u32; }} }}\n"
            ),
        ),
    };
    Kernel { variant, source, check }
}

/// The crate: kernels spread over `MODULES` modules (so over codegen
/// units), and a `main` that checks each one 200 times.
fn program(kernels: &[Kernel]) -> String {
    let mut src = String::from("#![allow(clippy::all)]\nuse std::hint::black_box;\n");
    for m in 0..MODULES {
        let _ = writeln!(src, "mod m{m} {{");
        for k in kernels.iter().skip(m).step_by(MODULES) {
            src.push_str(&k.source);
        }
        src.push_str("}\n");
    }
    src.push_str("mod m {\n");
    for m in 0..MODULES {
        let _ = writeln!(src, "    pub use super::m{m}::*;");
    }
    src.push_str(
        "}\nfn next(s: &mut u64) -> u64 { *s ^= *s << 13; *s ^= *s >> 7; *s ^= *s << 17; *s }\nfn floats(s: &mut u64, \
         n: usize) -> Vec<f32> { (0..n).map(|_| { let r = next(s); match r % 16 { 0 => 0.0, 1 => -0.0, 2 => 1e30, _ \
         => ((r >> 11) as f32 / (1u64 << 53) as f32 - 0.5) * 64.0 } }).collect() }\nfn ints(s: &mut u64, n: usize) -> \
         Vec<u32> { (0..n).map(|_| (next(s) >> 7) as u32).collect() }\nfn main() {\n    let mut s = 0x2545_F491_4F6C_DD1Du64;\n    let mut \
         bad = 0u32;\n    for _ in 0..200 {\n",
    );
    for k in kernels {
        src.push_str(&k.check);
    }
    src.push_str(
        "    }\n    println!(\"mismatches: {bad}\");\n    std::process::exit(if bad == 0 { 0 } else { 1 });\n}\n",
    );
    src
}

/// The plugin library when it, rustc, nm and AVX2 are there; otherwise
/// `test` is skipped loudly (a failure where tools are required).
fn plugin_and_tools(test: &str) -> Option<std::path::PathBuf> {
    let plugin = batchify_testkit::plugin::require(test)?;
    let tools = skip::require_tool(test, "rustc") && skip::require_tool(test, "nm");
    (tools && skip::require_cpu(test, "avx2")).then_some(plugin)
}

#[test]
fn rustc_plugin_builds_each_variant_once_and_correctly() {
    let test = "rustc_plugin_builds_each_variant_once_and_correctly";
    let Some(plugin) = plugin_and_tools(test) else { return };
    let kernels: Vec<Kernel> = (0..FUNCTIONS).map(kernel).collect();
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("main.rs");
    std::fs::write(&src, program(&kernels)).unwrap();
    for (name, flags) in [
        ("cgu16", &["-C", "codegen-units=16"][..]),
        ("fat", &["-C", "codegen-units=16", "-C", "lto=fat"][..]),
        ("thin", &["-C", "codegen-units=16", "-C", "lto=thin"][..]),
    ] {
        let exe = dir.path().join(name);
        let out = Command::new("rustc")
            .env("RUSTC_BOOTSTRAP", "1")
            .args(["--edition=2021", "-O"])
            .args(flags)
            .arg(format!("-Zllvm-plugins={}", plugin.display()))
            .args(["-C", "passes=batchify", "-C", "remark=batchify", "-o"])
            .arg(&exe)
            .arg(&src)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{name}: rustc failed:\n{stderr}");
        let symbols = run_checked(Command::new("nm").arg(&exe));
        for k in &kernels {
            let built = stderr.lines().filter(|l| l.contains(&format!("built {}:", k.variant))).count();
            assert_eq!(built, 1, "{name}: {} built {built} times:\n{stderr}", k.variant);
            let defined = symbols.lines().filter(|l| l.ends_with(&format!(" {}", k.variant))).count();
            // Fat LTO may inline a variant into its only caller, the request.
            let expected = if name == "fat" { 0..=1 } else { 1..=1 };
            assert!(expected.contains(&defined), "{name}: {} defined {defined} times", k.variant);
        }
        let run = Command::new(&exe).output().unwrap();
        let stdout = String::from_utf8_lossy(&run.stdout);
        assert!(run.status.success() && stdout.contains("mismatches: 0"), "{name}: {stdout}");
    }
}

/// Pass parameters given to rustc take effect (issue 22, item 4): with
/// `-C 'passes=batchify<report;veclib=libmvec>'`, the automatic run at the
/// optimizer's early extension point takes the explicit parameters (the
/// shim records them when the pipeline is parsed), instead of building
/// everything with the defaults before rustc's extra passes run. So the
/// report is printed and the variant calls libmvec's `sin`/`cos`; the
/// program's results stay within libmvec's bound of the plain build's.
#[test]
fn rustc_pass_parameters_take_effect() {
    let test = "rustc_pass_parameters_take_effect";
    let Some(plugin) = plugin_and_tools(test) else { return };
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("kep.rs");
    std::fs::write(
        &src,
        "#[no_mangle]\npub extern \"C\" fn kep(m: f64, e: f64) -> f64 {\n    let mut x = m;\n    for _ in 0..50 {\n        \
         let d = (x - e * x.sin() - m) / (1.0 - e * x.cos());\n        x -= d;\n        if d.abs() < 1e-12 { break; }\n    \
         }\n    x\n}\n#[inline(never)]\n#[export_name = \"__batchify_array__ZGVdN4vv_kep\"]\npub unsafe extern \"C\" fn \
         kep_x4(out: *mut f64, m: *const f64, e: *const f64) {\n    for k in 0..4 { unsafe { *out.add(k) = \
         kep(*m.add(k), *e.add(k)) }; }\n}\nfn main() {\n    let (m, e) = ([0.1f64, 1.0, 2.0, 3.0], [0.1f64, 0.5, 0.9, \
         0.3]);\n    let mut o = [0f64; 4];\n    unsafe { kep_x4(o.as_mut_ptr(), m.as_ptr(), e.as_ptr()) };\n    for k in \
         0..4 {\n        let want = kep(m[k], e[k]);\n        assert!((o[k] - want).abs() <= 1e-9 * want.abs().max(1.0), \
         \"lane {k}: {} vs {want}\", o[k]);\n    }\n    println!(\"ok {:?}\", o);\n}\n",
    )
    .unwrap();
    let exe = dir.path().join("kep");
    let out = Command::new("rustc")
        .env("RUSTC_BOOTSTRAP", "1")
        .args(["--edition=2021", "-O"])
        .arg(format!("-Zllvm-plugins={}", plugin.display()))
        .args(["-C", "passes=batchify<report;veclib=libmvec>", "-o"])
        .arg(&exe)
        .arg(&src)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "rustc failed:\n{stderr}");
    assert!(stderr.contains("batchify: kep -> _ZGVdN4vv_kep: 4 lanes"), "no report:\n{stderr}");
    assert!(stderr.contains("veclib: sin -> _ZGVdN4v_sin"), "no libmvec sin in the report:\n{stderr}");
    let symbols = run_checked(Command::new("nm").arg(&exe));
    assert!(symbols.lines().any(|l| l.contains(" U _ZGVdN4v_sin")), "the variant does not call libmvec:\n{symbols}");
    let run = Command::new(&exe).output().unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(run.status.success() && stdout.starts_with("ok "), "{stdout}{}", String::from_utf8_lossy(&run.stderr));
}
