//! Vector math intrinsics to vector library calls, a module-level step that
//! runs after Enzyme (`batchify --lower-vector-math --veclib libmvec`,
//! plugin pass `batchify-lower-vector-math<libmvec>`; docs/autodiff.md).
//!
//! A `--for-autodiff` clone computes `log`, `exp`, `sin`, ... with LLVM's
//! vector intrinsics (`llvm.log.v4f64`), which Enzyme differentiates, and
//! Enzyme's derivative code adds more of them (`llvm.cos.v4f64` for the
//! derivative of `sin`). Left alone, the backend lowers each to one exact
//! libm call per lane. This step replaces every call of a vector math
//! intrinsic of a [`calls::vecmath_family_arity`] family, in every function
//! of the module, with calls of the library's vector function
//! ([`calls::veclib_symbol_named`]: libmvec's `_ZGV<isa>N<k><v..>_<name>`
//! on x86-64, libsleefgnuabi's `_ZGVnN<k>..` on AArch64), in chunks of
//! its width ([`crate::emit::veclib::chunked_call`]).
//!
//! The ISA of the library function follows the function's own
//! `target-features` (what Enzyme copies from the function it
//! differentiates): `+avx512f` `e`, `+avx2` `d`, `+avx` `c`, else `b`
//! (SSE2, every x86-64 CPU). Of the variants the function may call, it
//! takes the widest one that is not wider than the vector (`<4 x double>`
//! in an AVX-512 function: `_ZGVdN4v_log`; `<8 x double>`: `_ZGVeN8v_log`),
//! or the narrowest one, padded, for a shorter vector.
//!
//! LLVM's own `replace-with-veclib` pass (`opt -vector-library=LIBMVEC`)
//! does not do this on LLVM 22: its libmvec table has no AVX-512 (`e`)
//! variants and no `log2`, `log10`, `exp2`, `tanh`, `sinh`, `cosh`,
//! `asin`, `acos` or `atan`.

use crate::analysis::calls;
use crate::error::{Error, Result};
use crate::llvm::{Builder, LLVMOpcode, LLVMTypeKind, Module, Value, FUNCTION_INDEX};
use crate::options::VecLib;
use crate::vfabi::Isa;

/// What [`lower_vector_math`] replaced.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Lowered {
    /// Calls of vector math intrinsics replaced.
    pub calls: usize,
    /// One line per intrinsic and library function
    /// (`llvm.log.v4f64 -> _ZGVdN4v_log (libmvec, at most 4 ulp)`).
    pub lines: Vec<String>,
    /// Vector math intrinsics kept, with why (no library function of that
    /// family and type for the function's target).
    pub kept: Vec<String>,
}

/// The vector ISAs function `f` may call, from its `target-features` and
/// the module's target.
fn callable_isas(module: Module, f: Value, lib: VecLib) -> Vec<Isa> {
    let triple = module.target_triple();
    let arch = triple.split('-').next().unwrap_or_default();
    if lib == VecLib::Sleef {
        return if matches!(arch, "aarch64" | "arm64") { vec![Isa::AdvSimd] } else { Vec::new() };
    }
    if !matches!(arch, "" | "x86_64") {
        return Vec::new();
    }
    let features = f.string_attribute(FUNCTION_INDEX, "target-features").unwrap_or_default();
    let has = |x: &str| features.split(',').any(|t| t == x);
    // Each ISA implies the ones before it (a hand-written feature list may
    // name only the last).
    let levels = [("+avx", Isa::Avx), ("+avx2", Isa::Avx2), ("+avx512f", Isa::Avx512)];
    let top = levels.iter().rposition(|(feature, _)| has(feature));
    let mut isas = vec![Isa::Sse2];
    isas.extend(levels.iter().take(top.map_or(0, |t| t + 1)).map(|&(_, isa)| isa));
    isas
}

