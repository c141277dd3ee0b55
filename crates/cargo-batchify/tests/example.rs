//! `cargo-batchify` (the binary this package builds) on real projects:
//!
//! * `examples/rust-mandelbrot`'s tests, in release, under a plain
//!   `cargo test` and under `cargo-batchify test`, sharing one target
//!   directory: both pass; only the cargo-batchify build defines the
//!   `_ZGVd...` variants (`nm` on the test binary) and reports them built
//!   (`-C remark=batchify`); a plain build after it is still plain.
//! * a tiny crate: the user's `RUSTFLAGS`, `build.rustflags` and
//!   `RUSTC_WRAPPER` still apply under cargo-batchify, and a crate first
//!   built plainly is rebuilt with the plugin.
//! * errors: a plugin for another LLVM, a file without the marker, an
//!   unknown option: one line, non-zero exit; `check` and `doc` run as
//!   plain cargo, with cargo's exit status.
//!
//! The plugin is `BATCHIFY_PLUGIN`, else the workspace's debug build
//! (`cargo build --workspace --all-targets` builds it). Skipped loudly
//! without it, cargo, rustc, nm or AVX2.

use batchify_testkit::skip;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_cargo-batchify");

/// The variants rust-mandelbrot's three functions must get.
const VARIANTS: &[&str] =
    &["_ZGVdN8vvu___batchify_s_mandel_", "_ZGVdN8v___batchify_s_cbrt_newton_", "_ZGVdN8uuuuv___batchify_s_interp_"];

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The plugin, as in `crates/batchify/tests/plugin.rs`.
fn plugin() -> PathBuf {
    if let Some(p) = std::env::var_os("BATCHIFY_PLUGIN") {
        return PathBuf::from(p);
    }
    let target = std::env::var_os("CARGO_TARGET_DIR").map(PathBuf::from).unwrap_or_else(|| workspace().join("target"));
    target.join("debug/libbatchify_plugin.so")
}

fn cargo() -> PathBuf {
    std::env::var_os("CARGO").map(PathBuf::from).unwrap_or_else(|| "cargo".into())
}

/// A command with none of the outer build's flags, wrapper or target
/// directory, nor cargo-batchify's own variables.
fn clean(mut cmd: Command) -> Command {
    for var in [
        "RUSTFLAGS",
        "CARGO_ENCODED_RUSTFLAGS",
        "RUSTC_WRAPPER",
        "RUSTC_WORKSPACE_WRAPPER",
        "CARGO_TARGET_DIR",
        "CARGO_BUILD_TARGET_DIR",
    ] {
        cmd.env_remove(var);
    }
    for (var, _) in std::env::vars_os() {
        if var.to_string_lossy().starts_with("__CARGO_BATCHIFY") {
            cmd.env_remove(var);
        }
    }
    cmd
}

fn run(mut cmd: Command, what: &str) -> Output {
    cmd.output().unwrap_or_else(|e| panic!("{what}: cannot run: {e}"))
}

fn text(out: &Output) -> (String, String) {
    (String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
}

/// The path of the binary cargo reports running for `tests/lanes.rs`.
fn lanes_binary(stderr: &str) -> PathBuf {
    let line = stderr.lines().find(|l| l.contains("Running tests/lanes.rs")).expect("cargo ran tests/lanes.rs");
    let start = line.find('(').unwrap() + 1;
    PathBuf::from(&line[start..line.rfind(')').unwrap()])
}

/// The defined symbols of `binary` that start with `_ZGVd`.
fn variants_in(binary: &Path) -> Vec<String> {
    let out = Command::new("nm").arg("--defined-only").arg(binary).output().unwrap();
    assert!(out.status.success(), "nm {} failed", binary.display());
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.split_whitespace().nth(2))
        .filter(|s| s.starts_with("_ZGVd"))
        .map(str::to_string)
        .collect()
}

fn ready(test: &str, tools: &[&str]) -> Option<PathBuf> {
    let plugin = plugin();
    if !plugin.exists() {
        skip::skip(test, &format!("the plugin {} is not built (cargo build -p batchify-plugin)", plugin.display()));
        return None;
    }
    for tool in tools {
        if !skip::require_tool(test, tool) {
            return None;
        }
    }
    if !skip::require_cpu(test, "avx2") {
        return None;
    }
    Some(plugin)
}

