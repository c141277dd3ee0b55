//! Random program generator for the fuzzer: one scalar function in
//! **textual LLVM IR**, fully determined by a seed and a [`GenConfig`]
//! (the design follows cranelift's fuzzgen: bounded random choices over a
//! small structured language, then a straightforward lowering).
//!
//! Generation happens in two steps:
//! 1. a structured AST over typed local variables (`i32`, `i64`, `float`,
//!    `double`; parameters are variables too): assignments, `if`/`else`,
//!    three loop shapes, `switch` with fall-through and a default, `break`,
//!    `continue` and early `return`, nested up to [`GenConfig::max_depth`];
//! 2. lowering in "`-O0` style": one `alloca` per variable in the entry
//!    block, a load for every use and a store for every assignment, explicit
//!    basic blocks and branches (short-circuit conditions and branchy guards
//!    use `phi`s, as clang's `-O0` output does).
//!
//! # Helpers
//! Besides the top-level (batched) function, a program may have up to
//! [`GenConfig::max_helpers`] `internal` helpers, generated the same way;
//! helper `k` calls only helpers `0..k`, and itself if recursive. Helpers get random
//! calling conventions (call sites always carry the callee's), `tail` on
//! calls with scalar arguments, and attributes that hold for their bodies
//! (`memory(..)`, `nounwind`, `willreturn`, `speculatable`, `noundef`,
//! `range`, and `nonnull`/`noalias`/`readonly`/`writeonly`/`captures(none)`/
//! `dereferenceable`/`align` on pointers). Pointer helpers take one of the
//! top-level function's private arrays (read only, write only, both, or
//! `byval`), `sret` helpers return a struct through a private object of
//! the caller. A `range` attribute holds because callers mask the argument
//! (and helpers mask the returned value) with `and`.
//!
//! # Memory, parameter kinds, recursion and the recorder
//! * The top-level function may take pointer parameters to bounded buffers
//!   ([`BufParam`], [`GenConfig::p_buffers`]): varying, uniform or linear
//!   pointers to `i8`..`double` elements, loaded and stored at constant,
//!   uniform, linear, strided and data-dependent indices, all inside the
//!   buffer, with stores under divergent control flow. No lane writes a
//!   byte another lane touches in the same call ([`BufRole`]), so the
//!   oracle compares every byte.
//! * Scalar parameters may be uniform or linear in the clone the fuzzer
//!   asks for ([`Program::abi`]).
//! * Private arrays (`alloca [8 x T]`, [`GenConfig::p_array`]) are read and
//!   written at uniform and varying indices.
//! * Helpers may be recursive ([`GenConfig::p_recursive`]), bounded by a
//!   depth parameter.
//! * Functions may read small constant tables ([`GenConfig::p_tables`]):
//!   `internal`/`private` `constant [K x i32]` or `[K x float]` globals of
//!   random contents, `K` in [`TABLE_LENS`], at indices kept in range as C
//!   code keeps them (`& (K-1)`, `urem K`, or a branch on `i < K` around
//!   the read, so lanes that skip it carry out-of-range indices), through
//!   both GEP shapes clang emits, sometimes in a table-walk loop.
//! * Statements may call the side-effect recorder [`RECORDER`]
//!   ([`GenConfig::p_record`]), whose log the oracle checks
//!   ([`crate::recorder`]).
//!
//! # Termination
//! Every loop owns a private `i32` counter that no other statement can
//! name. It is set to 0 in the loop's preheader, and the only edges back to
//! the loop's header come from its latch, which increments the counter; every
//! loop shape tests `counter < K` with a constant `K <= max_trip` on each
//! path to the next iteration (`continue` branches to the latch). So each
//! loop runs at most `K` iterations per entry, and a program runs at most
//! `max_trip ^ max_depth` iterations of its innermost body. A recursive
//! helper calls itself at most twice per call, never in a loop or a loop
//! condition, with `depth - 1` and only when `depth > 0`; callers pass
//! `x & 3`, so a call tree has at most 15 calls.
//!
//! # No undefined behaviour, no poison in results
//! * every variable is initialised in the entry block before any use, and
//!   initialisers only read parameters and earlier variables;
//! * integer arithmetic has no `nsw`/`nuw`/`exact` flags (it wraps);
//! * shift amounts are masked with `bits - 1`;
//! * `sdiv`/`srem`/`udiv`/`urem` are guarded: the divisor is replaced by 1
//!   (by a `select`) or the division is skipped (by a branch, with a `phi`)
//!   when it is 0, and for signed division also when the dividend is
//!   `INT_MIN` and the divisor -1;
//! * float to int conversion (`fptosi`) is only used on values inside
//!   `[-2^(bits-1), 2^(bits-1))`, by an ordered range check (false on NaN),
//!   again lowered as a `select` (the poison of an out-of-range `fptosi` is
//!   never selected) or as a branch around the conversion;
//! * `llvm.minnum` gets quiet NaN operands (any NaN is replaced by a
//!   canonical quiet NaN) and its result is added to `+0.0`, so the two
//!   unspecified corners of its semantics (signalling NaNs, the sign of a
//!   zero result) never reach the result;
//! * float division, `sqrt` of negatives, overflowing conversions
//!   (`fptrunc`, `sitofp`) are all defined in IEEE arithmetic.
//!
//! The oracle's inputs are full of NaN, ±inf and ±0; the generator leans
//! on them: conditions compare raw float variables with all fourteen
//! `fcmp` predicates (ordered and unordered), so NaN lanes take different
//! branches from their neighbours.

