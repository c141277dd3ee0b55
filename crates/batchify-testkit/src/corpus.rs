//! Test corpus helpers: compile C with clang-22 (at `-O2`, or at `-O0`
//! followed by mem2reg), read `.ll` files, and turn a file's directives into
//! clone specs.
//!
//! Directives, anywhere in a file (C `//` or IR `;` comments):
//! * `VARIANT-PARAMS: <function> <tokens>`: the parameters in VFABI form
//!   (`v` varying, `u` uniform, `l` linear step 1, `l4` linear step 4,
//!   `ls1` linear with the step in parameter 1, ...); functions without
//!   one get every parameter varying;
//! * `O0-SKIP: <function>`: not tested at `-O0`.

use batchify_core::vfabi::{Isa, Param, VariantName};
use batchify_core::CloneSpec;
use inkwell::context::Context;
use inkwell::memory_buffer::MemoryBuffer;
use inkwell::module::{Linkage, Module};
use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::process::{Command, Stdio};

/// How a corpus file is compiled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CLevel {
    /// C: `clang-22 -O2`; `.ll`: as written.
    O2,
    /// C: `clang-22 -O0 -Xclang -disable-O0-optnone`, then `opt-22 -passes=mem2reg`.
    O0Mem2Reg,
    /// Rust: `rustc -C opt-level=1 --emit=llvm-bc`.
    RustO1,
    /// Rust: `rustc -C opt-level=2 --emit=llvm-bc`.
    RustO2,
}

fn run_tool(cmd: &mut Command, input: Option<&[u8]>) -> Result<Vec<u8>, String> {
    use std::io::Write;
    let mut child = cmd
        .stdin(if input.is_some() { Stdio::piped() } else { Stdio::null() })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run {:?}: {e}", cmd.get_program()))?;
    if let Some(data) = input {
        child.stdin.take().expect("piped").write_all(data).map_err(|e| e.to_string())?;
    }
    let out = child.wait_with_output().map_err(|e| e.to_string())?;
    if !out.status.success() {
        return Err(format!("{:?} failed: {}", cmd.get_program(), String::from_utf8_lossy(&out.stderr)));
    }
    Ok(out.stdout)
}

/// Runs a command that must succeed; returns its stdout and stderr joined.
/// Panics with the command and its output otherwise (for tests).
pub fn run_checked(cmd: &mut Command) -> String {
    let out = cmd.output().unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}"));
    let text = String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{cmd:?} failed:\n{text}");
    text
}

/// Compiles a C file to bitcode.
pub fn compile_c(path: &Path, level: CLevel, extra: &[&str]) -> Result<Vec<u8>, String> {
    let mut clang = Command::new("clang-22");
    clang.args(["-c", "-emit-llvm", "-fno-math-errno", "-o", "-"]).args(extra);
    if level == CLevel::O0Mem2Reg {
        clang.args(["-O0", "-Xclang", "-disable-O0-optnone"]);
    } else {
        clang.arg("-O2");
    }
    clang.arg(path);
    let bc = run_tool(&mut clang, None)?;
    match level {
        CLevel::O0Mem2Reg => run_tool(Command::new("opt-22").args(["-passes=mem2reg", "-o", "-"]), Some(&bc)),
        _ => Ok(bc),
    }
}

/// Compiles a Rust file (a library of `#[no_mangle] extern "C"` functions) to bitcode.
pub fn compile_rust(path: &Path, level: CLevel) -> Result<Vec<u8>, String> {
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let out = dir.path().join("out.bc");
    let opt = if level == CLevel::RustO1 { "opt-level=1" } else { "opt-level=2" };
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    run_tool(
        Command::new(rustc)
            .args(["--edition", "2021", "--crate-type=lib", "--emit=llvm-bc", "-C", opt, "-C", "panic=abort", "-o"])
            .arg(&out)
            .arg(path),
        None,
    )?;
    std::fs::read(&out).map_err(|e| e.to_string())
}

/// Reads or compiles one corpus file at a level.
pub fn load_file(path: &Path, level: CLevel) -> Result<Vec<u8>, String> {
    match path.extension().and_then(|e| e.to_str()) {
        Some("c") => compile_c(path, level, &[]),
        Some("rs") => compile_rust(path, level),
        _ => std::fs::read(path).map_err(|e| e.to_string()),
    }
}