#[test]
fn example_tests_pass_plain_and_under_cargo_batchify() {
    let Some(plugin) = ready("example_tests_pass_plain_and_under_cargo_batchify", &["cargo", "rustc", "nm"]) else {
        return;
    };
    let manifest = workspace().join("examples/rust-mandelbrot/Cargo.toml");
    let target = Path::new(env!("CARGO_TARGET_TMPDIR")).join("rust-mandelbrot");
    let args = |cmd: &mut Command| {
        cmd.args(["test", "--release", "--locked", "--manifest-path"]).arg(&manifest).arg("--target-dir").arg(&target);
    };

    let plain = |round: &str| {
        let mut cmd = clean(Command::new(cargo()));
        args(&mut cmd);
        let out = run(cmd, "cargo test");
        let (stdout, stderr) = text(&out);
        assert!(out.status.success() && stdout.contains("8 passed"), "plain cargo test ({round}):\n{stdout}\n{stderr}");
        let binary = lanes_binary(&stderr);
        assert!(!binary.starts_with(target.join("batchify")), "{}", binary.display());
        let found = variants_in(&binary);
        assert!(found.is_empty(), "plain build ({round}) has variants {found:?}");
    };
    plain("first");

    let mut cmd = clean(Command::new(BIN));
    args(&mut cmd);
    cmd.env("BATCHIFY_PLUGIN", &plugin).env("RUSTFLAGS", "-C remark=batchify");
    let out = run(cmd, "cargo-batchify test");
    let (stdout, stderr) = text(&out);
    assert!(out.status.success() && stdout.contains("8 passed"), "cargo-batchify test:\n{stdout}\n{stderr}");
    let binary = lanes_binary(&stderr);
    assert!(binary.starts_with(target.join("batchify/release")), "{}", binary.display());
    let found = variants_in(&binary);
    for variant in VARIANTS {
        assert!(stderr.contains(&format!("built {variant}")), "no remark for {variant}:\n{stderr}");
        assert_eq!(found.iter().filter(|s| s.starts_with(variant)).count(), 1, "{variant} in {found:?}");
    }

    // The plugin build left the plain one alone.
    plain("after cargo-batchify");
}

/// A tiny package in `dir` whose library compiles only with the cfgs
/// `needed` set and has one batched function.
fn tiny_package(dir: &Path, needed: &[&str]) {
    std::fs::create_dir_all(dir.join("src")).unwrap();
    let batchify = workspace().join("crates/batchify");
    std::fs::write(
        dir.join("Cargo.toml"),
        format!(
            "[package]\nname = \"tiny\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n\n[dependencies]\nbatchify = {{ path = {:?} }}\n",
            batchify.display().to_string()
        ),
    )
    .unwrap();
    let mut lib = String::new();
    for cfg in needed {
        lib += &format!("#[cfg(not({cfg}))]\ncompile_error!(\"{cfg} is not set\");\n");
    }
    lib += "#[batchify::batch(width = 8)]\npub fn twice(x: f32) -> f32 {\n    if x > 1.0 { x * 2.0 } else { x }\n}\n";
    std::fs::write(dir.join("src/lib.rs"), lib).unwrap();
}