/// The intrinsic family (`log`) and arity of a call of a vector math
/// intrinsic on fixed vectors of `float` or `double`, if `i` is one.
fn vector_math_intrinsic(i: Value) -> Option<(String, u32)> {
    if i.opcode() != LLVMOpcode::LLVMCall {
        return None;
    }
    let base = calls::called_intrinsic(i)?;
    let family = base.strip_prefix("llvm.")?;
    let arity = calls::vecmath_family_arity(family)?;
    let ty = i.ty();
    if !ty.is_vector()
        || !matches!(ty.element().kind(), LLVMTypeKind::LLVMFloatTypeKind | LLVMTypeKind::LLVMDoubleTypeKind)
    {
        return None;
    }
    let args_ok = i.num_arg_operands() == arity && (0..arity).all(|k| i.operand(k).ty() == ty);
    args_ok.then(|| (family.to_string(), arity))
}

/// Replaces the vector math intrinsics of every function of `module` with
/// calls of `lib`'s vector functions (see the module documentation). The
/// values are the library's: at most [`VecLib::max_ulps`] ulp from the
/// exact result, where the intrinsic's lowering gives glibc's scalar
/// results. `VecLib::None` changes nothing.
pub fn lower_vector_math(module: Module, lib: VecLib) -> Result<Lowered> {
    let mut out = Lowered::default();
    let Some(bound) = lib.max_ulps() else { return Ok(out) };
    let b = Builder::new(module.context());
    for f in module.functions() {
        if f.is_declaration() {
            continue;
        }
        let isas = callable_isas(module, f, lib);
        for block in f.blocks() {
            for i in block.instructions() {
                let Some((family, arity)) = vector_math_intrinsic(i) else { continue };
                let ty = i.ty();
                let elem = ty.element();
                let name = if elem.kind() == LLVMTypeKind::LLVMFloatTypeKind { format!("{family}f") } else { family };
                let n = ty.vector_len();
                // The widest variant not wider than the vector, else the
                // narrowest (later ISAs of equal width win: AVX2 over AVX).
                let variants: Vec<(String, crate::llvm::Type)> =
                    isas.iter().filter_map(|&isa| calls::veclib_symbol_named(lib, isa, &name, arity, elem)).collect();
                let width = |v: &(String, crate::llvm::Type)| v.1.return_type().vector_len();
                let fits = variants.iter().filter(|v| width(v) <= n).max_by_key(|v| width(v));
                let Some((symbol, fn_ty)) = fits.or_else(|| variants.iter().min_by_key(|v| width(v))).cloned() else {
                    let why = format!(
                        "`{}` in `{}`: no {} function for this target",
                        i.called_value().name(),
                        f.name(),
                        lib.name()
                    );
                    if !out.kept.contains(&why) {
                        out.kept.push(why);
                    }
                    continue;
                };
                let decl = match module.function(&symbol) {
                    Some(d) if d.function_type() == fn_ty => d,
                    Some(_) => {
                        let why =
                            format!("`{}`: the module has its own `{symbol}` of another type", i.called_value().name());
                        if !out.kept.contains(&why) {
                            out.kept.push(why);
                        }
                        continue;
                    }
                    None => module.add_function(&symbol, fn_ty),
                };
                b.position_before(i);
                let args: Vec<Value> = (0..arity).map(|k| i.operand(k)).collect();
                let r = crate::emit::veclib::chunked_call(&b, decl, &args);
                i.replace_all_uses_with(r);
                i.erase();
                out.calls += 1;
                let line = format!("{} -> {symbol} ({}, at most {bound} ulp)", i_name(&name, ty), lib.name());
                if !out.lines.contains(&line) {
                    out.lines.push(line);
                }
            }
        }
    }
    module.verify().map_err(|message| Error::Internal { function: "(vector math lowering)".into(), message })?;
    Ok(out)
}

/// The intrinsic's full name for a report line (`llvm.log.v4f64`).
fn i_name(name: &str, ty: crate::llvm::Type) -> String {
    let family = name.strip_suffix('f').filter(|b| calls::vecmath_family_arity(b).is_some()).unwrap_or(name);
    let elem = if ty.element().kind() == LLVMTypeKind::LLVMFloatTypeKind { "f32" } else { "f64" };
    format!("llvm.{family}.v{}{elem}", ty.vector_len())
}
