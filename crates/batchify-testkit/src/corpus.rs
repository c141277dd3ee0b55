//! Test corpus helpers: compile C with clang-22 (at `-O2`, or at `-O0`
//! followed by mem2reg), read `.ll` files, and turn a file's directives into
//! clone specs.
//!
//! Directives, anywhere in a file (C `//` or IR `;` comments):
//! * `VARIANT-PARAMS: <function> <tokens>`: one letter per parameter
//!   (`v` varying, `u` uniform, `l` linear step 1); functions without one
//!   get every parameter varying;
//! * `O0-SKIP: <function>`: not tested at `-O0`.

use batchify_core::vfabi::{Isa, Param, ParamKind, VariantName};
use batchify_core::CloneSpec;
use inkwell::context::Context;
use inkwell::memory_buffer::MemoryBuffer;
use inkwell::module::{Linkage, Module};
use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::process::{Command, Stdio};

/// How a C file is compiled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CLevel {
    /// `clang-22 -O2`.
    O2,
    /// `clang-22 -O0 -Xclang -disable-O0-optnone`, then `opt-22 -passes=mem2reg`.
    O0Mem2Reg,
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

/// Compiles a C file to bitcode.
pub fn compile_c(path: &Path, level: CLevel, extra: &[&str]) -> Result<Vec<u8>, String> {
    let mut clang = Command::new("clang-22");
    clang.args(["-c", "-emit-llvm", "-fno-math-errno", "-o", "-"]).args(extra);
    match level {
        CLevel::O2 => {
            clang.arg("-O2");
        }
        CLevel::O0Mem2Reg => {
            clang.args(["-O0", "-Xclang", "-disable-O0-optnone"]);
        }
    }
    clang.arg(path);
    let bc = run_tool(&mut clang, None)?;
    match level {
        CLevel::O2 => Ok(bc),
        CLevel::O0Mem2Reg => run_tool(Command::new("opt-22").args(["-passes=mem2reg", "-o", "-"]), Some(&bc)),
    }
}

/// Parses bitcode or textual IR into a module.
pub fn parse_module<'c>(ctx: &'c Context, bytes: &[u8], name: &str) -> Result<Module<'c>, String> {
    let buf = MemoryBuffer::create_from_memory_range_copy(bytes, name);
    if bytes.starts_with(b"BC\xC0\xDE") {
        Module::parse_bitcode_from_buffer(&buf, ctx).map_err(|e| e.to_string())
    } else {
        ctx.create_module_from_ir(buf).map_err(|e| e.to_string())
    }
}

/// Directives of one corpus file.
#[derive(Debug, Clone, Default)]
pub struct Directives {
    /// Parameter tokens per function.
    pub params: HashMap<String, String>,
    /// Functions not tested at `-O0`.
    pub o0_skip: HashSet<String>,
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
pub fn specs_for_module(module: &Module<'_>, dirs: &Directives, width: u32, level: CLevel) -> Vec<CloneSpec> {
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
            None => CloneSpec::all_varying(&name, n, width, Isa::Llvm, false),
            Some(tokens) => {
                let params: Vec<Param> = tokens
                    .chars()
                    .map(|c| Param {
                        kind: match c {
                            'u' => ParamKind::Uniform,
                            'l' => ParamKind::Linear { step: 1 },
                            _ => ParamKind::Vector,
                        },
                        align: None,
                    })
                    .collect();
                let mangled = VariantName::mangle(Isa::Llvm, false, width, &params, &name);
                let v = VariantName::parse(&mangled).expect("mangled names parse");
                CloneSpec::from_variant(&v).expect("corpus directives are valid")
            }
        };
        out.push(spec);
    }
    out
}