#[test]
fn user_flags_and_wrapper_still_apply() {
    let Some(plugin) = ready("user_flags_and_wrapper_still_apply", &["cargo", "rustc"]) else {
        return;
    };
    let tmp = Path::new(env!("CARGO_TARGET_TMPDIR")).join("tiny");
    let _ = std::fs::remove_dir_all(&tmp);
    let (pkg, target) = (tmp.join("pkg"), tmp.join("target"));
    tiny_package(&pkg, &["from_rustflags"]);
    let manifest = pkg.join("Cargo.toml");
    let build = |program: &Path, extra_env: &[(&str, &str)]| {
        let mut cmd = clean(Command::new(program));
        cmd.args(["build", "--offline", "--manifest-path"]).arg(&manifest).arg("--target-dir").arg(&target);
        cmd.env("BATCHIFY_PLUGIN", &plugin).env("RUSTFLAGS", "--cfg from_rustflags -C remark=batchify");
        for (k, v) in extra_env {
            cmd.env(k, v);
        }
        let out = run(cmd, "build tiny");
        let (stdout, stderr) = text(&out);
        assert!(out.status.success(), "{}:\n{stdout}\n{stderr}", program.display());
        stderr
    };

    // A plain build first: then cargo-batchify must still build `tiny`
    // with the plugin (its own target directory), through the user's
    // wrapper, which logs each rustc command line.
    let stderr = build(&cargo(), &[]);
    assert!(!stderr.contains("built _ZGVd"), "{stderr}");
    let log = tmp.join("wrapper.log");
    let wrapper = tmp.join("wrapper.sh");
    std::fs::write(&wrapper, format!("#!/bin/sh\necho \"$@\" >> '{}'\nexec \"$@\"\n", log.display())).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let stderr = build(Path::new(BIN), &[("RUSTC_WRAPPER", wrapper.to_str().unwrap())]);
    assert!(stderr.contains("built _ZGVdN8v___batchify_s_twice_"), "{stderr}");
    let logged = std::fs::read_to_string(&log).expect("the user's wrapper ran");
    let tiny = logged.lines().find(|l| l.contains("--crate-name tiny")).expect("the wrapper compiled tiny");
    assert!(tiny.contains("--cfg from_rustflags"), "{tiny}");
    assert!(tiny.contains("-Zllvm-plugins=") && tiny.contains("passes=batchify"), "{tiny}");
    assert!(target.join("batchify/debug/libtiny.rlib").exists());

    // `build.rustflags` from the project's config (no RUSTFLAGS) applies
    // too; the target directory comes from CARGO_TARGET_DIR this time,
    // through `cargo metadata`.
    tiny_package(&pkg, &["from_config"]);
    std::fs::create_dir_all(pkg.join(".cargo")).unwrap();
    std::fs::write(
        pkg.join(".cargo/config.toml"),
        "[build]\nrustflags = [\"--cfg\", \"from_config\", \"-C\", \"remark=batchify\"]\n",
    )
    .unwrap();
    let rlib = target.join("batchify/debug/libtiny.rlib");
    std::fs::remove_file(&rlib).unwrap();
    let mut cmd = clean(Command::new(BIN));
    cmd.current_dir(&pkg).args(["batchify", "build", "--offline"]);
    cmd.env("BATCHIFY_PLUGIN", &plugin).env("CARGO_TARGET_DIR", &target);
    let out = run(cmd, "build tiny with config");
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert!(stderr.contains("built _ZGVdN8v___batchify_s_twice_"), "{stderr}");
    assert!(rlib.exists(), "{} was not rebuilt", rlib.display());
}