mod ast;
mod config;
mod generate;
mod lower;
mod signature;
#[cfg(test)]
mod tests;

pub use ast::{BufParam, BufRole, Elem, Ty};
pub use config::GenConfig;

use ast::PtrMode;
use batchify_core::vfabi::ParamKind;
use generate::{chance, Gen};
use lower::lower;
use rand::rngs::SmallRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use signature::Helper;
use std::collections::BTreeSet;
use std::fmt::Write as _;

/// One generated program.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Program {
    /// The module's textual IR (the top-level function, its `internal`
    /// helpers and intrinsic declarations).
    pub ir: String,
    /// The top-level function's name.
    pub name: String,
    /// Types of the scalar parameters, in order (they follow the buffer
    /// parameters).
    pub params: Vec<Ty>,
    /// The buffer (pointer) parameters, in order; they come first.
    pub buffers: Vec<BufParam>,
    /// Every parameter of the top-level function in order (buffers, then
    /// scalars): its IR type and how the lanes of the clone the fuzzer asks
    /// for share it.
    pub abi: Vec<(String, ParamKind)>,
    /// Return type.
    pub ret: Ty,
    /// The top-level function's calling convention keyword (`fastcc`, ...),
    /// empty for the C convention ([`GenConfig::top_level_cc`]).
    pub cc: String,
    /// Whether the top-level function is `internal`
    /// ([`GenConfig::top_level_internal`]).
    pub internal: bool,
}

/// Name of the side-effect recorder the programs call (see
/// [`crate::recorder`]).
pub const RECORDER: &str = "batchify_record";

/// The lengths of the constant tables programs read
/// ([`GenConfig::p_tables`]): up to four AVX2 registers of 32-bit elements
/// (32) and past them, up to four AVX-512 registers (64) and past them.
pub const TABLE_LENS: [u64; 10] = [5, 8, 12, 16, 20, 24, 32, 48, 64, 100];

/// Where a function's constant table `k` lives: `@"<function>.table<k>"`.
pub fn table_global(function: &str, k: usize) -> String {
    format!("@\"{function}.table{k}\"")
}

