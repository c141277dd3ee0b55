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

use batchify_core::vfabi::ParamKind;
use rand::rngs::SmallRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use std::collections::{BTreeSet, HashSet};
use std::fmt::Write as _;
use std::ops::RangeInclusive;

/// A value type of the generated language.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Ty {
    /// `i32`.
    I32,
    /// `i64`.
    I64,
    /// `float`.
    F32,
    /// `double`.
    F64,
}

impl Ty {
    /// All types.
    pub const ALL: [Ty; 4] = [Ty::I32, Ty::I64, Ty::F32, Ty::F64];

    /// The LLVM spelling.
    pub fn ir(self) -> &'static str {
        match self {
            Ty::I32 => "i32",
            Ty::I64 => "i64",
            Ty::F32 => "float",
            Ty::F64 => "double",
        }
    }

    /// Whether this is an integer type.
    pub fn is_int(self) -> bool {
        matches!(self, Ty::I32 | Ty::I64)
    }

    fn bits(self) -> u32 {
        match self {
            Ty::I32 | Ty::F32 => 32,
            Ty::I64 | Ty::F64 => 64,
        }
    }

    fn suffix(self) -> &'static str {
        match self {
            Ty::I32 => "i32",
            Ty::I64 => "i64",
            Ty::F32 => "f32",
            Ty::F64 => "f64",
        }
    }
}

/// Bounds and probability knobs of the generator.
#[derive(Debug, Clone, PartialEq)]
pub struct GenConfig {
    /// Maximum nesting of `if`, loops and `switch`.
    pub max_depth: u32,
    /// Maximum number of statements in one block (at least one is made).
    pub max_stmts: u32,
    /// Maximum number of statements in the whole program.
    pub max_total_stmts: u32,
    /// Maximum iteration count of any loop (its constant cap is 1..=this).
    pub max_trip: u32,
    /// Maximum depth of expression trees.
    pub max_expr_depth: u32,
    /// Number of integer parameters (`i32` or `i64`).
    pub int_params: RangeInclusive<u32>,
    /// Number of floating-point parameters (`float` or `double`).
    pub float_params: RangeInclusive<u32>,
    /// Number of extra local variables.
    pub locals: RangeInclusive<u32>,
    /// Probability that a statement is an `if`/`else`.
    pub p_if: f64,
    /// Probability that a statement is a loop.
    pub p_loop: f64,
    /// Probability that a statement is a `switch`.
    pub p_switch: f64,
    /// Probability that a statement is a (usually guarded) early `return`.
    pub p_return: f64,
    /// Probability, inside a loop, that a statement is a guarded `break`.
    pub p_break: f64,
    /// Probability, inside a loop, that a statement is a guarded `continue`.
    pub p_continue: f64,
    /// Probability that a division or float-to-int guard is lowered as a
    /// branch (else as a `select`).
    pub p_branch_guard: f64,
    /// Probability that `&&`/`||` is lowered with short-circuit branches
    /// (else with `and`/`or` on `i1`).
    pub p_short_circuit: f64,
    /// Probability, inside a nested loop, that a `break`/`continue` leaves
    /// an outer loop (a labelled `break`/`continue`).
    pub p_outer_exit: f64,
    /// Probability that a statement is an irreducible cycle (two blocks
    /// that branch to each other, entered at either).
    pub p_irreducible: f64,
    /// Probability that the program has helper functions (small generated
    /// functions of their own, `internal`) that expressions call.
    pub p_helper: f64,
    /// Most helpers of one program (at least one when it has helpers).
    /// Helper `k` may call helpers `0..k`, and itself if recursive
    /// ([`GenConfig::p_recursive`]).
    pub max_helpers: u32,
    /// Probability that a helper has an explicit calling convention
    /// (`fastcc`, `coldcc`, `tailcc`, `preserve_mostcc` or `ccc`, uniformly);
    /// its call sites always carry the same one.
    pub p_cc: f64,
    /// Probability that a call of a helper whose arguments are all scalars
    /// is marked `tail`.
    pub p_tail: f64,
    /// Probability of each attribute that holds for a helper, its
    /// parameters and return value (`memory(..)`, `nounwind`, `willreturn`,
    /// `speculatable`, `noundef`, `nonnull`, `noalias`, `dereferenceable`,
    /// `align`, `readonly`/`writeonly`, `captures(none)`, `range`, ...), and
    /// of the matching attributes at call sites.
    pub p_attrs: f64,
    /// Probability that a helper called by the top-level function takes a
    /// pointer to one of its private arrays: read only, write only, read
    /// and written, or `byval` (the helper writes its own copy). The
    /// top-level function then has arrays (batchify builds a per-lane
    /// fallback for such stack memory today).
    pub p_ptr_helper: f64,
    /// Probability that a helper returns a `{ T, i32 }` struct through an
    /// `sret` pointer (to a private object of the caller) instead of a value.
    pub p_sret: f64,
    /// Probability that a helper returns a `{ T, i32 }` struct as a value
    /// (a first-class aggregate: `insertvalue` at each return, a phi of
    /// them after `mergereturn`, `extractvalue` at the call). 0 by default,
    /// which leaves every seed's program as it was.
    pub p_pair_ret: f64,
    /// Probability that the top-level function gets the attributes that hold
    /// for it (`nounwind`, `willreturn`, `memory(none)` when it has no
    /// stack objects, `noundef` parameters and return).
    pub p_top_attrs: f64,
    /// Give the top-level function a random calling convention (`fastcc`,
    /// `tailcc` or C; see `TOP_CCS`). On by default: the oracle calls the
    /// scalar function with its own convention.
    pub top_level_cc: bool,
    /// Give the top-level function `internal` linkage in half the programs.
    /// On by default: the oracle makes internal functions callable.
    pub top_level_internal: bool,
    /// Probability that the program has private arrays (`alloca [8 x T]`)
    /// read and written at masked indices, uniform (constants, uniform
    /// parameters) and varying, so mem2reg cannot remove them.
    pub p_array: f64,
    /// Print the optional attributes chosen. `false` gives the very same
    /// program without them (only `byval`, `sret`, `dereferenceable` of
    /// buffer parameters and their alignment stay): the fuzzer's attribute
    /// check compares the two.
    pub emit_attrs: bool,
    /// Probability that the top-level function takes pointer parameters to
    /// bounded buffers (1 to [`GenConfig::max_buffers`]; see [`BufParam`]),
    /// loaded and stored with uniform, linear, strided and random indices.
    pub p_buffers: f64,
    /// Most buffer parameters of one program.
    pub max_buffers: u32,
    /// Probability that a scalar parameter of the top-level function is
    /// uniform (one value for all lanes) in the clone the fuzzer asks for.
    pub p_uniform_param: f64,
    /// Probability that an integer parameter of the top-level function is
    /// linear with step 1 or -1 (lane k gets `base + k*step`).
    pub p_linear_param: f64,
    /// Probability, per statement, of a call of the side-effect recorder
    /// `void batchify_record(i64 tag, i64 value)` (see
    /// [`crate::recorder`]); helpers make them too.
    pub p_record: f64,
    /// Probability that a helper is recursive: it takes a depth parameter
    /// (callers pass `x & 3`) and calls itself with `depth - 1` only when
    /// `depth > 0`, so recursion ends for every input.
    pub p_recursive: f64,
    /// Probability that a helper takes a read-only pointer to one of the
    /// top-level function's buffers (varying, uniform or linear there) and
    /// loads from it at constant and data-dependent indices.
    pub p_buf_helper: f64,
    /// Widest clone the programs are checked at (the fuzzer sets its
    /// `--width`): buffers whose lanes own windows of a shared buffer are
    /// sized so that `lanes` windows never overlap.
    pub lanes: u32,
}

impl Default for GenConfig {
    fn default() -> Self {
        GenConfig {
            max_depth: 3,
            max_stmts: 4,
            max_total_stmts: 24,
            max_trip: 6,
            max_expr_depth: 3,
            int_params: 0..=3,
            float_params: 0..=3,
            locals: 1..=4,
            p_if: 0.22,
            p_loop: 0.12,
            p_switch: 0.06,
            p_return: 0.05,
            p_break: 0.12,
            p_continue: 0.08,
            p_branch_guard: 0.4,
            p_short_circuit: 0.4,
            p_outer_exit: 0.3,
            // Rare: batchify builds a per-lane fallback for irreducible cycles.
            p_irreducible: 0.01,
            p_helper: 0.3,
            max_helpers: 3,
            p_cc: 0.6,
            p_tail: 0.3,
            p_attrs: 0.6,
            // Stack objects make batchify fall back to per-lane calls today.
            p_ptr_helper: 0.12,
            p_sret: 0.08,
            p_pair_ret: 0.0,
            p_top_attrs: 0.3,
            top_level_cc: true,
            top_level_internal: true,
            // Stack memory mem2reg cannot remove: batchify builds a per-lane
            // fallback for it today, checked all the same.
            p_array: 0.15,
            emit_attrs: true,
            p_buffers: 0.4,
            max_buffers: 3,
            p_uniform_param: 0.2,
            p_linear_param: 0.15,
            p_record: 0.04,
            p_recursive: 0.3,
            p_buf_helper: 0.25,
            lanes: 8,
        }
    }
}

impl GenConfig {
    /// Straight-line programs only: no statement nesting, no early returns,
    /// and every guard lowered as a `select`, so the function has a single
    /// basic block after mem2reg (what batchify handled before divergent
    /// control flow). Helper functions are straight-line too, and take no
    /// pointers.
    pub fn straight_line() -> GenConfig {
        GenConfig {
            max_depth: 0,
            max_stmts: 6,
            max_total_stmts: 8,
            p_if: 0.0,
            p_loop: 0.0,
            p_switch: 0.0,
            p_return: 0.0,
            p_break: 0.0,
            p_continue: 0.0,
            p_branch_guard: 0.0,
            p_short_circuit: 0.0,
            p_irreducible: 0.0,
            // Stack objects of the caller: not a single block after mem2reg.
            p_ptr_helper: 0.0,
            p_sret: 0.0,
            p_pair_ret: 0.0,
            p_array: 0.0,
            // The generator's features from before: no buffers, recursion,
            // recorder calls, uniform or linear parameters.
            p_recursive: 0.0,
            p_record: 0.0,
            p_buffers: 0.0,
            p_uniform_param: 0.0,
            p_linear_param: 0.0,
            p_buf_helper: 0.0,
            ..GenConfig::default()
        }
    }
}

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

/// The element type of a buffer parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Elem {
    /// `i8` (loaded with `sext`/`zext` to `i32`, stored with `trunc`).
    I8,
    /// `i16` (as `i8`).
    I16,
    /// `i32`.
    I32,
    /// `i64`.
    I64,
    /// `float`.
    F32,
    /// `double`.
    F64,
}

impl Elem {
    /// All element types.
    pub const ALL: [Elem; 6] = [Elem::I8, Elem::I16, Elem::I32, Elem::I64, Elem::F32, Elem::F64];

    /// The LLVM spelling.
    pub fn ir(self) -> &'static str {
        match self {
            Elem::I8 => "i8",
            Elem::I16 => "i16",
            Elem::I32 => "i32",
            Elem::I64 => "i64",
            Elem::F32 => "float",
            Elem::F64 => "double",
        }
    }

    /// Bytes per element.
    pub fn bytes(self) -> u64 {
        match self {
            Elem::I8 => 1,
            Elem::I16 => 2,
            Elem::I32 | Elem::F32 => 4,
            Elem::I64 | Elem::F64 => 8,
        }
    }

    /// The type of the language's values loaded from and stored to it.
    pub fn value_ty(self) -> Ty {
        match self {
            Elem::I8 | Elem::I16 | Elem::I32 => Ty::I32,
            Elem::I64 => Ty::I64,
            Elem::F32 => Ty::F32,
            Elem::F64 => Ty::F64,
        }
    }
}

/// What the lanes may do with a buffer parameter. Every role keeps the
/// scalar code in bounds and the lanes free of conflicts: no lane writes
/// a byte another lane reads or writes in the same call, so the order of
/// the lanes' accesses cannot change what the calls leave (the oracle
/// compares every byte; its `tolerate_conflicts` stays off).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BufRole {
    /// Loads only, any index shape.
    Read,
    /// A varying pointer: each lane has a buffer of its own, loaded and
    /// stored at any index shape.
    Own,
    /// Each lane owns a window of `size` elements (a power of two) and
    /// loads and stores only there. With `by: Some(i)` the pointer is
    /// uniform and lane k's window is elements `(size*x + j) & (len-1)`,
    /// `j < size`, where `x` is the linear (step +-1) scalar parameter `i`
    /// and `len >= size * lanes`; with `by: None` the pointer is linear with
    /// a step of `size` elements and the window is `p[0..size)`.
    Window {
        /// Elements per window.
        size: u64,
        /// The linear scalar parameter that picks the window, if any.
        by: Option<usize>,
    },
}

/// A pointer parameter of the top-level function: `dereferenceable` for
/// `len` elements (so the oracle's buffer ends at its guard page) and
/// never reached past that by the scalar code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BufParam {
    /// How lanes share it: varying (a buffer per lane), uniform (one
    /// buffer), or linear with a step in bytes.
    pub kind: ParamKind,
    /// Element type.
    pub elem: Elem,
    /// Elements each lane's pointer may reach.
    pub len: u64,
    /// What the lanes do with it.
    pub role: BufRole,
}

/// Name of the side-effect recorder the programs call (see
/// [`crate::recorder`]).
pub const RECORDER: &str = "batchify_record";

/// Calling conventions of helpers.
const HELPER_CCS: [&str; 5] = ["fastcc", "coldcc", "tailcc", "preserve_mostcc", "ccc"];
/// Non-C calling conventions of the top-level function.
/// Conventions of the top-level function ("" is the C convention). No
/// `coldcc`: LLVM 22's x86-64 `coldcc` returns a `float` result wrongly
/// (see `tests/corpus/real/conventions.ll`), which would fail the scalar
/// reference rather than the clone.
const TOP_CCS: [&str; 4] = ["fastcc", "fastcc", "tailcc", ""];

/// How a helper uses its pointer-to-array parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum PtrMode {
    /// Loads only (`readonly`).
    Read,
    /// Stores only (`writeonly`).
    Write,
    /// Loads and stores.
    ReadWrite,
    /// `byval([8 x T])`: the helper reads and writes its own copy.
    Byval,
}