/// batchify's own options before the command (`cargo batchify --veclib
/// libmvec --report build`) become pass parameters: the report is printed
/// and a batched `exp` calls glibc's vector `exp`; changing them rebuilds.
#[test]
fn batchify_options_reach_the_plugin() {
    let Some(plugin) = ready("batchify_options_reach_the_plugin", &["cargo", "rustc", "nm"]) else {
        return;
    };
    let tmp = Path::new(env!("CARGO_TARGET_TMPDIR")).join("options");
    let _ = std::fs::remove_dir_all(&tmp);
    let (pkg, target) = (tmp.join("pkg"), tmp.join("target"));
    tiny_package(&pkg, &[]);
    let lib =
        "#[batchify::batch(width = 4)]\npub fn damp(x: f64) -> f64 {\n    if x > 0.0 { (-x).exp() } else { x }\n}\n";
    std::fs::write(pkg.join("src/lib.rs"), lib).unwrap();
    let manifest = pkg.join("Cargo.toml");
    let build = |options: &[&str]| {
        let mut cmd = clean(Command::new(BIN));
        cmd.arg("batchify").args(options).args(["build", "--release", "--offline", "--manifest-path"]);
        cmd.arg(&manifest).arg("--target-dir").arg(&target).env("BATCHIFY_PLUGIN", &plugin);
        let out = run(cmd, "build with options");
        let (stdout, stderr) = text(&out);
        assert!(out.status.success(), "{stdout}\n{stderr}");
        stderr
    };
    let rlib = target.join("batchify/release/libtiny.rlib");
    let symbols = || {
        let out = Command::new("nm").arg(&rlib).output().unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let stderr = build(&["--veclib", "libmvec", "--report"]);
    assert!(stderr.contains("batchify: damp") || stderr.contains("_ZGVdN4v___batchify_s_damp_"), "{stderr}");
    assert!(symbols().contains("U _ZGVdN4v_exp"), "no libmvec call:\n{}", symbols());
    // Without the options: rebuilt, exact `exp` per lane again.
    let stderr = build(&[]);
    assert!(stderr.contains("the plugin or its options changed"), "{stderr}");
    assert!(!symbols().contains("_ZGVdN4v_exp"), "{}", symbols());
    let (code, stderr) = batchify_with(&plugin, &["batchify", "--veclib", "fast", "build"]);
    assert_eq!(code, Some(101));
    assert!(stderr.contains("`--veclib fast`: expected one of none, libmvec"), "{stderr}");
}

/// Runs cargo-batchify with `plugin` and returns its exit code and stderr.
fn batchify_with(plugin: &Path, args: &[&str]) -> (Option<i32>, String) {
    let mut cmd = clean(Command::new(BIN));
    cmd.args(args).env("BATCHIFY_PLUGIN", plugin);
    let out = run(cmd, "cargo-batchify");
    (out.status.code(), text(&out).1)
}

#[test]
fn errors_are_one_line() {
    let test = "errors_are_one_line";
    if !skip::require_tool(test, "rustc") {
        return;
    }
    let rustc = Command::new("rustc").arg("-vV").output().unwrap();
    let llvm = String::from_utf8_lossy(&rustc.stdout)
        .lines()
        .find_map(|l| l.strip_prefix("LLVM version: ").map(|v| v.split('.').next().unwrap().to_string()))
        .expect("rustc -vV shows its LLVM");
    let tmp = tempfile_dir("errors");

    let other = tmp.join("other.so");
    let other_major: u32 = llvm.parse::<u32>().unwrap() + 1;
    std::fs::write(&other, format!("\x7fELF....batchify-plugin-llvm-major={other_major}\0....")).unwrap();
    let (code, stderr) = batchify_with(&other, &["batchify", "build"]);
    assert_eq!(code, Some(101), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.starts_with("cargo-batchify: error: the plugin")
            && stderr.contains(&format!("built for LLVM {other_major}, but rustc uses LLVM {llvm}")),
        "{stderr}"
    );

    let unmarked = tmp.join("unmarked.so");
    std::fs::write(&unmarked, b"\x7fELF no marker").unwrap();
    let (code, stderr) = batchify_with(&unmarked, &["build"]);
    assert_eq!(code, Some(101));
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("has no LLVM version marker"), "{stderr}");

    let (code, stderr) = batchify_with(&tmp.join("missing.so"), &["batchify", "test"]);
    assert_eq!(code, Some(101));
    assert!(stderr.starts_with("cargo-batchify: error: BATCHIFY_PLUGIN=") && stderr.lines().count() == 1, "{stderr}");

    let (code, stderr) = batchify_with(&other, &["batchify", "--bogus"]);
    assert_eq!(code, Some(101));
    assert!(stderr.contains("unknown option `--bogus`") && stderr.lines().count() == 1, "{stderr}");

    // Commands that generate no code run as plain cargo (no plugin needed,
    // so the plugin of another LLVM does not matter), with cargo's status.
    let pkg = tmp.join("check_pkg");
    std::fs::create_dir_all(pkg.join("src")).unwrap();
    std::fs::write(
        pkg.join("Cargo.toml"),
        "[package]\nname = \"check_pkg\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n",
    )
    .unwrap();
    std::fs::write(pkg.join("src/lib.rs"), "pub fn f() -> u32 { 1 }\n").unwrap();
    let manifest = pkg.join("Cargo.toml");
    for sub in ["check", "doc"] {
        let (code, stderr) =
            batchify_with(&other, &["batchify", sub, "--offline", "--manifest-path", manifest.to_str().unwrap()]);
        assert_eq!(code, Some(0), "cargo batchify {sub}: {stderr}");
    }
    std::fs::write(pkg.join("src/lib.rs"), "pub fn f() -> u32 { \"not a number\" }\n").unwrap();
    let (code, _) =
        batchify_with(&other, &["batchify", "check", "--offline", "--manifest-path", manifest.to_str().unwrap()]);
    assert_eq!(code, Some(101), "cargo's own failure status");

    let help = clean(Command::new(BIN)).args(["batchify", "--help"]).output().unwrap();
    assert!(help.status.success() && String::from_utf8_lossy(&help.stdout).contains("<build|run|test|bench|rustc>"));
}

fn tempfile_dir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}