/// Generates the program of `seed`.
pub fn generate(seed: u64, cfg: &GenConfig) -> Program {
    let name = format!("fuzz_{seed}");
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut decls = BTreeSet::new();
    let mut ir = format!("; batchify fuzz program, seed {seed}\n");
    // Helpers: smaller programs of their own, without arrays of their own;
    // helper `k` may call the earlier helpers that take no array pointer.
    let mut helpers: Vec<Helper> = Vec::new();
    // Element types of the top-level function's arrays that pointer-taking
    // helpers need.
    let mut needed_arrays: Vec<Ty> = Vec::new();
    // Element types and lengths of buffers that buffer-reading helpers need.
    let mut needed_bufs: Vec<(Elem, u64)> = Vec::new();
    if chance(&mut rng, cfg.p_helper) {
        let sub = GenConfig {
            max_depth: cfg.max_depth.min(1),
            max_total_stmts: cfg.max_total_stmts.min(6),
            int_params: 0..=2,
            float_params: 0..=2,
            locals: 0..=1,
            p_irreducible: 0.0,
            p_helper: 0.0,
            p_array: 0.0,
            p_buffers: 0.0,
            ..cfg.clone()
        };
        let n = rng.gen_range(1..=cfg.max_helpers.max(1));
        for k in 0..n {
            let mut hrng = SmallRng::seed_from_u64(rng.gen());
            let ptr = if chance(&mut hrng, cfg.p_ptr_helper) {
                let mode = *[PtrMode::Read, PtrMode::Write, PtrMode::ReadWrite, PtrMode::Byval]
                    .choose(&mut hrng)
                    .expect("nonempty");
                Some((mode, *Ty::ALL.choose(&mut hrng).expect("nonempty")))
            } else {
                None
            };
            let sret = chance(&mut hrng, cfg.p_sret);
            // Drawn only when asked for, so that other runs' programs stay the same.
            let pair = !sret && cfg.p_pair_ret > 0.0 && chance(&mut hrng, cfg.p_pair_ret);
            let buf = if ptr.is_none() && !sret && chance(&mut hrng, cfg.p_buf_helper) {
                let elem = *Elem::ALL.choose(&mut hrng).expect("nonempty");
                Some((elem, *[4u64, 8, 16].choose(&mut hrng).expect("nonempty")))
            } else {
                None
            };
            let recursive = ptr.is_none() && buf.is_none() && !sret && chance(&mut hrng, cfg.p_recursive);
            let callable =
                (0..helpers.len()).filter(|&j| helpers[j].ptr.is_none() && helpers[j].buf.is_none()).collect();
            let mut g = Gen::new(hrng, &sub, helpers.clone(), callable);
            g.ptr_param = ptr;
            g.is_helper = true;
            g.recursive = recursive;
            g.next_tag = (k as u64 + 1) * 1000 + 1;
            if let Some((elem, len)) = buf {
                g.bufs = vec![BufParam { kind: ParamKind::Vector, elem, len, role: BufRole::Read }];
                needed_bufs.push((elem, len));
            }
            let f = g.program();
            let mut h = g.helper_signature(format!("{name}.helper{k}"), &f, sret);
            if pair {
                h.sig.pair = true;
                h.sig.ret_attrs.clear(); // `range` is for integers
                h.call_ret_attrs.clear();
                if h.sig.cc == "coldcc " {
                    // LLVM 22 on x86-64 keeps RDX callee-saved under coldcc
                    // and restores it over a `{ i64, i32 }`'s second field.
                    h.sig.cc = "fastcc ";
                }
            }
            ir.push_str(&lower(&h.name, &h.sig, &f, &mut decls, &helpers));
            ir.push('\n');
            if let Some((_, ty)) = ptr {
                if !needed_arrays.contains(&ty) {
                    needed_arrays.push(ty);
                }
            }
            helpers.push(h);
        }
    }
    let callable = (0..helpers.len()).collect();
    let mut g = Gen::new(rng, cfg, helpers.clone(), callable);
    g.needed_arrays = needed_arrays;
    g.needed_bufs = needed_bufs;
    let f = g.program();
    let sig = g.top_level_signature(&f);
    ir.push_str(&lower(&name, &sig, &f, &mut decls, &helpers));
    if !sig.linkage.is_empty() {
        // Keeps the otherwise unused internal function through `default<O2>`.
        let _ = writeln!(
            ir,
            "\n@llvm.compiler.used = appending global [1 x ptr] [ptr @\"{name}\"], section \"llvm.metadata\""
        );
    }
    for d in &decls {
        let _ = writeln!(ir, "\n{d}");
    }
    let mut abi: Vec<(String, ParamKind)> = f.bufs.iter().map(|b| ("ptr".to_string(), b.kind)).collect();
    abi.extend(f.params.iter().zip(&f.kinds).map(|(t, k)| (t.ir().to_string(), *k)));
    Program {
        ir,
        name,
        params: f.params,
        buffers: f.bufs,
        abi,
        ret: f.ret,
        cc: sig.cc.trim().to_string(),
        internal: sig.linkage.contains("internal"),
    }
}