fn chance(rng: &mut SmallRng, p: f64) -> bool {
    p > 0.0 && rng.gen_bool(p.min(1.0))
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

/// A generated function's AST.
struct Function {
    params: Vec<Ty>,
    ret: Ty,
    /// Types of all variables (parameters first).
    vars: Vec<Ty>,
    /// Element types of the arrays: the pointer parameter first if
    /// [`Function::ptr_param`], then private ones.
    arrays: Vec<Ty>,
    /// How the function uses its pointer-to-array parameter, if it has one.
    ptr_param: Option<PtrMode>,
    /// Buffer parameters (top-level function only).
    bufs: Vec<BufParam>,
    /// How lanes share each scalar parameter.
    kinds: Vec<ParamKind>,
    /// A recursive helper: `i32 %depth` comes first.
    depth_param: bool,
    body: Vec<Stmt>,
}

/// The text of a function's `define` line, apart from types and names.
#[derive(Debug, Clone, Default)]
struct Sig {
    /// Linkage with a trailing space, or empty.
    linkage: &'static str,
    /// Calling convention with a trailing space, or empty.
    cc: &'static str,
    /// Return attributes with a trailing space, or empty.
    ret_attrs: String,
    /// Function attributes, each with a leading space.
    fn_attrs: String,
    /// Attributes of each scalar parameter, each with a trailing space.
    param_attrs: Vec<String>,
    /// Attributes of the array pointer parameter, with a trailing space.
    ptr_attrs: String,
    /// Attributes of the `sret` parameter, with a trailing space.
    sret_attrs: String,
    /// Returns `{ ret, i32 }` through an `sret` pointer (then `void`).
    sret: bool,
    /// Returns `{ ret, i32 }` as a value.
    pair: bool,
    /// Attributes of each buffer parameter, with a trailing space.
    buf_attrs: Vec<String>,
}

/// A helper as its callers see it.
#[derive(Debug, Clone)]
struct Helper {
    name: String,
    params: Vec<Ty>,
    /// Per scalar parameter: `Some(m)` if callers pass `arg & m` (the
    /// parameter has `range(T 0, m + 1)`).
    masks: Vec<Option<u64>>,
    ret: Ty,
    /// The array pointer parameter: how the helper uses it, element type.
    ptr: Option<(PtrMode, Ty)>,
    /// `speculatable` holds: no pointers, no division, no `fptosi`, callees alike.
    spec: bool,
    /// Takes a depth parameter first and calls itself.
    recursive: bool,
    /// Calls the recorder, directly or through its callees.
    effects: bool,
    /// Takes a read-only pointer to a buffer of the caller: element type
    /// and the elements it may read.
    buf: Option<(Elem, u64)>,
    /// Its `define` line.
    sig: Sig,
    /// Call-site attributes: of the array pointer (with a trailing space;
    /// `byval` is always there), of each scalar argument, of the return value.
    call_ptr_attrs: String,
    call_arg_attrs: Vec<String>,
    call_ret_attrs: String,
}

/// Elements per private array.
const ARRAY_LEN: u64 = 8;

// ---------------------------------------------------------------------------
// AST

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum IntOp {
    Add,
    Sub,
    Mul,
    And,
    Or,
    Xor,
    Shl,
    LShr,
    AShr,
    Smax,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum DivOp {
    SDiv,
    UDiv,
    SRem,
    URem,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum FloatOp {
    FAdd,
    FSub,
    FMul,
    FDiv,
    MinNum,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum FloatUn {
    FNeg,
    Fabs,
    Sqrt,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Guard {
    Select,
    Branch,
}

#[derive(Debug, Clone)]
enum ExprKind {
    Var(usize),
    /// Bits of the constant (integers sign-extended to 64 bits; floats as f64 bits).
    Const(u64),
    Int(IntOp, Box<Expr>, Box<Expr>),
    Div(DivOp, Guard, Box<Expr>, Box<Expr>),
    Float(FloatOp, Box<Expr>, Box<Expr>),
    FloatUn(FloatUn, Box<Expr>),
    Select(Box<Cond>, Box<Expr>, Box<Expr>),
    /// Conversion from the operand's type to the node's type; `signed`
    /// picks sext/sitofp over zext/uitofp.
    Conv(bool, Box<Expr>),
    /// Guarded `fptosi` with the fallback value (sign-extended bits).
    FpToSi(Guard, u64, Box<Expr>),
    /// A call of helper `.0` with scalar arguments `.1`, passing array `.2`
    /// to its pointer parameter; `.3`: marked `tail`; `.4`: the depth
    /// argument of a recursive helper (`x & 3`); `.5`: the buffer passed to
    /// a buffer-reading helper.
    Call(usize, Vec<Expr>, Option<usize>, bool, Option<Box<Expr>>, Option<usize>),
    /// `array[index & 7]`.
    Load(usize, Box<Expr>),
    /// The value the scalar parameter had on entry (not its variable, which
    /// statements may change): keeps uniform and linear shapes.
    Arg(usize),
    /// A load from buffer parameter `.0` at `.1`; `.2`: `sext` (else
    /// `zext`) of a narrow element.
    BufLoad(usize, Box<Index>, bool),
    /// In a recursive helper: `depth > 0 ? self(depth - 1, args) : fallback`
    /// (the fallback's bits); `.2`: marked `tail`.
    SelfCall(Vec<Expr>, u64, bool),
}

/// The element index of a buffer access; every shape is lowered to an
/// `i64` inside the buffer.
#[derive(Debug, Clone)]
enum Index {
    /// `c` (`c < len`): uniform.
    Const(u64),
    /// `arg & (len-1)` for a uniform scalar parameter: uniform.
    Uniform(usize),
    /// `(scale*arg + offset) & (len-1)` for a linear scalar parameter:
    /// contiguous (scale 1) or strided.
    Lane { arg: usize, scale: u64, offset: u64 },
    /// `(scale*arg + (e & (scale-1))) & (len-1)`: data-dependent, inside
    /// the lane's window of a [`BufRole::Window`] buffer.
    LaneRandom { arg: usize, scale: u64, e: Expr },
    /// `e & (len-1)` or (`true`) `urem e, len`: data-dependent.
    Random(Expr, bool),
}

#[derive(Debug, Clone)]
struct Expr {
    ty: Ty,
    kind: ExprKind,
}

#[derive(Debug, Clone)]
enum Cond {
    ICmp(&'static str, Expr, Expr),
    FCmp(&'static str, Expr, Expr),
    /// `a && b`; `true` = short-circuit branches.
    And(Box<Cond>, Box<Cond>, bool),
    /// `a || b`; `true` = short-circuit branches.
    Or(Box<Cond>, Box<Cond>, bool),
    Not(Box<Cond>),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum LoopKind {
    /// `for (it = 0; it < K && cond; it++)`: both tests at the top.
    For,
    /// `while (cond) { ...; if (++it >= K) break; }`: cap tested at the latch.
    While,
    /// `do { ... } while (++it < K && cond)`: both tests at the latch.
    DoWhile,
}

#[derive(Debug, Clone)]
struct Case {
    values: Vec<u64>,
    body: Vec<Stmt>,
    fallthrough: bool,
}

#[derive(Debug, Clone)]
enum Stmt {
    Assign(usize, Expr),
    If(Cond, Vec<Stmt>, Vec<Stmt>),
    Loop {
        kind: LoopKind,
        short_circuit: bool,
        cap: u32,
        cond: Cond,
        body: Vec<Stmt>,
    },
    /// Cases in source order (the default is one of them, with no values).
    Switch {
        scrutinee: Expr,
        mask: u64,
        cases: Vec<Case>,
    },
    /// `array[index & 7] = value`.
    Store(usize, Expr, Expr),
    /// A store to buffer parameter `.0` at `.1` (floats with NaNs replaced
    /// by a number, so every byte the calls leave is defined).
    BufStore(usize, Index, Expr),
    /// `batchify_record(tag, value)`, the value as `i64` (floats: their
    /// bits, NaNs replaced by a number).
    Record(u64, Expr),
    /// Two blocks that branch to each other: entered at `a` if the first
    /// condition holds, else at `b`; each continues to the other while its
    /// condition holds and the shared counter is below the cap.
    Irreducible {
        cap: u32,
        conds: Box<[Cond; 3]>,
        a: Vec<Stmt>,
        b: Vec<Stmt>,
    },
    /// Leaves the loop this many levels out (0: the innermost).
    Break(u32),
    /// Continues the loop this many levels out (0: the innermost).
    Continue(u32),
    Return(Expr),
}

const ICMP: [&str; 10] = ["eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge"];
const FCMP: [&str; 14] =
    ["oeq", "one", "olt", "ole", "ogt", "oge", "ord", "ueq", "une", "ult", "ule", "ugt", "uge", "uno"];

struct Gen<'a> {
    rng: SmallRng,
    cfg: &'a GenConfig,
    /// Types of all variables: parameters first, then locals.
    vars: Vec<Ty>,
    /// Variables readable now (the prefix `0..avail` is initialised).
    avail: usize,
    /// Statements still allowed.
    budget: u32,
    /// Loops enclosing the statement being generated.
    loops: u32,
    /// The function's return type.
    ret: Ty,
    /// Element types of the arrays (a pointer parameter's first).
    arrays: Vec<Ty>,
    /// All helpers generated so far.
    helpers: Vec<Helper>,
    /// The helpers expressions may call.
    callable: Vec<usize>,
    /// The function's array pointer parameter (helpers only).
    ptr_param: Option<(PtrMode, Ty)>,
    /// Element types of arrays the function must have (for pointer-taking helpers).
    needed_arrays: Vec<Ty>,
    /// Read-only buffers the top-level function must have (for
    /// buffer-reading helpers): element type, length.
    needed_bufs: Vec<(Elem, u64)>,
    /// Generating a helper.
    is_helper: bool,
    /// Every returned value is `value & mask` (a helper's `range` return).
    ret_mask: Option<u64>,
    /// Some expression divides or converts float to int.
    uses_div: bool,
    /// Helpers some expression calls.
    calls: BTreeSet<usize>,
    /// The top-level function's buffer parameters.
    bufs: Vec<BufParam>,
    /// How lanes share each scalar parameter (top-level function only;
    /// helpers: all varying).
    kinds: Vec<ParamKind>,
    /// Some statement calls the recorder.
    records: bool,
    /// Generating a recursive helper (it has a depth parameter).
    recursive: bool,
    /// Self-calls made so far (at most two, none inside loops).
    self_calls: u32,
    /// Tag of the next recorder call.
    next_tag: u64,
}

fn pick_range(rng: &mut SmallRng, r: &RangeInclusive<u32>) -> u32 {
    if r.is_empty() {
        0
    } else {
        rng.gen_range(r.clone())
    }
}

impl<'a> Gen<'a> {
    fn new(rng: SmallRng, cfg: &'a GenConfig, helpers: Vec<Helper>, callable: Vec<usize>) -> Gen<'a> {
        Gen {
            rng,
            cfg,
            vars: Vec::new(),
            avail: 0,
            budget: 0,
            loops: 0,
            ret: Ty::I32,
            arrays: Vec::new(),
            helpers,
            callable,
            ptr_param: None,
            needed_arrays: Vec::new(),
            needed_bufs: Vec::new(),
            is_helper: false,
            ret_mask: None,
            uses_div: false,
            calls: BTreeSet::new(),
            bufs: Vec::new(),
            kinds: Vec::new(),
            records: false,
            recursive: false,
            self_calls: 0,
            next_tag: 1,
        }
    }

    /// Whether array `a` may be read.
    fn readable(&self, a: usize) -> bool {
        !(a == 0 && matches!(self.ptr_param, Some((PtrMode::Write, _))))
    }

    /// Whether array `a` may be written.
    fn writable(&self, a: usize) -> bool {
        !(a == 0 && matches!(self.ptr_param, Some((PtrMode::Read, _))))
    }

    /// A returned value: `e & mask` when returns have a `range`.
    fn ret_value(&mut self, depth: u32) -> Expr {
        let ty = self.ret;
        let e = self.expr(ty, depth);
        match self.ret_mask {
            Some(m) => {
                let mask = Expr { ty, kind: ExprKind::Const(m) };
                Expr { ty, kind: ExprKind::Int(IntOp::And, Box::new(e), Box::new(mask)) }
            }
            None => e,
        }
    }

    fn attr(&mut self, text: &str) -> String {
        if chance(&mut self.rng, self.cfg.p_attrs) {
            format!("{text} ")
        } else {
            String::new()
        }
    }

    /// Decides a helper's convention and attributes (all of them true for
    /// the generated body) once its body `f` exists.
    fn helper_signature(&mut self, name: String, f: &Function, sret: bool) -> Helper {
        let p = self.cfg.p_attrs;
        let cc = if chance(&mut self.rng, self.cfg.p_cc) {
            *HELPER_CCS.choose(&mut self.rng).expect("nonempty")
        } else {
            ""
        };
        let cc: &'static str = match cc {
            "" => "",
            // LLVM 22 on x86-64 treats XMM0 as callee-saved under coldcc and
            // restores it over a float return value: keep coldcc to
            // helpers that return integers (or nothing, with sret).
            "coldcc" if !f.ret.is_int() && !sret => "fastcc ",
            "fastcc" => "fastcc ",
            "coldcc" => "coldcc ",
            "tailcc" => "tailcc ",
            "preserve_mostcc" => "preserve_mostcc ",
            _ => "ccc ",
        };
        // The recorder's calls are side effects: no `memory(..)`,
        // `speculatable`, `willreturn`, `nosync` or `nofree` claims.
        let effects = self.records || self.calls.iter().any(|&h| self.helpers[h].effects);
        let spec = self.ptr_param.is_none()
            && self.bufs.is_empty()
            && !sret
            && !self.uses_div
            && !effects
            && !self.recursive
            && self.calls.iter().all(|&h| self.helpers[h].spec);
        // Memory effects: only the array pointer and the sret pointer, and
        // the helper's own stack; callees are free of pointers.
        let (mut reads, mut writes) = (!self.bufs.is_empty(), sret);
        if let Some((mode, _)) = self.ptr_param {
            reads |= mode != PtrMode::Write;
            writes |= mode != PtrMode::Read;
        }
        for &h in &self.calls {
            // Callees take no array pointers; an sret callee writes the
            // helper's own stack only.
            debug_assert!(self.helpers[h].ptr.is_none());
        }
        let mut fn_attrs = String::new();
        for a in ["nounwind", "willreturn", "norecurse", "nofree", "nosync", "mustprogress"] {
            let holds = match a {
                "norecurse" => !self.recursive && !effects,
                "willreturn" | "nofree" | "nosync" => !effects,
                _ => true,
            };
            if chance(&mut self.rng, p) && holds {
                let _ = write!(fn_attrs, " {a}");
            }
        }
        if spec && chance(&mut self.rng, p) {
            fn_attrs.push_str(" speculatable");
        }
        if chance(&mut self.rng, p) && !effects {
            let argmem = match (reads, writes) {
                (false, false) => None,
                (true, false) => Some("read"),
                (false, true) => Some("write"),
                (true, true) => Some("readwrite"),
            };
            let m = match argmem {
                None => *["memory(none)", "memory(none)", "memory(read)", "memory(argmem: read)"]
                    .choose(&mut self.rng)
                    .expect("nonempty"),
                Some("read") => *["memory(argmem: read)", "memory(read)"].choose(&mut self.rng).expect("nonempty"),
                Some("write") => {
                    *["memory(argmem: write)", "memory(argmem: readwrite)"].choose(&mut self.rng).expect("nonempty")
                }
                Some(_) => "memory(argmem: readwrite)",
            };
            let _ = write!(fn_attrs, " {m}");
        }
        // Scalar parameters: noundef, and range where callers mask the argument.
        let mut masks = Vec::new();
        let mut param_attrs = Vec::new();
        let mut call_arg_attrs = Vec::new();
        for t in &f.params {
            let mut a = self.attr("noundef");
            let mask = if t.is_int() && chance(&mut self.rng, p * 0.5) {
                let m = *[1u64, 7, 63, 255, 65535].choose(&mut self.rng).expect("nonempty");
                let _ = write!(a, "range({} 0, {}) ", t.ir(), m + 1);
                Some(m)
            } else {
                None
            };
            masks.push(mask);
            param_attrs.push(a);
            call_arg_attrs.push(self.attr("noundef"));
        }
        let mut ret_attrs = if sret { String::new() } else { self.attr("noundef") };
        if let (Some(m), false) = (self.ret_mask, sret) {
            let _ = write!(ret_attrs, "range({} 0, {}) ", f.ret.ir(), m + 1);
        }
        let call_ret_attrs = if sret { String::new() } else { self.attr("noundef") };
        // The array pointer: always a whole, aligned, private array of the caller.
        let (mut ptr_attrs, mut call_ptr_attrs) = (String::new(), String::new());
        if let Some((mode, ty)) = self.ptr_param {
            let arr = format!("[{ARRAY_LEN} x {}]", ty.ir());
            let bytes = ARRAY_LEN * (ty.bits() as u64 / 8);
            if mode == PtrMode::Byval {
                ptr_attrs = format!("byval({arr}) align 16 ");
                call_ptr_attrs = ptr_attrs.clone();
                ptr_attrs.push_str(&self.attr("noundef"));
            } else {
                for a in ["noundef", "nonnull", "noalias"] {
                    ptr_attrs.push_str(&self.attr(a));
                }
                match mode {
                    PtrMode::Read => ptr_attrs.push_str(&self.attr("readonly")),
                    PtrMode::Write => ptr_attrs.push_str(&self.attr("writeonly")),
                    _ => {}
                }
                let cap = *["captures(none)", "nocapture"].choose(&mut self.rng).expect("nonempty");
                ptr_attrs.push_str(&self.attr(cap));
                ptr_attrs.push_str(&self.attr(&format!("dereferenceable({bytes})")));
                let align = *[4u32, 8, 16].choose(&mut self.rng).expect("nonempty");
                ptr_attrs.push_str(&self.attr(&format!("align {}", align.min(16))));
                call_ptr_attrs.push_str(&self.attr("noundef"));
                call_ptr_attrs.push_str(&self.attr("nonnull"));
            }
        }
        // A buffer pointer: a whole read-only buffer of the caller.
        let mut buf_attrs = Vec::new();
        for b in self.bufs.clone() {
            let mut a = String::new();
            for x in ["noundef", "nonnull", "readonly"] {
                a.push_str(&self.attr(x));
            }
            a.push_str(&self.attr(&format!("dereferenceable({})", b.len * b.elem.bytes())));
            buf_attrs.push(a);
        }
        let mut sret_attrs = String::new();
        if sret {
            let st = format!("{{ {}, i32 }}", f.ret.ir());
            for a in ["noalias", "nonnull", "writeonly", "captures(none)"] {
                sret_attrs.push_str(&self.attr(a));
            }
            let _ = write!(sret_attrs, "sret({st}) align 8 ");
            sret_attrs.push_str(&self.attr(&format!("dereferenceable({})", sret_size(f.ret))));
        }
        if !self.cfg.emit_attrs {
            fn_attrs.clear();
            ret_attrs.clear();
            param_attrs.iter_mut().for_each(String::clear);
            call_arg_attrs.iter_mut().for_each(String::clear);
            buf_attrs.iter_mut().for_each(String::clear);
            if self.ptr_param.is_some_and(|(m, _)| m == PtrMode::Byval) {
                ptr_attrs.clone_from(&call_ptr_attrs);
            } else {
                ptr_attrs.clear();
                call_ptr_attrs.clear();
            }
            if sret {
                sret_attrs = format!("sret({{ {}, i32 }}) align 8 ", f.ret.ir());
            }
        }
        let call_ret_attrs = if self.cfg.emit_attrs { call_ret_attrs } else { String::new() };
        Helper {
            name,
            params: f.params.clone(),
            masks,
            ret: f.ret,
            ptr: self.ptr_param,
            spec,
            recursive: self.recursive,
            effects,
            buf: self.bufs.first().map(|b| (b.elem, b.len)),
            sig: Sig {
                linkage: "internal ",
                cc,
                ret_attrs,
                fn_attrs,
                param_attrs,
                ptr_attrs,
                sret_attrs,
                sret,
                pair: false,
                buf_attrs,
            },
            call_ptr_attrs,
            call_arg_attrs,
            call_ret_attrs,
        }
    }

    /// The top-level function's linkage, convention and attributes.
    fn top_level_signature(&mut self, f: &Function) -> Sig {
        let cfg = self.cfg;
        let mut sig = Sig { param_attrs: vec![String::new(); f.params.len()], ..Sig::default() };
        let effects = self.records || self.calls.iter().any(|&h| self.helpers[h].effects);
        // Buffers: `dereferenceable` always (the oracle sizes the buffer by
        // it), the rest when attributes are on.
        for b in &f.bufs {
            // The same random choices with and without attributes.
            let (on, noalias, readonly, align) =
                (self.rng.gen_bool(0.6), self.rng.gen_bool(0.5), self.rng.gen_bool(0.5), self.rng.gen_bool(0.5));
            let mut a = String::new();
            if cfg.emit_attrs && on {
                a.push_str("noundef nonnull ");
                if noalias {
                    a.push_str("noalias ");
                }
                if b.role == BufRole::Read && readonly {
                    a.push_str("readonly ");
                }
                if align {
                    let _ = write!(a, "align {} ", b.elem.bytes());
                }
            }
            let _ = write!(a, "dereferenceable({}) ", b.len * b.elem.bytes());
            sig.buf_attrs.push(a);
        }
        if cfg.top_level_internal && self.rng.gen_bool(0.5) {
            sig.linkage = "internal ";
        }
        if cfg.top_level_cc {
            sig.cc = match *TOP_CCS.choose(&mut self.rng).expect("nonempty") {
                "fastcc" => "fastcc ",
                "tailcc" => "tailcc ",
                _ => "",
            };
        }
        if chance(&mut self.rng, cfg.p_top_attrs) {
            for a in ["nounwind", "willreturn", "mustprogress"] {
                if self.rng.gen_bool(0.7) && !(a == "willreturn" && effects) {
                    let _ = write!(sig.fn_attrs, " {a}");
                }
            }
            // Its arrays and sret temporaries are its own stack, but keep
            // the claim to functions without any.
            let stack = !f.arrays.is_empty() || self.calls.iter().any(|&h| self.helpers[h].sig.sret);
            if !stack && !effects && self.rng.gen_bool(0.7) {
                if f.bufs.is_empty() {
                    sig.fn_attrs.push_str(" memory(none)");
                } else if f.bufs.iter().all(|b| b.role == BufRole::Read) {
                    sig.fn_attrs.push_str(" memory(argmem: read)");
                } else {
                    sig.fn_attrs.push_str(" memory(argmem: readwrite)");
                }
            }
            for a in sig.param_attrs.iter_mut() {
                if self.rng.gen_bool(0.7) {
                    a.push_str("noundef ");
                }
            }
            if self.rng.gen_bool(0.7) {
                sig.ret_attrs.push_str("noundef ");
            }
            if !cfg.emit_attrs {
                sig = Sig { linkage: sig.linkage, cc: sig.cc, buf_attrs: sig.buf_attrs, ..Sig::default() };
            }
        }
        sig
    }

    fn chance(&mut self, p: f64) -> bool {
        p > 0.0 && self.rng.gen_bool(p.min(1.0))
    }

    fn program(&mut self) -> Function {
        let ni = pick_range(&mut self.rng, &self.cfg.int_params);
        let nf = pick_range(&mut self.rng, &self.cfg.float_params);
        let mut params: Vec<Ty> = Vec::new();
        for _ in 0..ni {
            params.push(if self.rng.gen_bool(0.5) { Ty::I32 } else { Ty::I64 });
        }
        for _ in 0..nf {
            params.push(if self.rng.gen_bool(0.5) { Ty::F32 } else { Ty::F64 });
        }
        if params.is_empty() {
            params.push(*Ty::ALL.choose(&mut self.rng).expect("nonempty"));
        }
        params.shuffle(&mut self.rng);
        self.kinds = vec![ParamKind::Vector; params.len()];
        if !self.is_helper {
            self.choose_kinds(&params);
            self.choose_buffers();
        }
        let ret = *Ty::ALL.choose(&mut self.rng).expect("nonempty");
        self.ret = ret;
        // Helpers may promise a `range` of their integer results.
        if self.is_helper && ret.is_int() && chance(&mut self.rng, self.cfg.p_attrs * 0.4) {
            self.ret_mask = Some(*[1u64, 15, 255, 65535].choose(&mut self.rng).expect("nonempty"));
        }
        self.vars = params.clone();
        let nl = pick_range(&mut self.rng, &self.cfg.locals);
        let mut body = Vec::new();
        self.avail = params.len();
        for _ in 0..nl {
            let ty = *Ty::ALL.choose(&mut self.rng).expect("nonempty");
            let e = self.expr(ty, 2);
            self.vars.push(ty);
            body.push(Stmt::Assign(self.vars.len() - 1, e));
            self.avail = self.vars.len();
        }
        let mut new_arrays = self.needed_arrays.clone();
        if self.chance(self.cfg.p_array) {
            for _ in 0..self.rng.gen_range(1..=2) {
                new_arrays.push(*Ty::ALL.choose(&mut self.rng).expect("nonempty"));
            }
        }
        if let Some((mode, ty)) = self.ptr_param {
            // The caller's array is complete; a write-only or byval helper
            // writes it first thing.
            self.arrays.push(ty);
            if mode != PtrMode::Read {
                let ity = if self.rng.gen_bool(0.5) { Ty::I32 } else { Ty::I64 };
                let idx = self.expr(ity, 1);
                let e = self.expr(ty, 2);
                body.push(Stmt::Store(0, idx, e));
            }
        }
        for ty in new_arrays {
            // Every element is written before anything reads the array:
            // the initialisers only read earlier, complete arrays.
            let a = self.arrays.len();
            for k in 0..ARRAY_LEN {
                let e = self.expr(ty, 1);
                body.push(Stmt::Store(a, Expr { ty: Ty::I64, kind: ExprKind::Const(k) }, e));
            }
            self.arrays.push(ty);
        }
        // Every pointer-taking helper is called at least once, once the
        // arrays are complete; its result lands in a variable of its type.
        let ptr_helpers: Vec<usize> =
            self.callable.iter().copied().filter(|&h| self.helpers[h].ptr.is_some()).collect();
        for hi in ptr_helpers {
            let ret = self.helpers[hi].ret;
            let vs: Vec<usize> = (0..self.vars.len()).filter(|&v| self.vars[v] == ret).collect();
            let call = self.call(hi, 2);
            let s = match vs.choose(&mut self.rng) {
                Some(&v) => Stmt::Assign(v, call),
                None => {
                    // No variable of that type: convert into one.
                    let v = self.rng.gen_range(0..self.vars.len());
                    let e = self.convert(call, self.vars[v]);
                    Stmt::Assign(v, e)
                }
            };
            body.push(s);
        }
        self.budget = self.cfg.max_total_stmts;
        let n = self.rng.gen_range(1..=self.cfg.max_stmts.max(1));
        body.extend(self.block(n, 0));
        let e = self.ret_value(self.cfg.max_expr_depth);
        body.push(Stmt::Return(e));
        Function {
            params,
            ret,
            vars: self.vars.clone(),
            arrays: self.arrays.clone(),
            ptr_param: self.ptr_param.map(|(m, _)| m),
            bufs: self.bufs.clone(),
            kinds: self.kinds.clone(),
            depth_param: self.recursive,
            body,
        }
    }

    /// Makes some scalar parameters uniform or linear (top-level only).
    fn choose_kinds(&mut self, params: &[Ty]) {
        for (i, t) in params.iter().enumerate() {
            if t.is_int() && self.chance(self.cfg.p_linear_param) {
                let step = if self.rng.gen_bool(0.75) { 1 } else { -1 };
                self.kinds[i] = ParamKind::Linear { step };
            } else if self.chance(self.cfg.p_uniform_param) {
                self.kinds[i] = ParamKind::Uniform;
            }
        }
    }

    /// Scalar parameters of a kind.
    fn args_of(&self, want: fn(ParamKind) -> bool) -> Vec<usize> {
        (0..self.kinds.len()).filter(|&i| want(self.kinds[i])).collect()
    }

    /// Picks the buffer parameters (top-level only; see [`BufRole`]).
    fn choose_buffers(&mut self) {
        for (elem, len) in self.needed_bufs.clone() {
            let eb = elem.bytes() as i64;
            let kind = *[ParamKind::Vector, ParamKind::Uniform, ParamKind::Linear { step: eb }]
                .choose(&mut self.rng)
                .expect("nonempty");
            self.bufs.push(BufParam { kind, elem, len, role: BufRole::Read });
        }
        if !self.chance(self.cfg.p_buffers) {
            return;
        }
        let linear = self.args_of(|k| matches!(k, ParamKind::Linear { .. }));
        for _ in 0..self.rng.gen_range(1..=self.cfg.max_buffers.max(1)) {
            let elem = *Elem::ALL.choose(&mut self.rng).expect("nonempty");
            let eb = elem.bytes() as i64;
            let roll = self.rng.gen_range(0..100);
            let b = if roll < 35 {
                let len = *[4u64, 8, 16, 32].choose(&mut self.rng).expect("nonempty");
                let kind = match self.rng.gen_range(0..4) {
                    0 => ParamKind::Vector,
                    1 => ParamKind::Uniform,
                    // Lanes' pointers one or two elements apart: contiguous
                    // or strided loads.
                    2 => ParamKind::Linear { step: eb },
                    _ => ParamKind::Linear { step: 2 * eb },
                };
                BufParam { kind, elem, len, role: BufRole::Read }
            } else if roll < 65 {
                let len = *[4u64, 8, 16, 32].choose(&mut self.rng).expect("nonempty");
                BufParam { kind: ParamKind::Vector, elem, len, role: BufRole::Own }
            } else {
                let size = *[1u64, 2, 4].choose(&mut self.rng).expect("nonempty");
                match linear.choose(&mut self.rng) {
                    Some(&by) if self.rng.gen_bool(0.6) => {
                        let len = (size * self.cfg.lanes.max(1) as u64).next_power_of_two().max(4);
                        BufParam { kind: ParamKind::Uniform, elem, len, role: BufRole::Window { size, by: Some(by) } }
                    }
                    _ => BufParam {
                        kind: ParamKind::Linear { step: size as i64 * eb },
                        elem,
                        len: size,
                        role: BufRole::Window { size, by: None },
                    },
                }
            };
            self.bufs.push(b);
        }
    }

    /// A random element index for buffer `b` (see [`Index`]), of an
    /// expression depth up to `d`.
    fn index(&mut self, b: usize, d: u32) -> Index {
        let buf = self.bufs[b];
        let ity = if self.rng.gen_bool(0.5) { Ty::I32 } else { Ty::I64 };
        match buf.role {
            BufRole::Window { size, by: Some(arg) } => {
                if size > 1 && self.rng.gen_bool(0.4) {
                    let e = self.expr(ity, d);
                    Index::LaneRandom { arg, scale: size, e }
                } else {
                    Index::Lane { arg, scale: size, offset: self.rng.gen_range(0..size) }
                }
            }
            BufRole::Window { size, by: None } => {
                if size > 1 && self.rng.gen_bool(0.4) {
                    Index::Random(self.expr(ity, d), self.rng.gen_bool(0.3))
                } else {
                    Index::Const(self.rng.gen_range(0..size))
                }
            }
            BufRole::Read | BufRole::Own => {
                let uniform = self.args_of(|k| k == ParamKind::Uniform);
                let uniform: Vec<usize> = uniform.into_iter().filter(|&i| self.vars[i].is_int()).collect();
                let linear = self.args_of(|k| matches!(k, ParamKind::Linear { .. }));
                match self.rng.gen_range(0..10) {
                    0 | 1 => Index::Const(self.rng.gen_range(0..buf.len)),
                    2 | 3 if !uniform.is_empty() => Index::Uniform(*uniform.choose(&mut self.rng).expect("nonempty")),
                    4 | 5 if !linear.is_empty() => {
                        let arg = *linear.choose(&mut self.rng).expect("nonempty");
                        let scale = *[1u64, 1, 2, 3].choose(&mut self.rng).expect("nonempty");
                        Index::Lane { arg, scale, offset: self.rng.gen_range(0..buf.len) }
                    }
                    _ => Index::Random(self.expr(ity, d), self.rng.gen_bool(0.3)),
                }
            }
        }
    }

    fn block(&mut self, n: u32, depth: u32) -> Vec<Stmt> {
        let mut out = Vec::new();
        for _ in 0..n {
            if self.budget == 0 {
                break;
            }
            self.budget -= 1;
            let s = self.stmt(depth);
            let ends = matches!(s, Stmt::Break(_) | Stmt::Continue(_) | Stmt::Return(_));
            out.push(s);
            if ends {
                break; // anything after it would be dead
            }
        }
        if out.is_empty() {
            out.push(self.assign());
        }
        out
    }

    fn sub_block(&mut self, depth: u32) -> Vec<Stmt> {
        let n = self.rng.gen_range(1..=self.cfg.max_stmts.max(1));
        self.block(n, depth)
    }

    fn assign(&mut self) -> Stmt {
        let bufs: Vec<usize> = (0..self.bufs.len()).filter(|&b| self.bufs[b].role != BufRole::Read).collect();
        if !bufs.is_empty() && self.rng.gen_bool(0.35) {
            let b = *bufs.choose(&mut self.rng).expect("nonempty");
            let idx = self.index(b, 1);
            let e = self.expr(self.bufs[b].elem.value_ty(), 2);
            return Stmt::BufStore(b, idx, e);
        }
        let writable: Vec<usize> = (0..self.arrays.len()).filter(|&a| self.writable(a)).collect();
        if !writable.is_empty() && self.rng.gen_bool(0.3) {
            let a = *writable.choose(&mut self.rng).expect("nonempty");
            let idx = self.array_index(1);
            let e = self.expr(self.arrays[a], 2);
            return Stmt::Store(a, idx, e);
        }
        let v = self.rng.gen_range(0..self.vars.len());
        let d = self.rng.gen_range(1..=self.cfg.max_expr_depth.max(1));
        let e = self.expr(self.vars[v], d);
        Stmt::Assign(v, e)
    }

    fn stmt(&mut self, depth: u32) -> Stmt {
        let cfg = self.cfg;
        let nest = depth < cfg.max_depth;
        if self.chance(cfg.p_record) {
            let ty = *Ty::ALL.choose(&mut self.rng).expect("nonempty");
            let e = self.expr(ty, 2);
            self.records = true;
            self.next_tag += 1;
            return Stmt::Record(self.next_tag - 1, e);
        }
        if self.loops > 0 && self.chance(cfg.p_break) {
            let c = self.cond(2);
            let up = self.exit_level();
            return Stmt::If(c, vec![Stmt::Break(up)], Vec::new());
        }
        if self.loops > 0 && self.chance(cfg.p_continue) {
            let c = self.cond(2);
            let up = self.exit_level();
            let before =
                if self.chance(0.5) { vec![self.assign(), Stmt::Continue(up)] } else { vec![Stmt::Continue(up)] };
            return Stmt::If(c, before, Vec::new());
        }
        if self.chance(cfg.p_return) {
            let e = self.ret_value(2);
            if nest || self.chance(0.2) {
                let c = self.cond(2);
                return Stmt::If(c, vec![Stmt::Return(e)], Vec::new());
            }
            return Stmt::Return(e);
        }
        if nest && self.chance(cfg.p_if) {
            let c = self.cond(2);
            let then = self.sub_block(depth + 1);
            let els = if self.chance(0.5) { self.sub_block(depth + 1) } else { Vec::new() };
            return Stmt::If(c, then, els);
        }
        if nest && self.chance(cfg.p_loop) {
            let kind = *[LoopKind::For, LoopKind::While, LoopKind::DoWhile].choose(&mut self.rng).expect("nonempty");
            let cap = self.rng.gen_range(1..=cfg.max_trip.max(1));
            let short_circuit = self.chance(cfg.p_short_circuit);
            // The condition runs on every iteration too (no self-calls there).
            self.loops += 1;
            let cond = self.cond(2);
            let body = self.sub_block(depth + 1);
            self.loops -= 1;
            return Stmt::Loop { kind, short_circuit, cap, cond, body };
        }
        if nest && self.chance(cfg.p_switch) {
            return self.switch(depth);
        }
        if nest && self.chance(cfg.p_irreducible) {
            let cap = self.rng.gen_range(1..=cfg.max_trip.max(1));
            let conds = Box::new([self.cond(1), self.cond(1), self.cond(1)]);
            let a = self.sub_block(depth + 1);
            let b = self.sub_block(depth + 1);
            return Stmt::Irreducible { cap, conds, a, b };
        }
        self.assign()
    }

    /// How many loops out a `break`/`continue` goes.
    fn exit_level(&mut self) -> u32 {
        if self.loops > 1 && self.chance(self.cfg.p_outer_exit) {
            self.rng.gen_range(1..self.loops)
        } else {
            0
        }
    }

    fn switch(&mut self, depth: u32) -> Stmt {
        let ty = if self.rng.gen_bool(0.5) { Ty::I32 } else { Ty::I64 };
        let scrutinee = self.expr(ty, 2);
        let mask: u64 = *[3u64, 7, 15].choose(&mut self.rng).expect("nonempty");
        let mut values: Vec<u64> = (0..=mask).collect();
        values.shuffle(&mut self.rng);
        let ncases = self.rng.gen_range(1..=4usize);
        let mut cases = Vec::new();
        for _ in 0..ncases {
            let k = self.rng.gen_range(1..=2usize).min(values.len());
            if k == 0 {
                break;
            }
            let vals: Vec<u64> = values.drain(..k).collect();
            let body = self.sub_block(depth + 1);
            let fallthrough = self.chance(0.3);
            cases.push(Case { values: vals, body, fallthrough });
        }
        let body = self.sub_block(depth + 1);
        let fallthrough = self.chance(0.3);
        let at = self.rng.gen_range(0..=cases.len());
        cases.insert(at, Case { values: Vec::new(), body, fallthrough });
        Stmt::Switch { scrutinee, mask, cases }
    }

    fn cond(&mut self, depth: u32) -> Cond {
        if depth > 0 && self.chance(0.2) {
            let a = self.cond(depth - 1);
            let b = self.cond(depth - 1);
            let sc = self.chance(self.cfg.p_short_circuit);
            return if self.rng.gen_bool(0.5) {
                Cond::And(Box::new(a), Box::new(b), sc)
            } else {
                Cond::Or(Box::new(a), Box::new(b), sc)
            };
        }
        if depth > 0 && self.chance(0.08) {
            return Cond::Not(Box::new(self.cond(depth - 1)));
        }
        let has_float = self.vars[..self.avail].iter().any(|t| !t.is_int());
        // Lean on float comparisons when float data exists: that is where
        // NaN and the unordered predicates make lanes disagree.
        if has_float && self.rng.gen_bool(0.55) {
            let ty = self.var_type(false);
            let a = self.cmp_operand(ty);
            let b = self.cmp_operand(ty);
            Cond::FCmp(FCMP.choose(&mut self.rng).expect("nonempty"), a, b)
        } else {
            let ty = self.var_type(true);
            let a = self.cmp_operand(ty);
            let b = self.cmp_operand(ty);
            Cond::ICmp(ICMP.choose(&mut self.rng).expect("nonempty"), a, b)
        }
    }

    /// A type of the wanted class, preferring types of existing variables.
    fn var_type(&mut self, int: bool) -> Ty {
        let cands: Vec<Ty> = self.vars[..self.avail].iter().copied().filter(|t| t.is_int() == int).collect();
        match cands.choose(&mut self.rng) {
            Some(t) => *t,
            None if int => Ty::I32,
            None => Ty::F64,
        }
    }

    fn cmp_operand(&mut self, ty: Ty) -> Expr {
        let roll = self.rng.gen_range(0..10);
        if roll < 5 {
            self.leaf(ty)
        } else if roll < 7 {
            Expr { ty, kind: ExprKind::Const(self.constant(ty)) }
        } else {
            self.expr(ty, 2)
        }
    }

    fn leaf(&mut self, ty: Ty) -> Expr {
        // The entry value of a uniform or linear parameter: uniform (or
        // linear) wherever it is used, whatever assignments did to its
        // variable, so calls get uniform arguments and branches uniform
        // conditions.
        let shaped: Vec<usize> =
            (0..self.kinds.len()).filter(|&i| self.kinds[i] != ParamKind::Vector && self.vars[i] == ty).collect();
        if !shaped.is_empty() && self.rng.gen_bool(0.2) {
            let i = *shaped.choose(&mut self.rng).expect("nonempty");
            return Expr { ty, kind: ExprKind::Arg(i) };
        }
        let cands: Vec<usize> = (0..self.avail).filter(|&i| self.vars[i] == ty).collect();
        if !cands.is_empty() && self.rng.gen_bool(0.8) {
            let v = *cands.choose(&mut self.rng).expect("nonempty");
            return Expr { ty, kind: ExprKind::Var(v) };
        }
        if cands.is_empty() && self.avail > 0 && self.rng.gen_bool(0.6) {
            // Convert another variable, so the value still depends on the inputs.
            let v = self.rng.gen_range(0..self.avail);
            let from = Expr { ty: self.vars[v], kind: ExprKind::Var(v) };
            return self.convert(from, ty);
        }
        Expr { ty, kind: ExprKind::Const(self.constant(ty)) }
    }

    fn constant(&mut self, ty: Ty) -> u64 {
        match ty {
            Ty::I32 | Ty::I64 => {
                let min = if ty == Ty::I32 { i32::MIN as i64 } else { i64::MIN };
                let max = if ty == Ty::I32 { i32::MAX as i64 } else { i64::MAX };
                let v: i64 = match self.rng.gen_range(0..12) {
                    0 => 0,
                    1 => 1,
                    2 => -1,
                    3 => min,
                    4 => max,
                    5 => (ty.bits() - 1) as i64,
                    6 => ty.bits() as i64,
                    7 => self.rng.gen_range(-1000..1000),
                    8 => {
                        if ty == Ty::I32 {
                            self.rng.gen::<i32>() as i64
                        } else {
                            self.rng.gen()
                        }
                    }
                    _ => self.rng.gen_range(-8..16),
                };
                v as u64
            }
            Ty::F32 | Ty::F64 => {
                let v: f64 = match self.rng.gen_range(0..14) {
                    0 => 0.0,
                    1 => -0.0,
                    2 => 1.0,
                    3 => -1.0,
                    4 => 0.5,
                    5 => f64::INFINITY,
                    6 => f64::NEG_INFINITY,
                    7 => f64::NAN,
                    8 => 1.0e30,
                    9 => 3.0e9,
                    _ => self.rng.gen_range(-64i32..64) as f64 / 4.0,
                };
                let v = if ty == Ty::F32 { v as f32 as f64 } else { v };
                if v.is_nan() {
                    0x7ff8_0000_0000_0000
                } else {
                    v.to_bits()
                }
            }
        }
    }

    fn convert(&mut self, from: Expr, to: Ty) -> Expr {
        let signed = self.rng.gen_bool(0.5);
        if from.ty == to {
            return from;
        }
        if to.is_int() && !from.ty.is_int() {
            let guard = self.guard();
            let fallback = match self.rng.gen_range(0..4) {
                0 => 0,
                1 => u64::MAX,
                2 => 42,
                _ => {
                    if to == Ty::I32 {
                        i32::MIN as i64 as u64
                    } else {
                        i64::MIN as u64
                    }
                }
            };
            self.uses_div = true;
            return Expr { ty: to, kind: ExprKind::FpToSi(guard, fallback, Box::new(from)) };
        }
        Expr { ty: to, kind: ExprKind::Conv(signed, Box::new(from)) }
    }

    fn guard(&mut self) -> Guard {
        if self.chance(self.cfg.p_branch_guard) {
            Guard::Branch
        } else {
            Guard::Select
        }
    }

    /// A buffer of this function a helper that reads `(elem, len)` may get:
    /// same element type, at least `len` elements, and no lane writes into
    /// it what another lane reads (read-only, or a lane's own).
    fn buffers_for(&self, (elem, len): (Elem, u64)) -> Vec<usize> {
        (0..self.bufs.len())
            .filter(|&j| {
                let b = self.bufs[j];
                b.elem == elem && b.len >= len && matches!(b.role, BufRole::Read | BufRole::Own)
            })
            .collect()
    }

    /// An index into a private array: often uniform (a constant or a
    /// uniform parameter's value), else any expression (masked with `& 7`
    /// when lowered).
    fn array_index(&mut self, d: u32) -> Expr {
        let uniform: Vec<usize> =
            self.args_of(|k| k == ParamKind::Uniform).into_iter().filter(|&i| self.vars[i].is_int()).collect();
        match self.rng.gen_range(0..10) {
            0 | 1 => Expr { ty: Ty::I64, kind: ExprKind::Const(self.rng.gen_range(0..ARRAY_LEN)) },
            2 | 3 if !uniform.is_empty() => {
                let i = *uniform.choose(&mut self.rng).expect("nonempty");
                Expr { ty: self.vars[i], kind: ExprKind::Arg(i) }
            }
            _ => {
                let ity = if self.rng.gen_bool(0.5) { Ty::I32 } else { Ty::I64 };
                self.expr(ity, d)
            }
        }
    }

    /// A call of helper `hi` with arguments of expression depth `d`.
    fn call(&mut self, hi: usize, d: u32) -> Expr {
        let h = self.helpers[hi].clone();
        let mut args = Vec::new();
        for (t, m) in h.params.iter().zip(&h.masks) {
            let e = self.expr(*t, d);
            args.push(match m {
                Some(m) => {
                    let mask = Expr { ty: *t, kind: ExprKind::Const(*m) };
                    Expr { ty: *t, kind: ExprKind::Int(IntOp::And, Box::new(e), Box::new(mask)) }
                }
                None => e,
            });
        }
        let array = h.ptr.map(|(_, et)| {
            let arrs: Vec<usize> = (0..self.arrays.len()).filter(|&a| self.arrays[a] == et).collect();
            *arrs.choose(&mut self.rng).expect("checked above")
        });
        let buffer = h.buf.map(|want| *self.buffers_for(want).choose(&mut self.rng).expect("checked by the caller"));
        // `tail`: the callee touches none of the caller's stack.
        let tail = h.ptr.is_none() && h.buf.is_none() && !h.sig.sret && chance(&mut self.rng, self.cfg.p_tail);
        // A recursive helper's depth: `x & 3`, x of any int expression
        // (varying or uniform), so recursion is at most 3 calls deep.
        let depth = h.recursive.then(|| {
            let e = self.expr(Ty::I32, d.min(1));
            let three = Expr { ty: Ty::I32, kind: ExprKind::Const(3) };
            Box::new(Expr { ty: Ty::I32, kind: ExprKind::Int(IntOp::And, Box::new(e), Box::new(three)) })
        });
        self.calls.insert(hi);
        Expr { ty: h.ret, kind: ExprKind::Call(hi, args, array, tail, depth, buffer) }
    }

    fn expr(&mut self, ty: Ty, depth: u32) -> Expr {
        if depth == 0 || self.rng.gen_bool(0.25) {
            return self.leaf(ty);
        }
        let d = depth - 1;
        let cands: Vec<usize> = self
            .callable
            .iter()
            .copied()
            .filter(|&h| {
                let h = &self.helpers[h];
                h.ret == ty
                    && h.ptr.is_none_or(|(_, et)| self.arrays.contains(&et))
                    && h.buf.is_none_or(|want| !self.buffers_for(want).is_empty())
            })
            .collect();
        if !cands.is_empty() && self.rng.gen_bool(0.15) {
            let hi = *cands.choose(&mut self.rng).expect("nonempty");
            return self.call(hi, d);
        }
        if let Some(a) = (0..self.arrays.len()).find(|&a| self.arrays[a] == ty && self.readable(a)) {
            if self.rng.gen_bool(0.2) {
                let idx = self.array_index(d);
                return Expr { ty, kind: ExprKind::Load(a, Box::new(idx)) };
            }
        }
        let bufs: Vec<usize> = (0..self.bufs.len()).filter(|&b| self.bufs[b].elem.value_ty() == ty).collect();
        if !bufs.is_empty() && self.rng.gen_bool(0.25) {
            let b = *bufs.choose(&mut self.rng).expect("nonempty");
            let idx = self.index(b, d);
            let signed = self.rng.gen_bool(0.5);
            return Expr { ty, kind: ExprKind::BufLoad(b, Box::new(idx), signed) };
        }
        if self.recursive && ty == self.ret && self.loops == 0 && self.self_calls < 2 && self.rng.gen_bool(0.3) {
            self.self_calls += 1;
            let params: Vec<Ty> = self.vars[..self.kinds.len()].to_vec();
            let args = params.iter().map(|&t| self.expr(t, d.min(1))).collect();
            let fallback = self.constant(ty);
            let tail = chance(&mut self.rng, self.cfg.p_tail);
            return Expr { ty, kind: ExprKind::SelfCall(args, fallback, tail) };
        }
        let roll = self.rng.gen_range(0..100);
        if roll < 10 {
            let c = self.cond(1);
            let a = self.expr(ty, d);
            let b = self.expr(ty, d);
            return Expr { ty, kind: ExprKind::Select(Box::new(c), Box::new(a), Box::new(b)) };
        }
        if roll < 22 {
            let others: Vec<Ty> = Ty::ALL.iter().copied().filter(|t| *t != ty).collect();
            let from_ty = *others.choose(&mut self.rng).expect("nonempty");
            let from = self.expr(from_ty, d);
            return self.convert(from, ty);
        }
        if ty.is_int() {
            if roll < 40 {
                let op = *[DivOp::SDiv, DivOp::UDiv, DivOp::SRem, DivOp::URem].choose(&mut self.rng).expect("op");
                let guard = self.guard();
                self.uses_div = true;
                let a = self.expr(ty, d);
                // Divisors are often plain variables so the oracle's 0 and -1 reach them.
                let b = if self.rng.gen_bool(0.6) { self.leaf(ty) } else { self.expr(ty, d) };
                return Expr { ty, kind: ExprKind::Div(op, guard, Box::new(a), Box::new(b)) };
            }
            use IntOp::*;
            let op =
                *[Add, Sub, Mul, And, Or, Xor, Shl, LShr, AShr, Smax, Add, Mul, Xor].choose(&mut self.rng).expect("op");
            let a = self.expr(ty, d);
            let b = self.expr(ty, d);
            Expr { ty, kind: ExprKind::Int(op, Box::new(a), Box::new(b)) }
        } else {
            if roll < 38 {
                let op = *[FloatUn::FNeg, FloatUn::Fabs, FloatUn::Sqrt].choose(&mut self.rng).expect("op");
                let a = self.expr(ty, d);
                return Expr { ty, kind: ExprKind::FloatUn(op, Box::new(a)) };
            }
            use FloatOp::*;
            let op = *[FAdd, FSub, FMul, FDiv, MinNum, FAdd, FMul].choose(&mut self.rng).expect("op");
            let a = self.expr(ty, d);
            let b = self.expr(ty, d);
            Expr { ty, kind: ExprKind::Float(op, Box::new(a), Box::new(b)) }
        }
    }
}

// ---------------------------------------------------------------------------
// Lowering

struct Lower<'a> {
    vars: &'a [Ty],
    arrays: &'a [Ty],
    helpers: &'a [Helper],
    ret: Ty,
    /// Returns through `%out` (an `sret` pointer) instead.
    sret: bool,
    /// Returns `{ ret, i32 }` (with the return's number) instead.
    pair: bool,
    /// Returns lowered so far (each stores its own number in an sret result).
    rets: u32,
    allocas: String,
    out: String,
    tmps: usize,
    labels: usize,
    /// The block being filled, if the current point is reachable.
    cur: Option<String>,
    /// Labels some emitted branch targets.
    used: HashSet<String>,
    /// (continue target, break target) of the enclosing loops.
    loops: Vec<(String, String)>,
    decls: &'a mut BTreeSet<String>,
    counters: usize,
    /// Buffer parameters (`%b0`, ...).
    bufs: &'a [BufParam],
    /// The function's own name and convention (for self-calls).
    name: &'a str,
    cc: &'a str,
}

fn int_const(ty: Ty, bits: u64) -> String {
    match ty {
        Ty::I32 => (bits as i32).to_string(),
        _ => (bits as i64).to_string(),
    }
}

fn const_text(ty: Ty, bits: u64) -> String {
    if ty.is_int() {
        int_const(ty, bits)
    } else {
        format!("0x{bits:016X}")
    }
}

/// Bytes of `{ ret, i32 }`.
fn sret_size(ret: Ty) -> u32 {
    if ret.bits() == 64 {
        16
    } else {
        8
    }
}

/// Lowers one function with its signature `sig`; intrinsic declarations go
/// to `decls`; `helpers` are the functions its calls name.
fn lower(name: &str, sig: &Sig, f: &Function, decls: &mut BTreeSet<String>, helpers: &[Helper]) -> String {
    let mut l = Lower {
        vars: &f.vars,
        arrays: &f.arrays,
        helpers,
        ret: f.ret,
        sret: sig.sret,
        pair: sig.pair,
        rets: 0,
        allocas: String::new(),
        out: String::new(),
        tmps: 0,
        labels: 0,
        cur: Some("entry".into()),
        used: HashSet::new(),
        loops: Vec::new(),
        decls,
        counters: 0,
        bufs: &f.bufs,
        name,
        cc: sig.cc,
    };
    for (i, t) in f.vars.iter().enumerate() {
        let _ = writeln!(l.allocas, "  %x{i} = alloca {}", t.ir());
    }
    let first_local = f.ptr_param.is_some() as usize;
    for (i, t) in f.arrays.iter().enumerate().skip(first_local) {
        let _ = writeln!(l.allocas, "  %arr{i} = alloca [{ARRAY_LEN} x {}], align 16", t.ir());
    }
    for (i, t) in f.params.iter().enumerate() {
        l.inst(format!("store {} %p{i}, ptr %x{i}", t.ir()));
    }
    l.stmts(&f.body);
    assert!(l.cur.is_none(), "the body ends with a return");
    let mut params: Vec<String> = Vec::new();
    if sig.sret {
        params.push(format!("ptr {}%out", sig.sret_attrs));
    }
    if f.ptr_param.is_some() {
        params.push(format!("ptr {}%arr0", sig.ptr_attrs));
    }
    for (j, _) in f.bufs.iter().enumerate() {
        let attrs = sig.buf_attrs.get(j).map_or("", String::as_str);
        params.push(format!("ptr {attrs}%b{j}"));
    }
    if f.depth_param {
        params.push("i32 %depth".into());
    }
    for (i, t) in f.params.iter().enumerate() {
        let attrs = sig.param_attrs.get(i).map_or("", String::as_str);
        params.push(format!("{} {attrs}%p{i}", t.ir()));
    }
    let pair_ty = format!("{{ {}, i32 }}", f.ret.ir());
    let ret = if sig.sret {
        "void"
    } else if sig.pair {
        pair_ty.as_str()
    } else {
        f.ret.ir()
    };
    let mut ir = format!(
        "define {}{}{}{ret} @\"{name}\"({}){} {{\nentry:\n",
        sig.linkage,
        sig.cc,
        sig.ret_attrs,
        params.join(", "),
        sig.fn_attrs
    );
    ir.push_str(&l.allocas);
    ir.push_str(&l.out);
    ir.push_str("}\n");
    ir
}

impl Lower<'_> {
    fn tmp(&mut self) -> String {
        self.tmps += 1;
        format!("%t{}", self.tmps)
    }

    fn label(&mut self, prefix: &str) -> String {
        self.labels += 1;
        format!("{prefix}{}", self.labels)
    }

    fn inst(&mut self, text: String) {
        debug_assert!(self.cur.is_some(), "emitting into an unreachable point");
        self.out.push_str("  ");
        self.out.push_str(&text);
        self.out.push('\n');
    }

    /// Emits `%t = <text>` and returns `%t`.
    fn val(&mut self, text: String) -> String {
        let t = self.tmp();
        self.inst(format!("{t} = {text}"));
        t
    }

    fn br(&mut self, target: &str) {
        self.inst(format!("br label %{target}"));
        self.used.insert(target.to_string());
        self.cur = None;
    }

    fn cbr(&mut self, c: &str, t: &str, f: &str) {
        self.inst(format!("br i1 {c}, label %{t}, label %{f}"));
        self.used.insert(t.to_string());
        self.used.insert(f.to_string());
        self.cur = None;
    }

    /// Starts block `label` if some branch reaches it; else the point stays unreachable.
    fn begin(&mut self, label: &str) {
        if self.used.contains(label) {
            let _ = writeln!(self.out, "{label}:");
            self.cur = Some(label.to_string());
        } else {
            self.cur = None;
        }
    }

    fn cur(&self) -> String {
        self.cur.clone().expect("reachable point")
    }

    fn declare(&mut self, ret: Ty, name: &str, nargs: usize) {
        let args = vec![ret.ir(); nargs].join(", ");
        self.decls.insert(format!("declare {} @{name}({args})", ret.ir()));
    }

    fn stmts(&mut self, ss: &[Stmt]) {
        for s in ss {
            if self.cur.is_none() {
                return;
            }
            self.stmt(s);
        }
    }

    fn stmt(&mut self, s: &Stmt) {
        match s {
            Stmt::Assign(v, e) => {
                let x = self.expr(e);
                self.inst(format!("store {} {x}, ptr %x{v}", self.vars[*v].ir()));
            }
            Stmt::If(c, then, els) => {
                let c = self.cond(c);
                let (lt, le, lj) = (self.label("if.then"), self.label("if.else"), self.label("if.end"));
                self.cbr(&c, &lt, if els.is_empty() { &lj } else { &le });
                self.begin(&lt);
                self.stmts(then);
                if self.cur.is_some() {
                    self.br(&lj);
                }
                if !els.is_empty() {
                    self.begin(&le);
                    self.stmts(els);
                    if self.cur.is_some() {
                        self.br(&lj);
                    }
                }
                self.begin(&lj);
            }
            Stmt::Loop { kind, short_circuit, cap, cond, body } => self.loop_(*kind, *short_circuit, *cap, cond, body),
            Stmt::Switch { scrutinee, mask, cases } => {
                let ty = scrutinee.ty;
                let s = self.expr(scrutinee);
                let m = self.val(format!("and {} {s}, {mask}", ty.ir()));
                let labels: Vec<String> = cases
                    .iter()
                    .map(|c| if c.values.is_empty() { self.label("sw.default") } else { self.label("sw.case") })
                    .collect();
                let end = self.label("sw.end");
                let default = cases.iter().position(|c| c.values.is_empty()).expect("a default");
                let mut arms = String::new();
                for (c, l) in cases.iter().zip(&labels) {
                    for v in &c.values {
                        let _ = write!(arms, " {} {v}, label %{l}", ty.ir());
                    }
                }
                self.inst(format!("switch {} {m}, label %{} [{arms} ]", ty.ir(), labels[default]));
                for l in &labels {
                    self.used.insert(l.clone());
                }
                self.cur = None;
                for (k, c) in cases.iter().enumerate() {
                    self.begin(&labels[k]);
                    self.stmts(&c.body);
                    if self.cur.is_some() {
                        match labels.get(k + 1) {
                            Some(next) if c.fallthrough => self.br(next),
                            _ => self.br(&end),
                        }
                    }
                }
                self.begin(&end);
            }
            Stmt::Break(up) => {
                let target = self.loops[self.loops.len() - 1 - *up as usize].1.clone();
                self.br(&target);
            }
            Stmt::Continue(up) => {
                let target = self.loops[self.loops.len() - 1 - *up as usize].0.clone();
                self.br(&target);
            }
            Stmt::Store(a, idx, value) => {
                let x = self.expr(value);
                let p = self.element(*a, idx);
                self.inst(format!("store {} {x}, ptr {p}", self.arrays[*a].ir()));
            }
            Stmt::BufStore(b, idx, value) => {
                let x = self.expr(value);
                let elem = self.bufs[*b].elem;
                let x = match elem {
                    Elem::I8 | Elem::I16 => self.val(format!("trunc i32 {x} to {}", elem.ir())),
                    Elem::F32 | Elem::F64 => self.no_nan(value.ty, &x),
                    _ => x,
                };
                let p = self.buf_element(*b, idx);
                self.inst(format!("store {} {x}, ptr {p}, align {}", elem.ir(), elem.bytes()));
            }
            Stmt::Record(tag, value) => {
                let x = self.expr(value);
                let v = match value.ty {
                    Ty::I32 => self.val(format!("sext i32 {x} to i64")),
                    Ty::I64 => x,
                    Ty::F32 => {
                        let q = self.no_nan(Ty::F32, &x);
                        let b = self.val(format!("bitcast float {q} to i32"));
                        self.val(format!("zext i32 {b} to i64"))
                    }
                    Ty::F64 => {
                        let q = self.no_nan(Ty::F64, &x);
                        self.val(format!("bitcast double {q} to i64"))
                    }
                };
                self.decls.insert(format!("declare void @{RECORDER}(i64, i64)"));
                self.inst(format!("call void @{RECORDER}(i64 {tag}, i64 {v})"));
            }
            Stmt::Irreducible { cap, conds, a, b } => {
                self.counters += 1;
                let it = format!("%it{}", self.counters);
                let _ = writeln!(self.allocas, "  {it} = alloca i32");
                self.inst(format!("store i32 0, ptr {it}"));
                let (la, lb, exit) = (self.label("irr.a"), self.label("irr.b"), self.label("irr.exit"));
                let c = self.cond(&conds[0]);
                self.cbr(&c, &la, &lb);
                // Each edge between the two blocks bumps the shared counter.
                for (here, there, body, cond) in [(&la, &lb, a, &conds[1]), (&lb, &la, b, &conds[2])] {
                    self.begin(here);
                    self.stmts(body);
                    if self.cur.is_some() {
                        let more = self.bump(&it, *cap);
                        self.both(&more, cond, false, there, &exit);
                    }
                }
                self.begin(&exit);
            }
            Stmt::Return(e) if self.sret => {
                let x = self.expr(e);
                let t = self.ret.ir();
                let st = format!("{{ {t}, i32 }}");
                let f0 = self.val(format!("getelementptr inbounds {st}, ptr %out, i32 0, i32 0"));
                self.inst(format!("store {t} {x}, ptr {f0}"));
                let f1 = self.val(format!("getelementptr inbounds {st}, ptr %out, i32 0, i32 1"));
                self.rets += 1;
                self.inst(format!("store i32 {}, ptr {f1}", self.rets));
                self.inst("ret void".into());
                self.cur = None;
            }
            Stmt::Return(e) if self.pair => {
                let x = self.expr(e);
                let t = self.ret.ir();
                let st = format!("{{ {t}, i32 }}");
                self.rets += 1;
                let s0 = self.val(format!("insertvalue {st} poison, {t} {x}, 0"));
                let s1 = self.val(format!("insertvalue {st} {s0}, i32 {}, 1", self.rets));
                self.inst(format!("ret {st} {s1}"));
                self.cur = None;
            }
            Stmt::Return(e) => {
                let x = self.expr(e);
                self.inst(format!("ret {} {x}", self.ret.ir()));
                self.cur = None;
            }
        }
    }

    /// The address of `array[index & 7]`.
    fn element(&mut self, a: usize, idx: &Expr) -> String {
        let i = self.expr(idx);
        let t = idx.ty.ir();
        let m = self.val(format!("and {t} {i}, {}", ARRAY_LEN - 1));
        let m64 = if idx.ty == Ty::I64 { m } else { self.val(format!("zext i32 {m} to i64")) };
        let et = self.arrays[a].ir();
        self.val(format!("getelementptr inbounds [{ARRAY_LEN} x {et}], ptr %arr{a}, i64 0, i64 {m64}"))
    }

    /// A scalar parameter's value as `i64` (sign-extended).
    fn arg64(&mut self, arg: usize) -> String {
        match self.vars[arg] {
            Ty::I64 => format!("%p{arg}"),
            _ => self.val(format!("sext i32 %p{arg} to i64")),
        }
    }

    /// An integer expression's value as `i64` (sign-extended).
    fn expr64(&mut self, e: &Expr) -> String {
        let x = self.expr(e);
        match e.ty {
            Ty::I64 => x,
            _ => self.val(format!("sext i32 {x} to i64")),
        }
    }

    /// The address of element `idx` of buffer `b` (always in bounds).
    fn buf_element(&mut self, b: usize, idx: &Index) -> String {
        let len = self.bufs[b].len;
        let et = self.bufs[b].elem.ir();
        let i = match idx {
            Index::Const(c) => c.to_string(),
            Index::Uniform(arg) => {
                let x = self.arg64(*arg);
                self.val(format!("and i64 {x}, {}", len - 1))
            }
            Index::Lane { arg, scale, offset } => {
                let x = self.arg64(*arg);
                let m = if *scale == 1 { x } else { self.val(format!("mul i64 {x}, {scale}")) };
                let a = if *offset == 0 { m } else { self.val(format!("add i64 {m}, {offset}")) };
                self.val(format!("and i64 {a}, {}", len - 1))
            }
            Index::LaneRandom { arg, scale, e } => {
                let r = self.expr64(e);
                let j = self.val(format!("and i64 {r}, {}", scale - 1));
                let x = self.arg64(*arg);
                let m = self.val(format!("mul i64 {x}, {scale}"));
                let a = self.val(format!("add i64 {m}, {j}"));
                self.val(format!("and i64 {a}, {}", len - 1))
            }
            Index::Random(e, urem) => {
                let r = self.expr64(e);
                if *urem {
                    self.val(format!("urem i64 {r}, {len}"))
                } else {
                    self.val(format!("and i64 {r}, {}", len - 1))
                }
            }
        };
        self.val(format!("getelementptr inbounds {et}, ptr %b{b}, i64 {i}"))
    }

    /// Emits `%n = load counter; %n1 = add %n, 1; store; icmp slt %n1, cap`.
    fn bump(&mut self, it: &str, cap: u32) -> String {
        let n = self.val(format!("load i32, ptr {it}"));
        let n1 = self.val(format!("add i32 {n}, 1"));
        self.inst(format!("store i32 {n1}, ptr {it}"));
        self.val(format!("icmp slt i32 {n1}, {cap}"))
    }

    /// Branches to `yes` if `first && cond`, else to `no`.
    fn both(&mut self, first: &str, cond: &Cond, short_circuit: bool, yes: &str, no: &str) {
        if short_circuit {
            let rhs = self.label("loop.cond");
            self.cbr(first, &rhs, no);
            self.begin(&rhs);
            let c = self.cond(cond);
            self.cbr(&c, yes, no);
        } else {
            let c = self.cond(cond);
            let both = self.val(format!("and i1 {first}, {c}"));
            self.cbr(&both, yes, no);
        }
    }

    fn loop_(&mut self, kind: LoopKind, short_circuit: bool, cap: u32, cond: &Cond, body: &[Stmt]) {
        self.counters += 1;
        let it = format!("%it{}", self.counters);
        let _ = writeln!(self.allocas, "  {it} = alloca i32");
        self.inst(format!("store i32 0, ptr {it}"));
        let (head, lbody, latch, exit) =
            (self.label("loop.head"), self.label("loop.body"), self.label("loop.latch"), self.label("loop.exit"));
        match kind {
            LoopKind::For => {
                self.br(&head);
                self.begin(&head);
                let n = self.val(format!("load i32, ptr {it}"));
                let first = self.val(format!("icmp slt i32 {n}, {cap}"));
                self.both(&first, cond, short_circuit, &lbody, &exit);
            }
            LoopKind::While => {
                self.br(&head);
                self.begin(&head);
                let c = self.cond(cond);
                self.cbr(&c, &lbody, &exit);
            }
            LoopKind::DoWhile => self.br(&lbody),
        }
        self.begin(&lbody);
        self.loops.push((latch.clone(), exit.clone()));
        self.stmts(body);
        self.loops.pop();
        if self.cur.is_some() {
            self.br(&latch);
        }
        self.begin(&latch);
        if self.cur.is_some() {
            match kind {
                LoopKind::For => {
                    let n = self.val(format!("load i32, ptr {it}"));
                    let n1 = self.val(format!("add i32 {n}, 1"));
                    self.inst(format!("store i32 {n1}, ptr {it}"));
                    self.br(&head);
                }
                LoopKind::While => {
                    let more = self.bump(&it, cap);
                    self.cbr(&more, &head, &exit);
                }
                LoopKind::DoWhile => {
                    let more = self.bump(&it, cap);
                    self.both(&more, cond, short_circuit, &lbody, &exit);
                }
            }
        }
        self.begin(&exit);
    }

    fn cond(&mut self, c: &Cond) -> String {
        match c {
            Cond::ICmp(p, a, b) => {
                let (x, y) = (self.expr(a), self.expr(b));
                self.val(format!("icmp {p} {} {x}, {y}", a.ty.ir()))
            }
            Cond::FCmp(p, a, b) => {
                let (x, y) = (self.expr(a), self.expr(b));
                self.val(format!("fcmp {p} {} {x}, {y}", a.ty.ir()))
            }
            Cond::Not(a) => {
                let x = self.cond(a);
                self.val(format!("xor i1 {x}, true"))
            }
            Cond::And(a, b, false) | Cond::Or(a, b, false) => {
                let op = if matches!(c, Cond::And(..)) { "and" } else { "or" };
                let x = self.cond(a);
                let y = self.cond(b);
                self.val(format!("{op} i1 {x}, {y}"))
            }
            Cond::And(a, b, true) | Cond::Or(a, b, true) => {
                let is_and = matches!(c, Cond::And(..));
                let x = self.cond(a);
                let from_a = self.cur();
                let (rhs, end) = if is_and {
                    (self.label("land.rhs"), self.label("land.end"))
                } else {
                    (self.label("lor.rhs"), self.label("lor.end"))
                };
                if is_and {
                    self.cbr(&x, &rhs, &end);
                } else {
                    self.cbr(&x, &end, &rhs);
                }
                self.begin(&rhs);
                let y = self.cond(b);
                let from_b = self.cur();
                self.br(&end);
                self.begin(&end);
                let short = if is_and { "false" } else { "true" };
                self.val(format!("phi i1 [ {short}, %{from_a} ], [ {y}, %{from_b} ]"))
            }
        }
    }

    /// Lowers an expression; returns the operand text (a `%t` or a constant).
    fn expr(&mut self, e: &Expr) -> String {
        let ty = e.ty;
        let t = ty.ir();
        match &e.kind {
            ExprKind::Var(v) => self.val(format!("load {t}, ptr %x{v}")),
            ExprKind::Const(bits) => const_text(ty, *bits),
            ExprKind::Int(op, a, b) => {
                let (x, y) = (self.expr(a), self.expr(b));
                let name = match op {
                    IntOp::Add => "add",
                    IntOp::Sub => "sub",
                    IntOp::Mul => "mul",
                    IntOp::And => "and",
                    IntOp::Or => "or",
                    IntOp::Xor => "xor",
                    IntOp::Shl => "shl",
                    IntOp::LShr => "lshr",
                    IntOp::AShr => "ashr",
                    IntOp::Smax => {
                        let f = format!("llvm.smax.{}", ty.suffix());
                        self.declare(ty, &f, 2);
                        return self.val(format!("call {t} @{f}({t} {x}, {t} {y})"));
                    }
                };
                if matches!(op, IntOp::Shl | IntOp::LShr | IntOp::AShr) {
                    let amount = self.val(format!("and {t} {y}, {}", ty.bits() - 1));
                    self.val(format!("{name} {t} {x}, {amount}"))
                } else {
                    self.val(format!("{name} {t} {x}, {y}"))
                }
            }
            ExprKind::Div(op, guard, a, b) => {
                let (x, y) = (self.expr(a), self.expr(b));
                let signed = matches!(op, DivOp::SDiv | DivOp::SRem);
                let zero = self.val(format!("icmp eq {t} {y}, 0"));
                let bad = if signed {
                    let min = if ty == Ty::I32 { i32::MIN as i64 } else { i64::MIN };
                    let is_min = self.val(format!("icmp eq {t} {x}, {min}"));
                    let is_m1 = self.val(format!("icmp eq {t} {y}, -1"));
                    let ovf = self.val(format!("and i1 {is_min}, {is_m1}"));
                    self.val(format!("or i1 {zero}, {ovf}"))
                } else {
                    zero
                };
                let name = match op {
                    DivOp::SDiv => "sdiv",
                    DivOp::UDiv => "udiv",
                    DivOp::SRem => "srem",
                    DivOp::URem => "urem",
                };
                match guard {
                    Guard::Select => {
                        let d = self.val(format!("select i1 {bad}, {t} 1, {t} {y}"));
                        self.val(format!("{name} {t} {x}, {d}"))
                    }
                    Guard::Branch => {
                        // Skipped division: what x / 1 and x % 1 would give.
                        let fallback = if matches!(op, DivOp::SDiv | DivOp::UDiv) { x.clone() } else { "0".into() };
                        let from = self.cur();
                        let (ok, end) = (self.label("div.ok"), self.label("div.end"));
                        self.cbr(&bad, &end, &ok);
                        self.begin(&ok);
                        let q = self.val(format!("{name} {t} {x}, {y}"));
                        self.br(&end);
                        self.begin(&end);
                        self.val(format!("phi {t} [ {fallback}, %{from} ], [ {q}, %{ok} ]"))
                    }
                }
            }
            ExprKind::Float(op, a, b) => {
                let (x, y) = (self.expr(a), self.expr(b));
                let name = match op {
                    FloatOp::FAdd => "fadd",
                    FloatOp::FSub => "fsub",
                    FloatOp::FMul => "fmul",
                    FloatOp::FDiv => "fdiv",
                    FloatOp::MinNum => {
                        let f = format!("llvm.minnum.{}", ty.suffix());
                        self.declare(ty, &f, 2);
                        let qx = self.quiet(ty, &x);
                        let qy = self.quiet(ty, &y);
                        let m = self.val(format!("call {t} @{f}({t} {qx}, {t} {qy})"));
                        return self.val(format!("fadd {t} {m}, 0.0"));
                    }
                };
                self.val(format!("{name} {t} {x}, {y}"))
            }
            ExprKind::FloatUn(op, a) => {
                let x = self.expr(a);
                match op {
                    FloatUn::FNeg => self.val(format!("fneg {t} {x}")),
                    FloatUn::Fabs | FloatUn::Sqrt => {
                        let base = if *op == FloatUn::Fabs { "llvm.fabs" } else { "llvm.sqrt" };
                        let f = format!("{base}.{}", ty.suffix());
                        self.declare(ty, &f, 1);
                        self.val(format!("call {t} @{f}({t} {x})"))
                    }
                }
            }
            ExprKind::Call(hi, args, array, tail, depth, buffer) => {
                let h = &self.helpers[*hi];
                let mut ops = Vec::new();
                for (a, attrs) in args.iter().zip(&h.call_arg_attrs) {
                    let x = self.expr(a);
                    ops.push(format!("{} {attrs}{x}", a.ty.ir()));
                }
                if let Some(d) = depth {
                    let x = self.expr(d);
                    ops.insert(0, format!("i32 {x}"));
                }
                if let Some(j) = buffer {
                    ops.insert(0, format!("ptr %b{j}"));
                }
                let h = &self.helpers[*hi];
                let (cc, name) = (h.sig.cc, h.name.clone());
                if let Some(a) = array {
                    ops.insert(0, format!("ptr {}%arr{a}", h.call_ptr_attrs));
                }
                let tail = if *tail { "tail " } else { "" };
                if h.sig.sret || h.sig.pair {
                    let st = format!("{{ {t}, i32 }}");
                    let (v0, v1) = if h.sig.sret {
                        self.counters += 1;
                        let out = format!("%sret{}", self.counters);
                        let _ = writeln!(self.allocas, "  {out} = alloca {st}, align 8");
                        ops.insert(0, format!("ptr sret({st}) align 8 {out}"));
                        self.inst(format!("call {cc}void @\"{name}\"({})", ops.join(", ")));
                        let f0 = self.val(format!("getelementptr inbounds {st}, ptr {out}, i32 0, i32 0"));
                        let v0 = self.val(format!("load {t}, ptr {f0}"));
                        let f1 = self.val(format!("getelementptr inbounds {st}, ptr {out}, i32 0, i32 1"));
                        (v0, self.val(format!("load i32, ptr {f1}")))
                    } else {
                        let r = self.val(format!("{tail}call {cc}{st} @\"{name}\"({})", ops.join(", ")));
                        (self.val(format!("extractvalue {st} {r}, 0")), self.val(format!("extractvalue {st} {r}, 1")))
                    };
                    // Which return the callee took counts too.
                    match ty {
                        Ty::I32 => self.val(format!("add i32 {v0}, {v1}")),
                        Ty::I64 => {
                            let w = self.val(format!("sext i32 {v1} to i64"));
                            self.val(format!("add i64 {v0}, {w}"))
                        }
                        _ => {
                            let w = self.val(format!("sitofp i32 {v1} to {t}"));
                            self.val(format!("fadd {t} {v0}, {w}"))
                        }
                    }
                } else {
                    let ra = h.call_ret_attrs.clone();
                    self.val(format!("{tail}call {cc}{ra}{t} @\"{name}\"({})", ops.join(", ")))
                }
            }
            ExprKind::Load(a, idx) => {
                let p = self.element(*a, idx);
                self.val(format!("load {t}, ptr {p}"))
            }
            ExprKind::Arg(i) => format!("%p{i}"),
            ExprKind::BufLoad(b, idx, signed) => {
                let p = self.buf_element(*b, idx);
                let elem = self.bufs[*b].elem;
                let v = self.val(format!("load {}, ptr {p}, align {}", elem.ir(), elem.bytes()));
                match elem {
                    Elem::I8 | Elem::I16 => {
                        let ext = if *signed { "sext" } else { "zext" };
                        self.val(format!("{ext} {} {v} to i32", elem.ir()))
                    }
                    _ => v,
                }
            }
            ExprKind::SelfCall(args, fallback, tail) => {
                let ops: Vec<String> = args
                    .iter()
                    .map(|a| {
                        let x = self.expr(a);
                        format!("{} {x}", a.ty.ir())
                    })
                    .collect();
                let from = self.cur();
                let (rec, end) = (self.label("rec.call"), self.label("rec.end"));
                let more = self.val("icmp sgt i32 %depth, 0".into());
                self.cbr(&more, &rec, &end);
                self.begin(&rec);
                let d = self.val("sub i32 %depth, 1".into());
                let tail = if *tail { "tail " } else { "" };
                let mut all = vec![format!("i32 {d}")];
                all.extend(ops);
                let r = self.val(format!("{tail}call {}{t} @\"{}\"({})", self.cc, self.name, all.join(", ")));
                self.br(&end);
                self.begin(&end);
                let fb = const_text(ty, *fallback);
                self.val(format!("phi {t} [ {fb}, %{from} ], [ {r}, %{rec} ]"))
            }
            ExprKind::Select(c, a, b) => {
                let c = self.cond(c);
                let (x, y) = (self.expr(a), self.expr(b));
                self.val(format!("select i1 {c}, {t} {x}, {t} {y}"))
            }
            ExprKind::Conv(signed, a) => {
                let x = self.expr(a);
                let from = a.ty;
                let op = match (from.is_int(), ty.is_int()) {
                    (true, true) if from.bits() > ty.bits() => "trunc",
                    (true, true) if *signed => "sext",
                    (true, true) => "zext",
                    (true, false) if *signed => "sitofp",
                    (true, false) => "uitofp",
                    (false, false) if from.bits() > ty.bits() => "fptrunc",
                    (false, false) => "fpext",
                    (false, true) => unreachable!("float to int goes through FpToSi"),
                };
                self.val(format!("{op} {} {x} to {t}", from.ir()))
            }
            ExprKind::FpToSi(guard, fallback, a) => {
                let x = self.expr(a);
                let ft = a.ty.ir();
                // -2^(bits-1) and 2^(bits-1) are exact in float and double.
                let lo = const_text(Ty::F64, (-(2f64.powi(ty.bits() as i32 - 1))).to_bits());
                let hi = const_text(Ty::F64, 2f64.powi(ty.bits() as i32 - 1).to_bits());
                let ge = self.val(format!("fcmp oge {ft} {x}, {lo}"));
                let lt = self.val(format!("fcmp olt {ft} {x}, {hi}"));
                let inr = self.val(format!("and i1 {ge}, {lt}"));
                let fb = int_const(ty, *fallback);
                match guard {
                    Guard::Select => {
                        let c = self.val(format!("fptosi {ft} {x} to {t}"));
                        self.val(format!("select i1 {inr}, {t} {c}, {t} {fb}"))
                    }
                    Guard::Branch => {
                        let from = self.cur();
                        let (ok, end) = (self.label("cvt.ok"), self.label("cvt.end"));
                        self.cbr(&inr, &ok, &end);
                        self.begin(&ok);
                        let c = self.val(format!("fptosi {ft} {x} to {t}"));
                        self.br(&end);
                        self.begin(&end);
                        self.val(format!("phi {t} [ {fb}, %{from} ], [ {c}, %{ok} ]"))
                    }
                }
            }
        }
    }

    /// Replaces any NaN by -3.25, before a float's bits become observable
    /// (stored to a buffer, recorded). Not by a canonical NaN: LLVM treats
    /// NaN bit patterns as unspecified, and the x86 backend folds
    /// `select (x < 0), NaN, sqrt(x)` into `sqrt(x)`, whose NaN is
    /// `0xFFF8...`.
    fn no_nan(&mut self, ty: Ty, x: &str) -> String {
        let t = ty.ir();
        let uno = self.val(format!("fcmp uno {t} {x}, 0.0"));
        self.val(format!("select i1 {uno}, {t} -3.25, {t} {x}"))
    }

    /// Replaces any NaN by the canonical quiet NaN.
    fn quiet(&mut self, ty: Ty, x: &str) -> String {
        let t = ty.ir();
        let uno = self.val(format!("fcmp uno {t} {x}, 0.0"));
        self.val(format!("select i1 {uno}, {t} 0x7FF8000000000000, {t} {x}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use inkwell::context::Context;

    fn parse_and_verify(p: &Program) -> Result<(), String> {
        let ctx = Context::create();
        let m = crate::fuzz::parse_ir(&ctx, &p.ir, &p.name)?;
        m.verify().map_err(|e| e.to_string())?;
        let f = m.get_function(&p.name).ok_or("function missing")?;
        if f.count_params() as usize != p.abi.len() {
            return Err("parameter count differs".into());
        }
        Ok(())
    }

    #[test]
    fn five_hundred_programs_verify() {
        let cfg = GenConfig::default();
        for seed in 0..500u64 {
            let p = generate(seed, &cfg);
            if let Err(e) = parse_and_verify(&p) {
                panic!("seed {seed}: {e}\n{}", p.ir);
            }
        }
    }

    #[test]
    fn straight_line_programs_verify_and_have_one_block() {
        let cfg = GenConfig::straight_line();
        for seed in 0..200u64 {
            let p = generate(seed, &cfg);
            parse_and_verify(&p).unwrap_or_else(|e| panic!("seed {seed}: {e}\n{}", p.ir));
            assert!(!p.ir.contains("br "), "seed {seed} branches:\n{}", p.ir);
        }
    }

    #[test]
    fn programs_with_arrays_verify() {
        let cfg = GenConfig { p_array: 1.0, p_helper: 1.0, ..GenConfig::default() };
        for seed in 0..300u64 {
            let p = generate(seed, &cfg);
            parse_and_verify(&p).unwrap_or_else(|e| panic!("seed {seed}: {e}\n{}", p.ir));
            assert!(p.ir.contains("alloca [8 x") && p.ir.contains(".helper"), "seed {seed}:\n{}", p.ir);
        }
    }

    /// Every program feature on, top-level flags included.
    fn callee_heavy() -> GenConfig {
        GenConfig {
            p_helper: 1.0,
            p_ptr_helper: 0.5,
            p_sret: 0.3,
            p_attrs: 0.8,
            p_top_attrs: 1.0,
            top_level_cc: true,
            top_level_internal: true,
            ..GenConfig::default()
        }
    }

    /// `define` lines: function name -> calling convention ("" for C).
    fn conventions(ir: &str) -> std::collections::HashMap<String, String> {
        let mut m = std::collections::HashMap::new();
        for line in ir.lines().filter(|l| l.starts_with("define ")) {
            let head = &line[..line.find(" @\"").expect("a quoted name")];
            let cc = head.split(' ').find(|w| w.ends_with("cc")).unwrap_or("").to_string();
            let name = line[head.len() + 3..].split('"').next().expect("name").to_string();
            m.insert(name, if cc == "ccc" { String::new() } else { cc });
        }
        m
    }

    #[test]
    fn programs_with_callees_verify() {
        let cfg = callee_heavy();
        let (mut internal, mut non_c) = (0, 0);
        for seed in 0..300u64 {
            let p = generate(seed, &cfg);
            parse_and_verify(&p).unwrap_or_else(|e| panic!("seed {seed}: {e}\n{}", p.ir));
            let linkage = if p.internal { "internal " } else { "" };
            let cc = if p.cc.is_empty() { String::new() } else { format!("{} ", p.cc.trim()) };
            assert!(p.ir.contains(&format!("define {linkage}{cc}")), "seed {seed}:\n{}", p.ir);
            internal += p.internal as u32;
            non_c += !p.cc.is_empty() as u32;
        }
        // Half internal, three quarters with a non-C convention.
        assert!((100..200).contains(&internal), "{internal} of 300 programs are internal");
        assert!((180..270).contains(&non_c), "{non_c} of 300 programs have a non-C convention");
    }

    #[test]
    fn call_sites_carry_the_callee_convention() {
        let cfg = callee_heavy();
        let mut calls = 0;
        for seed in 0..300u64 {
            let p = generate(seed, &cfg);
            let ccs = conventions(&p.ir);
            for line in p.ir.lines().filter(|l| l.contains("call ") && l.contains("@\"")) {
                let at = line.find("@\"").expect("callee");
                let callee = line[at + 2..].split('"').next().expect("name");
                let before = &line[..at];
                let cc = before.split(' ').find(|w| w.ends_with("cc") && *w != "ccc").unwrap_or("");
                assert_eq!(cc, ccs[callee], "seed {seed}: `{line}`");
                // `tail` promises the callee does not touch the caller's stack.
                if line.contains("tail call") {
                    assert!(!line[at..].contains("ptr "), "seed {seed}: `{line}`");
                }
                calls += 1;
            }
        }
        assert!(calls > 300, "only {calls} helper calls");
    }

    #[test]
    fn programs_without_attributes_are_the_same_programs() {
        // Buffers keep `dereferenceable` (the oracle sizes them by it);
        // the fuzzer's attribute check covers their other attributes.
        let cfg = GenConfig { p_buffers: 0.0, p_buf_helper: 0.0, ..callee_heavy() };
        let plain_cfg = GenConfig { emit_attrs: false, ..cfg.clone() };
        for seed in 0..100u64 {
            let (p, q) = (generate(seed, &cfg), generate(seed, &plain_cfg));
            parse_and_verify(&q).unwrap_or_else(|e| panic!("seed {seed}: {e}\n{}", q.ir));
            // The same instructions, apart from the attributes of calls.
            let body = |ir: &str| -> Vec<String> {
                ir.lines().filter(|l| l.starts_with("  ") && !l.contains("call ")).map(String::from).collect()
            };
            assert_eq!(body(&p.ir), body(&q.ir), "seed {seed}");
            for a in ["memory(", "noundef", "nounwind", "range(", "nonnull", "readonly", "dereferenceable("] {
                assert!(!q.ir.contains(a), "seed {seed}: `{a}` in\n{}", q.ir);
            }
        }
    }

    #[test]
    fn generation_is_deterministic() {
        let cfg = GenConfig::default();
        for seed in [0u64, 1, 77, u64::MAX] {
            assert_eq!(generate(seed, &cfg), generate(seed, &cfg));
        }
        assert_ne!(generate(1, &cfg).ir, generate(2, &cfg).ir);
    }

    #[test]
    fn default_config_covers_the_language() {
        let cfg = GenConfig::default();
        let all: String = (0..500u64).map(|s| generate(s, &cfg).ir).collect();
        for needle in [
            "switch ",
            "loop.head",
            "loop.latch",
            "land.rhs",
            "lor.rhs",
            "div.ok",
            "cvt.ok",
            "fcmp uno",
            "fcmp ueq",
            "fcmp one",
            "sdiv ",
            "urem ",
            "fptosi ",
            "sitofp ",
            "uitofp ",
            "fpext ",
            "fptrunc ",
            "@llvm.minnum.f32",
            "@llvm.sqrt.f64",
            "@llvm.fabs.f64",
            "@llvm.smax.i64",
            "select i1",
            "ashr ",
            "ret float",
            "ret i64",
            "irr.a",
            "define internal",
            "call i32 @\"fuzz_",
            "fastcc ",
            "coldcc ",
            "tailcc ",
            "preserve_mostcc ",
            "ccc ",
            "tail call ",
            " memory(none)",
            " speculatable",
            " willreturn",
            "noundef ",
            "range(i",
            "byval([8 x ",
            "sret({ ",
            "writeonly ",
            "readonly ",
            "memory(argmem: read)",
            "memory(argmem: readwrite)",
            "dereferenceable(",
            "noalias ",
            "nonnull ",
        ] {
            assert!(all.contains(needle), "no program of 500 contains `{needle}`");
        }
        // Helpers calling helpers: a call inside a helper's body.
        let nested = (0..500u64)
            .filter(|s| {
                let p = generate(*s, &cfg);
                let top = p.ir.find(&format!("@\"{}\"(", p.name)).expect("top-level function");
                p.ir[..top].lines().any(|l| l.contains("call ") && l.contains(".helper"))
            })
            .count();
        assert!(nested > 5, "only {nested} programs with helpers calling helpers");
        // Early returns inside control flow: more than one `ret` in a function.
        let multi_ret = (0..500u64).filter(|s| generate(*s, &cfg).ir.matches("\n  ret ").count() > 1).count();
        assert!(multi_ret > 25, "only {multi_ret} programs with early returns");
        // Labelled breaks: some `break` leaves an outer loop (its target is
        // an exit label not following its own loop's latch). Checked
        // structurally on the AST instead of the text.
        let outer = (0..1500u64)
            .filter(|s| {
                let mut g = Gen::new(SmallRng::seed_from_u64(*s), &cfg, Vec::new(), Vec::new());
                let f = g.program();
                has_outer_exit(&f.body)
            })
            .count();
        assert!(outer > 5, "only {outer} programs leave an outer loop");
    }

    /// Names of the memory features in statements `ss` (`nested`: under
    /// control flow): `masked store` (a buffer store under an `if`, loop or
    /// `switch`), `store <shape>` and `load <shape>` per index shape.
    fn memory_features(ss: &[Stmt], nested: bool, out: &mut BTreeSet<String>) {
        for s in ss {
            match s {
                Stmt::Assign(_, e) | Stmt::Return(e) | Stmt::Record(_, e) => expr_features(e, out),
                Stmt::Store(_, i, e) => {
                    expr_features(i, out);
                    expr_features(e, out);
                }
                Stmt::BufStore(_, idx, e) => {
                    if nested {
                        out.insert("masked store".into());
                    }
                    out.insert(format!("store {}", shape(idx)));
                    expr_features(e, out);
                }
                Stmt::If(_, a, b) | Stmt::Irreducible { a, b, .. } => {
                    memory_features(a, true, out);
                    memory_features(b, true, out);
                }
                Stmt::Loop { body, .. } => memory_features(body, true, out),
                Stmt::Switch { cases, .. } => cases.iter().for_each(|c| memory_features(&c.body, true, out)),
                Stmt::Break(_) | Stmt::Continue(_) => {}
            }
        }
    }

    fn expr_features(e: &Expr, out: &mut BTreeSet<String>) {
        match &e.kind {
            ExprKind::BufLoad(_, idx, _) => {
                out.insert(format!("load {}", shape(idx)));
            }
            ExprKind::Load(_, i) => {
                out.insert("array load".into());
                expr_features(i, out);
            }
            ExprKind::Int(_, a, b) | ExprKind::Div(_, _, a, b) | ExprKind::Float(_, a, b) => {
                expr_features(a, out);
                expr_features(b, out);
            }
            ExprKind::FloatUn(_, a) | ExprKind::Conv(_, a) | ExprKind::FpToSi(_, _, a) => expr_features(a, out),
            ExprKind::Select(_, a, b) => {
                expr_features(a, out);
                expr_features(b, out);
            }
            ExprKind::Call(_, args, ..) | ExprKind::SelfCall(args, ..) => {
                args.iter().for_each(|a| expr_features(a, out))
            }
            ExprKind::Var(_) | ExprKind::Const(_) | ExprKind::Arg(_) => {}
        }
    }

    fn shape(idx: &Index) -> &'static str {
        match idx {
            Index::Const(_) => "const",
            Index::Uniform(_) => "uniform",
            Index::Lane { scale: 1, .. } => "linear",
            Index::Lane { .. } => "strided",
            Index::LaneRandom { .. } => "window random",
            Index::Random(_, false) => "random and",
            Index::Random(_, true) => "random urem",
        }
    }

    /// Each memory feature, index shape and buffer kind appears in a set of
    /// programs of the default configuration.
    #[test]
    fn default_programs_have_every_memory_feature() {
        let cfg = GenConfig::default();
        let mut features = BTreeSet::new();
        let mut kinds = BTreeSet::new();
        let mut elems = HashSet::new();
        for seed in 0..400u64 {
            let mut g = Gen::new(SmallRng::seed_from_u64(seed), &cfg, Vec::new(), Vec::new());
            let f = g.program();
            memory_features(&f.body, false, &mut features);
            for b in &f.bufs {
                let k = match (b.kind, b.role) {
                    (ParamKind::Vector, BufRole::Read) => "varying read",
                    (ParamKind::Uniform, BufRole::Read) => "uniform read",
                    (ParamKind::Linear { step }, BufRole::Read) if step == b.elem.bytes() as i64 => "linear read",
                    (ParamKind::Linear { .. }, BufRole::Read) => "strided read",
                    (ParamKind::Vector, BufRole::Own) => "own",
                    (ParamKind::Uniform, BufRole::Window { by: Some(_), .. }) => "uniform window",
                    (ParamKind::Linear { .. }, BufRole::Window { by: None, .. }) => "linear window",
                    other => panic!("seed {seed}: unexpected buffer {other:?}"),
                };
                kinds.insert(k);
                elems.insert(b.elem);
            }
        }
        for want in [
            "masked store",
            "array load",
            "store const",
            "store uniform",
            "store linear",
            "store strided",
            "store window random",
            "store random and",
            "store random urem",
            "load const",
            "load uniform",
            "load linear",
            "load strided",
            "load window random",
            "load random and",
            "load random urem",
        ] {
            assert!(features.contains(want), "no `{want}` in 400 programs: {features:?}");
        }
        for want in
            ["varying read", "uniform read", "linear read", "strided read", "own", "uniform window", "linear window"]
        {
            assert!(kinds.contains(want), "no `{want}` buffer in 400 programs: {kinds:?}");
        }
        assert_eq!(elems.len(), Elem::ALL.len(), "element types seen: {elems:?}");
    }

    /// Local arrays, recursion, the recorder (in the top-level function and
    /// in helpers), uniform and linear parameters all appear in programs of
    /// the default configuration, and every program verifies.
    #[test]
    fn default_programs_have_arrays_recursion_records_and_parameter_kinds() {
        let cfg = GenConfig::default();
        let (mut arrays, mut recursive, mut records, mut helper_records) = (0, 0, 0, 0);
        let (mut uniform, mut linear, mut buffers, mut buf_helpers) = (0, 0, 0, 0);
        for seed in 0..400u64 {
            let p = generate(seed, &cfg);
            parse_and_verify(&p).unwrap_or_else(|e| panic!("seed {seed}: {e}\n{}", p.ir));
            arrays += p.ir.contains("alloca [8 x") as u32;
            recursive += p.ir.contains("rec.call") as u32;
            let call = format!("call void @{RECORDER}(");
            records += p.ir.contains(&call) as u32;
            let top = p.ir.find(&format!("@\"{}\"(", p.name)).expect("top-level function");
            helper_records += p.ir[..top].contains(&call) as u32;
            buf_helpers += p.ir[..top].lines().any(|l| l.starts_with("define ") && l.contains("%b0")) as u32;
            uniform += p.abi.iter().any(|(t, k)| t != "ptr" && *k == ParamKind::Uniform) as u32;
            linear += p.abi.iter().any(|(t, k)| t != "ptr" && matches!(k, ParamKind::Linear { .. })) as u32;
            buffers += !p.buffers.is_empty() as u32;
        }
        for (what, n, min) in [
            ("local arrays", arrays, 20),
            ("recursive helpers", recursive, 10),
            ("recorder calls", records, 40),
            ("recorder calls in helpers", helper_records, 5),
            ("uniform parameters", uniform, 40),
            ("linear parameters", linear, 40),
            ("buffers", buffers, 100),
            ("helpers reading a buffer", buf_helpers, 10),
        ] {
            assert!(n >= min, "only {n} of 400 programs have {what}");
        }
    }

    /// A recursive helper's self-call is guarded by `depth > 0` and passes
    /// `depth - 1`; its callers pass `x & 3`.
    #[test]
    fn recursion_is_bounded_by_the_depth_parameter() {
        let cfg = GenConfig { p_helper: 1.0, p_recursive: 1.0, ..GenConfig::default() };
        let mut seen = 0;
        for seed in 0..100u64 {
            let p = generate(seed, &cfg);
            for f in p.ir.split("\ndefine ").filter(|f| f.contains("rec.call")) {
                seen += 1;
                assert!(f.contains("i32 %depth"), "seed {seed}:\n{f}");
                assert!(f.contains("icmp sgt i32 %depth, 0") && f.contains("sub i32 %depth, 1"), "seed {seed}:\n{f}");
            }
        }
        assert!(seen > 20, "only {seen} recursive helpers");
    }

    fn has_outer_exit(ss: &[Stmt]) -> bool {
        ss.iter().any(|s| match s {
            Stmt::Break(up) | Stmt::Continue(up) => *up > 0,
            Stmt::If(_, a, b) | Stmt::Irreducible { a, b, .. } => has_outer_exit(a) || has_outer_exit(b),
            Stmt::Loop { body, .. } => has_outer_exit(body),
            Stmt::Switch { cases, .. } => cases.iter().any(|c| has_outer_exit(&c.body)),
            _ => false,
        })
    }
}