/// Batches every function of one corpus file at one level and width and
/// checks it with the oracle; returns the number of functions checked.
pub fn check_file(
    path: &Path,
    level: CLevel,
    width: u32,
    masked: bool,
    isa: Isa,
    trials: usize,
) -> Result<usize, String> {
    check_file_with(path, level, width, masked, isa, trials, &corpus_options())
}

/// The options the corpora build their clones with: every legal function
/// vectorized (no cost model).
pub fn corpus_options() -> batchify_core::Options {
    batchify_core::Options { cost_model: false, ..Default::default() }
}

/// [`check_file`] with the clones built under `opts`.
pub fn check_file_with(
    path: &Path,
    level: CLevel,
    width: u32,
    masked: bool,
    isa: Isa,
    trials: usize,
    opts: &batchify_core::Options,
) -> Result<usize, String> {
    let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    let dirs = Directives::parse(&text);
    let bytes = load_file(path, level)?;
    let ctx = Context::create();
    let module = parse_module(&ctx, &bytes, &path.to_string_lossy())?;
    let specs = specs_for_module(&module, &dirs, width, level, masked, isa);
    let reports = batchify_core::batchify_inkwell(&module, &specs, opts).map_err(|e| e.to_string())?;
    for r in &reports {
        match (&r.fallback, dirs.expect_fallback.contains(&r.spec.scalar_name)) {
            (Some(why), false) => return Err(format!("{}: unexpected per-lane fallback: {why}", r.spec.vector_name)),
            (None, true) => return Err(format!("{}: expected the per-lane fallback", r.spec.vector_name)),
            _ => {}
        }
    }
    let oracle = crate::Oracle::new(&module, &specs).map_err(|e| e.to_string())?;
    oracle.check_all(&crate::CheckConfig { trials, ..Default::default() }).map_err(|e| e.to_string())?;
    Ok(specs.len())
}

/// Which clones [`run_corpus`] builds.
#[derive(Debug, Clone, Copy)]
pub struct CorpusRun<'a> {
    /// Widths to build.
    pub widths: &'a [u32],
    /// Masked variants (random masks) or not.
    pub masked: bool,
    /// Target ISA of the clones.
    pub isa: Isa,
    /// Oracle trials per clone.
    pub trials: usize,
}

/// Runs [`check_file`] over every file with one of `exts` in `dir`, at each
/// of `levels` that applies to the file kind, per [`CorpusRun`]; returns the
/// number of (function, level, width) combinations checked, or every failure.
pub fn run_corpus(dir: &Path, exts: &[&str], levels: &[CLevel], run: CorpusRun<'_>) -> Result<usize, String> {
    run_corpus_with(dir, exts, levels, run, &corpus_options())
}

/// The files of `dir` whose extension is one of `exts`, sorted by path.
pub fn files_with_extensions(dir: &Path, exts: &[&str]) -> Result<Vec<std::path::PathBuf>, String> {
    let mut files: Vec<std::path::PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().and_then(|e| e.to_str()).is_some_and(|e| exts.contains(&e)))
        .collect();
    files.sort();
    Ok(files)
}

/// [`run_corpus`] with the clones built under `opts` (e.g. `for_autodiff`).
pub fn run_corpus_with(
    dir: &Path,
    exts: &[&str],
    levels: &[CLevel],
    run: CorpusRun<'_>,
    opts: &batchify_core::Options,
) -> Result<usize, String> {
    let files = files_with_extensions(dir, exts)?;
    if files.is_empty() {
        return Err(format!("no {exts:?} files in {}", dir.display()));
    }
    let mut failures = Vec::new();
    let mut checked = 0;
    for f in &files {
        let is_rust = f.extension().is_some_and(|e| e == "rs");
        for &level in levels {
            let rust_level = matches!(level, CLevel::RustO1 | CLevel::RustO2);
            if is_rust != rust_level {
                continue;
            }
            for &width in run.widths {
                match check_file_with(f, level, width, run.masked, run.isa, run.trials, opts) {
                    Ok(n) => checked += n,
                    Err(e) => failures.push(format!("{} {level:?} N={width}: {e}", f.display())),
                }
            }
        }
    }
    if failures.is_empty() {
        Ok(checked)
    } else {
        Err(format!("{} failure(s):\n{}", failures.len(), failures.join("\n")))
    }
}

