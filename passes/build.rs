//! Builds the C++ shim (`shim/register.cpp`): pass registration with
//! LLVM's new pass manager, `cl::opt` options and diagnostics, which need
//! LLVM's C++ API. Compiled with `-fno-rtti` so that it also loads into
//! rustc, whose LLVM has no RTTI (see passes/README.md). Nothing here links
//! libLLVM: the host process provides it.
use std::path::Path;
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=shim/register.cpp");
    println!("cargo:rerun-if-env-changed=LLVM_SYS_221_PREFIX");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tools/llvm-prefix.sh");
    let out = Command::new("bash").arg(&script).output().expect("cannot run tools/llvm-prefix.sh");
    let prefix = String::from_utf8_lossy(&out.stdout).trim().to_string();
    let include = Path::new(&prefix).join("include");
    if !include.join("llvm/Plugins/PassPlugin.h").exists() {
        panic!(
            "LLVM 22 headers not found under {} (llvm/Plugins/PassPlugin.h): run `cargo xtask setup` (or `apt-get \
             install llvm-22-dev`)",
            include.display()
        );
    }
    // The LLVM major the shim is compiled for, for the marker in
    // src/version.rs (read by `cargo batchify` without loading the plugin).
    let config_h = include.join("llvm/Config/llvm-config.h");
    println!("cargo:rerun-if-changed={}", config_h.display());
    let major = std::fs::read_to_string(&config_h)
        .ok()
        .and_then(|text| {
            text.lines().find_map(|l| l.strip_prefix("#define LLVM_VERSION_MAJOR ").map(|v| v.trim().to_string()))
        })
        .filter(|v| !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit()))
        .unwrap_or_else(|| panic!("no LLVM_VERSION_MAJOR in {}", config_h.display()));
    println!("cargo:rustc-env=BATCHIFY_PLUGIN_LLVM_MAJOR={major}");
    cc::Build::new()
        .cpp(true)
        .file("shim/register.cpp")
        .include(&include)
        .std("c++17")
        .flag("-fno-rtti")
        .flag("-fno-exceptions")
        .flag("-fvisibility=hidden")
        .define("_GNU_SOURCE", None)
        .define("_GLIBCXX_USE_CXX11_ABI", "1")
        .define("__STDC_CONSTANT_MACROS", None)
        .define("__STDC_FORMAT_MACROS", None)
        .define("__STDC_LIMIT_MACROS", None)
        .warnings(false)
        .compile("batchify_shim");
}
