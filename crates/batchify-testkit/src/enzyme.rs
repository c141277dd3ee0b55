//! Enzyme (the LLVM automatic-differentiation plugin) for the tests that
//! run it: finding the plugin, skipping loudly without it, and taking the
//! fast-math flags off its derivative code.

use crate::corpus::run_checked;
use crate::skip;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Where the shared Enzyme build lies relative to a workplace folder.
const SHARED_PLUGIN: &str = "shared/enzyme/LLVMEnzyme-22.so";

/// The Enzyme plugin: `ENZYME_PLUGIN`, else the shared build in a
/// `shared/enzyme` folder beside the repository or beside one of its
/// parent folders (a checkout or clone anywhere under the workplace), else
/// the workplace's own `/work/shared/enzyme`.
pub fn plugin() -> Option<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let repo = root.canonicalize().unwrap_or(root);
    let candidates = std::env::var_os("ENZYME_PLUGIN")
        .map(PathBuf::from)
        .into_iter()
        .chain(repo.ancestors().skip(1).map(|a| a.join(SHARED_PLUGIN)))
        .chain([Path::new("/work").join(SHARED_PLUGIN)]);
    candidates.into_iter().find(|p| p.exists())
}

/// The Enzyme plugin, once `tools` are found; else `test` is skipped
/// loudly (a failure where tools are required) and this is `None`.
pub fn plugin_or_skip(test: &str, tools: &[&str]) -> Option<PathBuf> {
    if !tools.iter().all(|t| skip::require_tool(test, t)) {
        return None;
    }
    let found = plugin();
    if found.is_none() {
        skip::skip(
            test,
            "no Enzyme plugin (ENZYME_PLUGIN, or shared/enzyme/LLVMEnzyme-22.so beside the repository or under /work)",
        );
    }
    found
}

/// Compiles a C file to bitcode as Enzyme wants its input: `-O2` without
/// the loop vectorizer and unrolling, for AVX2; `extra` are more clang
/// arguments (`-I dir`, `-DNAME`).
pub fn compile_for_enzyme(src: &Path, extra: &[&str], bc: &Path) {
    run_checked(
        Command::new("clang-22")
            .args(["-O2", "-fno-vectorize", "-fno-unroll-loops", "-mavx2", "-Wno-everything", "-c", "-emit-llvm"])
            .args(extra)
            .arg(src)
            .arg("-o")
            .arg(bc),
    );
}

/// Runs Enzyme's pass (`opt-22 -load-pass-plugin=PLUGIN -passes=enzyme`)
/// on `input`, writing `output`; panics with Enzyme's output if it fails.
pub fn differentiate(plugin: &Path, input: &Path, output: &Path) {
    run_checked(
        Command::new("opt-22")
            .arg(format!("-load-pass-plugin={}", plugin.display()))
            .arg("-passes=enzyme")
            .arg(input)
            .arg("-o")
            .arg(output),
    );
}

/// Instructions whose fast-math flags follow the opcode in textual IR.
const FLAGGED_OPCODES: &[&str] =
    &["fadd", "fsub", "fmul", "fdiv", "frem", "fneg", "fcmp", "phi", "select", "call", "fptrunc", "fpext"];

/// The fast-math flag keywords of textual IR.
const FAST_MATH_FLAGS: &[&str] = &["fast", "nnan", "ninf", "nsz", "arcp", "contract", "afn", "reassoc"];

/// `ir` (textual LLVM IR) without fast-math flags.
///
/// Enzyme marks the arithmetic of its derivative code `fast`, which lets
/// any compile of it reassociate, contract and ignore NaN and the sign of
/// zero: two compiles of one derivative function (the scalar calls and a
/// batched clone) may then differ in the last bit and both be right. The
/// flags off, the derivative has one defined result per input, which a
/// clone must match bit for bit. (`LLVMSetFastMathFlags` can only add
/// flags, hence the text.)
pub fn without_fast_math(ir: &str) -> String {
    let mut out = String::with_capacity(ir.len());
    for line in ir.lines() {
        let mut after_opcode = false;
        let mut first = true;
        for word in line.split(' ') {
            if after_opcode && FAST_MATH_FLAGS.contains(&word) {
                continue;
            }
            after_opcode = FLAGGED_OPCODES.contains(&word);
            if !first {
                out.push(' ');
            }
            out.push_str(word);
            first = false;
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::without_fast_math;

    #[test]
    fn flags_after_an_opcode_are_removed() {
        let ir = "  %a = fmul fast double %x, %y\n  %b = tail call nnan ninf double @llvm.sqrt.f64(double %a)\n  \
                  %c = phi reassoc nsz double [ 0.0, %e ]\n  %fast = fadd double %a, %b\n";
        let want = "  %a = fmul double %x, %y\n  %b = tail call double @llvm.sqrt.f64(double %a)\n  \
                    %c = phi double [ 0.0, %e ]\n  %fast = fadd double %a, %b\n";
        assert_eq!(without_fast_math(ir), want);
    }

    #[test]
    fn a_value_named_like_a_flag_is_kept() {
        let ir = "define double @f(double %fast) {\n  %r = fadd double %fast, 1.0\n  ret double %r\n}\n";
        assert_eq!(without_fast_math(ir), ir);
    }
}
