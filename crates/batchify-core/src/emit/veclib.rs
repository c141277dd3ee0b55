//! Calls of a vector math library (`--veclib libmvec|sleef`) for the math
//! functions that are not correctly rounded ([`calls::vecmath_call`]:
//! `exp`, `log`, `sin`, `pow`, ... as intrinsics or as libm calls that
//! write no memory).
//!
//! SLEEF's GNU ABI library (`libsleefgnuabi`, AArch64) has the same
//! shape for Advanced SIMD clones: `_ZGVnN4v_expf`, `_ZGVnN2vv_pow`, ...
//! (4 floats or 2 doubles), its 1.0-ulp functions; SVE clones keep their
//! calls exact.
//!
//! glibc's libmvec (x86-64) has one unmasked function per ISA and width:
//! `_ZGV<isa>N<n><v..>_<name>`, with `isa` `b` (SSE4.1 build, SSE2 ABI:
//! 4 floats or 2 doubles), `c` (AVX: 8 or 4), `d` (AVX2: 8 or 4) and `e`
//! (AVX-512: 16 or 8). A clone uses the variant of its own ISA (generic
//! clones the `b` one, which every x86-64 CPU can call); a clone with more
//! lanes splits its vector into chunks of the variant's width, one with
//! fewer pads it (the extra lanes compute `f(0)` and are dropped). Inactive
//! lanes compute too: the functions neither trap nor write memory.
//!
//! Error bound: glibc documents that libmvec's functions "pass 4-ulp
//! maximum relative error criterion" (glibc wiki, "libmvec", x86_64);
//! `tests/veclib.rs` measures each family against glibc's scalar
//! function. `--report` lists each function a clone calls with that bound.
//!
//! Without a vector math library, intrinsics keep their lane-wise vector
//! form (the backend calls the scalar function per lane) and libm calls run
//! per lane: both bit-identical to the scalar code.

use super::state::Widener;
use crate::analysis::calls;
use crate::llvm::{constant, Builder, Type, Value};
use crate::options::VecLib;

/// libmvec's documented error bound, in ulp from the exact result.
pub const LIBMVEC_MAX_ULPS: u32 = match VecLib::Libmvec.max_ulps() {
    Some(u) => u,
    None => 0,
};

/// The recipe for a call [`calls::vecmath_call`] recognises.
pub(crate) fn vecmath_call<'ctx>(w: &mut Widener<'_, 'ctx>, i: Value<'ctx>) -> Option<Value<'ctx>> {
    // `--for-autodiff` clones keep the intrinsic: Enzyme differentiates it,
    // and `driver::lower_vector_math` calls the library after Enzyme.
    if !w.for_autodiff {
        if let Some(r) = library_call(w, i) {
            return Some(r);
        }
    }
    // Otherwise as without this module: an intrinsic keeps its lane-wise
    // vector form (all of these are overloaded on the return type only and
    // take no immediate argument), a libm call runs per lane. In
    // `--for-autodiff` clones, the operands of one with a restricted domain
    // are 1 in inactive lanes, as for any lane-wise intrinsic.
    let base = calls::called_intrinsic(i)?;
    let mut args: Vec<Value> = (0..i.num_arg_operands()).map(|k| w.varying_value(i.operand(k))).collect();
    if super::inactive::restricted_domain(&base) {
        args = args.into_iter().map(|a| super::inactive::one_in_inactive_lanes(w, a)).collect();
    }
    let decl = w.module.intrinsic(&base, &[i.ty().vector_of(w.n)])?;
    let r = w.b.call(decl.function_type(), decl, &args);
    crate::llvm::copy_flags(i, r);
    Some(r)
}

/// The call of vector function `decl` (of `k` lanes) on `args`, vectors
/// of `n` lanes, at the builder's position: in chunks of `k` lanes where
/// `n > k`, padded with lanes of 0 (their results dropped) where `n` is
/// not a multiple of `k`. The operands are frozen (a poison lane must not
/// reach the library function, which is defined on numbers only).
pub fn chunked_call<'ctx>(b: &Builder<'ctx>, decl: Value<'ctx>, args: &[Value<'ctx>]) -> Value<'ctx> {
    let fn_ty = decl.function_type();
    let vlen = fn_ty.return_type().vector_len();
    let n = args[0].ty().vector_len();
    let chunks = n.div_ceil(vlen);
    // Lanes past n (padding) read 0.0 from the second shuffle operand.
    let zero = constant::null(args[0].ty());
    let i32t = Type::int(b.context(), 32);
    let mask = |idx: &mut dyn Iterator<Item = u32>| {
        constant::vector(&idx.map(|k| constant::int(i32t, k as u64)).collect::<Vec<_>>())
    };
    let mut results = Vec::new();
    for c in 0..chunks {
        let lanes: Vec<Value> = args
            .iter()
            .map(|&a| {
                let pick = mask(&mut (c * vlen..(c + 1) * vlen).map(|k| if k < n { k } else { n }));
                b.shuffle(b.freeze(a), zero, pick)
            })
            .collect();
        results.push(b.call(fn_ty, decl, &lanes));
    }
    // Concatenate the chunks pairwise, then keep the first n lanes.
    while results.len() > 1 {
        if results.len() % 2 == 1 {
            results.push(constant::null(results[0].ty()));
        }
        let len = results[0].ty().vector_len();
        results = results.chunks(2).map(|p| b.shuffle(p[0], p[1], mask(&mut (0..2 * len)))).collect();
    }
    let wide = results[0];
    if wide.ty().vector_len() == n {
        wide
    } else {
        let poison = constant::poison(wide.ty());
        b.shuffle(wide, poison, mask(&mut (0..n)))
    }
}

/// The call of the `--veclib` library's vector function for `i`, in
/// chunks of its width, if the library has one for the clone's ISA.
fn library_call<'ctx>(w: &mut Widener<'_, 'ctx>, i: Value<'ctx>) -> Option<Value<'ctx>> {
    let f = calls::vecmath_call(i)?;
    let (symbol, fn_ty) = calls::veclib_symbol(w.veclib, w.spec.isa, i)?;
    let bound = w.veclib.max_ulps()?;
    let decl = match w.module.function(&symbol) {
        Some(d) if d.function_type() == fn_ty => d,
        Some(_) => return None, // the module has its own function of that name
        None => w.module.add_function(&symbol, fn_ty),
    };
    let args: Vec<Value> = (0..f.arity).map(|k| w.varying_value(i.operand(k))).collect();
    let r = chunked_call(&w.b, decl, &args);
    let line = format!("{} -> {symbol} ({}, at most {bound} ulp)", f.name, w.veclib.name());
    if !w.stats.veclib_calls.contains(&line) {
        w.stats.veclib_calls.push(line);
    }
    w.stats.veclib_max_ulps = Some(bound);
    Some(r)
}