/// Parses bitcode or textual IR into a module.
pub fn parse_module<'c>(ctx: &'c Context, bytes: &[u8], name: &str) -> Result<Module<'c>, String> {
    let buf = MemoryBuffer::create_from_memory_range_copy(bytes, name);
    if bytes.starts_with(b"BC\xC0\xDE") {
        Module::parse_bitcode_from_buffer(&buf, ctx).map_err(|e| e.to_string())
    } else {
        // Not inkwell's `create_module_from_ir`: it leaks the buffer with LLVM 22.
        let text = std::str::from_utf8(bytes).map_err(|e| e.to_string())?;
        crate::fuzz::parse_ir(ctx, text, name)
    }
}

/// Directives of one corpus file.
#[derive(Debug, Clone, Default)]
pub struct Directives {
    /// Parameter tokens per function.
    pub params: HashMap<String, String>,
    /// Functions not tested at `-O0`.
    pub o0_skip: HashSet<String>,
    /// Functions expected to get the per-lane fallback:
    /// `EXPECT-FALLBACK: <function>`. (`CHECK-IRREDUCIBLE:` marks functions
    /// whose CFG is irreducible at `-O0`; batchify makes them reducible and
    /// vectorizes them, so it expects no fallback.)
    pub expect_fallback: HashSet<String>,
}

impl Directives {
    /// Reads the directives from a file's text.
    pub fn parse(text: &str) -> Directives {
        let mut d = Directives::default();
        for line in text.lines() {
            if let Some(rest) = line.split("VARIANT-PARAMS:").nth(1) {
                let mut it = rest.split_whitespace();
                if let (Some(f), Some(t)) = (it.next(), it.next()) {
                    d.params.insert(f.to_string(), t.to_string());
                }
            }
            if let Some(f) = line.split("EXPECT-FALLBACK:").nth(1).and_then(|r| r.split_whitespace().next()) {
                d.expect_fallback.insert(f.to_string());
            }
            if let Some(rest) = line.split("O0-SKIP:").nth(1) {
                if let Some(f) = rest.split_whitespace().next() {
                    d.o0_skip.insert(f.to_string());
                }
            }
        }
        d
    }
}

/// Clone specs (`_ZGV_LLVM_N<width>..`) for every externally visible
/// function defined in the module.
pub fn specs_for_module(
    module: &Module<'_>,
    dirs: &Directives,
    width: u32,
    level: CLevel,
    masked: bool,
    isa: Isa,
) -> Vec<CloneSpec> {
    let mut out = Vec::new();
    for f in module.get_functions() {
        if f.count_basic_blocks() == 0 || matches!(f.get_linkage(), Linkage::Internal | Linkage::Private) {
            continue;
        }
        let name = f.get_name().to_string_lossy().into_owned();
        if level == CLevel::O0Mem2Reg && dirs.o0_skip.contains(&name) {
            continue;
        }
        let n = f.count_params() as usize;
        let spec = match dirs.params.get(&name) {
            None => CloneSpec::all_varying(&name, n, width, isa, masked),
            Some(tokens) => {
                // The tokens are a VFABI parameter list (`v`, `u`, `l`, `l4`,
                // `ls1`, ...), read by the VFABI parser itself.
                let probe = format!("_ZGV_LLVM_N{width}{tokens}_{name}");
                let params: Vec<Param> = VariantName::parse(&probe)
                    .unwrap_or_else(|e| {
                        panic!("VARIANT-PARAMS of `{name}`: `{tokens}` is no VFABI parameter list: {e:?}")
                    })
                    .params;
                let mangled = VariantName::mangle(isa, masked, width, &params, &name);
                let v = VariantName::parse(&mangled).expect("mangled names parse");
                CloneSpec::from_variant(&v).expect("corpus directives are valid")
            }
        };
        out.push(spec);
    }
    out
}
