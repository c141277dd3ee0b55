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
