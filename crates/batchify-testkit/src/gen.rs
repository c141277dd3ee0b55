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
//! # Termination
//! Every loop owns a private `i32` counter that no other statement can
//! name. It is set to 0 in the loop's preheader, and the only edges back to
//! the loop's header come from its latch, which increments the counter; every
//! loop shape tests `counter < K` with a constant `K <= max_trip` on each
//! path to the next iteration (`continue` branches to the latch). So each
//! loop runs at most `K` iterations per entry, and a program runs at most
//! `max_trip ^ max_depth` iterations of its innermost body.
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
    /// Probability that the program has a helper function (itself a small
    /// generated function, `internal`) that expressions call.
    pub p_helper: f64,
    /// Probability that the program has private arrays (`alloca [8 x T]`)
    /// read and written at computed, masked indices.
    pub p_array: f64,
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
            p_helper: 0.25,
            // Off until batchify handles stack memory mem2reg cannot remove
            // (it builds a per-lane fallback for it today).
            p_array: 0.0,
        }
    }
}

impl GenConfig {
    /// Straight-line programs only: no statement nesting, no early returns,
    /// and every guard lowered as a `select`, so the function has a single
    /// basic block after mem2reg (what batchify handled before divergent
    /// control flow). Helper functions are straight-line too.
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
            ..GenConfig::default()
        }
    }
}

/// One generated program.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Program {
    /// The module's textual IR (one external function plus intrinsic declarations).
    pub ir: String,
    /// The function's name.
    pub name: String,
    /// Parameter types, in order.
    pub params: Vec<Ty>,
    /// Return type.
    pub ret: Ty,
}

/// Generates the program of `seed`.
pub fn generate(seed: u64, cfg: &GenConfig) -> Program {
    let name = format!("fuzz_{seed}");
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut decls = BTreeSet::new();
    let mut ir = format!("; batchify fuzz program, seed {seed}\n");
    // The helper: a smaller program of its own, without helpers or arrays.
    let helper = if cfg.p_helper > 0.0 && rng.gen_bool(cfg.p_helper.min(1.0)) {
        let sub = GenConfig {
            max_depth: cfg.max_depth.min(1),
            max_total_stmts: cfg.max_total_stmts.min(6),
            int_params: 0..=2,
            float_params: 0..=2,
            locals: 0..=1,
            p_irreducible: 0.0,
            p_helper: 0.0,
            p_array: 0.0,
            ..cfg.clone()
        };
        let mut g = Gen::new(SmallRng::seed_from_u64(rng.gen()), &sub, None);
        let f = g.program();
        let h = Helper { name: format!("{name}.helper"), params: f.params.clone(), ret: f.ret };
        ir.push_str(&lower(&h.name, "internal ", &f, &mut decls));
        ir.push('\n');
        Some(h)
    } else {
        None
    };
    let callee = helper.as_ref().map(|h| (h.name.clone(), h.ret));
    let mut g = Gen::new(rng, cfg, helper);
    let f = g.program();
    ir.push_str(&lower_with(&name, "", &f, &mut decls, callee.as_ref().map(|(n, t)| (n.as_str(), *t))));
    for d in &decls {
        let _ = writeln!(ir, "\n{d}");
    }
    Program { ir, name, params: f.params, ret: f.ret }
}

/// A generated function's AST.
struct Function {
    params: Vec<Ty>,
    ret: Ty,
    /// Types of all variables (parameters first).
    vars: Vec<Ty>,
    /// Element types of the private arrays.
    arrays: Vec<Ty>,
    body: Vec<Stmt>,
}

/// The signature of the helper function.
#[derive(Debug, Clone)]
struct Helper {
    name: String,
    params: Vec<Ty>,
    ret: Ty,
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
    /// A call of the helper function.
    Call(Vec<Expr>),
    /// `array[index & 7]`.
    Load(usize, Box<Expr>),
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
    /// Element types of the private arrays.
    arrays: Vec<Ty>,
    /// The helper function expressions may call.
    helper: Option<Helper>,
}

fn pick_range(rng: &mut SmallRng, r: &RangeInclusive<u32>) -> u32 {
    if r.is_empty() {
        0
    } else {
        rng.gen_range(r.clone())
    }
}

impl<'a> Gen<'a> {
    fn new(rng: SmallRng, cfg: &'a GenConfig, helper: Option<Helper>) -> Gen<'a> {
        Gen { rng, cfg, vars: Vec::new(), avail: 0, budget: 0, loops: 0, ret: Ty::I32, arrays: Vec::new(), helper }
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
        let ret = *Ty::ALL.choose(&mut self.rng).expect("nonempty");
        self.ret = ret;
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
        if self.chance(self.cfg.p_array) {
            for _ in 0..self.rng.gen_range(1..=2) {
                let ty = *Ty::ALL.choose(&mut self.rng).expect("nonempty");
                // Every element is written before anything reads the array:
                // the initialisers only read earlier, complete arrays.
                let a = self.arrays.len();
                for k in 0..ARRAY_LEN {
                    let e = self.expr(ty, 1);
                    body.push(Stmt::Store(a, Expr { ty: Ty::I64, kind: ExprKind::Const(k) }, e));
                }
                self.arrays.push(ty);
            }
        }
        self.budget = self.cfg.max_total_stmts;
        let n = self.rng.gen_range(1..=self.cfg.max_stmts.max(1));
        body.extend(self.block(n, 0));
        let e = self.expr(ret, self.cfg.max_expr_depth);
        body.push(Stmt::Return(e));
        Function { params, ret, vars: self.vars.clone(), arrays: self.arrays.clone(), body }
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
        if !self.arrays.is_empty() && self.rng.gen_bool(0.3) {
            let a = self.rng.gen_range(0..self.arrays.len());
            let ity = if self.rng.gen_bool(0.5) { Ty::I32 } else { Ty::I64 };
            let idx = self.expr(ity, 1);
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
            let ret = self.ret;
            let e = self.expr(ret, 2);
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
            let cond = self.cond(2);
            self.loops += 1;
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

    fn expr(&mut self, ty: Ty, depth: u32) -> Expr {
        if depth == 0 || self.rng.gen_bool(0.25) {
            return self.leaf(ty);
        }
        let d = depth - 1;
        if let Some(h) = self.helper.clone() {
            if h.ret == ty && self.rng.gen_bool(0.15) {
                let args = h.params.iter().map(|t| self.expr(*t, d)).collect();
                return Expr { ty, kind: ExprKind::Call(args) };
            }
        }
        if let Some(a) = (0..self.arrays.len()).find(|a| self.arrays[*a] == ty) {
            if self.rng.gen_bool(0.2) {
                let ity = if self.rng.gen_bool(0.5) { Ty::I32 } else { Ty::I64 };
                let idx = self.expr(ity, d);
                return Expr { ty, kind: ExprKind::Load(a, Box::new(idx)) };
            }
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
    helper: Option<(&'a str, Ty)>,
    ret: Ty,
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

/// Lowers one function; intrinsic declarations go to `decls`.
fn lower(name: &str, linkage: &str, f: &Function, decls: &mut BTreeSet<String>) -> String {
    lower_with(name, linkage, f, decls, None)
}

fn lower_with(
    name: &str,
    linkage: &str,
    f: &Function,
    decls: &mut BTreeSet<String>,
    helper: Option<(&str, Ty)>,
) -> String {
    let mut l = Lower {
        vars: &f.vars,
        arrays: &f.arrays,
        helper,
        ret: f.ret,
        allocas: String::new(),
        out: String::new(),
        tmps: 0,
        labels: 0,
        cur: Some("entry".into()),
        used: HashSet::new(),
        loops: Vec::new(),
        decls,
        counters: 0,
    };
    for (i, t) in f.vars.iter().enumerate() {
        let _ = writeln!(l.allocas, "  %x{i} = alloca {}", t.ir());
    }
    for (i, t) in f.arrays.iter().enumerate() {
        let _ = writeln!(l.allocas, "  %arr{i} = alloca [{ARRAY_LEN} x {}]", t.ir());
    }
    for (i, t) in f.params.iter().enumerate() {
        l.inst(format!("store {} %p{i}, ptr %x{i}", t.ir()));
    }
    l.stmts(&f.body);
    assert!(l.cur.is_none(), "the body ends with a return");
    let sig: Vec<String> = f.params.iter().enumerate().map(|(i, t)| format!("{} %p{i}", t.ir())).collect();
    let mut ir = format!("define {linkage}{} @\"{name}\"({}) {{\nentry:\n", f.ret.ir(), sig.join(", "));
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
            ExprKind::Call(args) => {
                let (callee, ret) = self.helper.expect("calls only with a helper");
                let mut ops = Vec::new();
                for a in args {
                    let x = self.expr(a);
                    ops.push(format!("{} {x}", a.ty.ir()));
                }
                self.val(format!("call {} @\"{callee}\"({})", ret.ir(), ops.join(", ")))
            }
            ExprKind::Load(a, idx) => {
                let p = self.element(*a, idx);
                self.val(format!("load {t}, ptr {p}"))
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
        if f.count_params() as usize != p.params.len() {
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
        ] {
            assert!(all.contains(needle), "no program of 500 contains `{needle}`");
        }
        // Early returns inside control flow: more than one `ret` in a function.
        let multi_ret = (0..500u64).filter(|s| generate(*s, &cfg).ir.matches("\n  ret ").count() > 1).count();
        assert!(multi_ret > 25, "only {multi_ret} programs with early returns");
        // Labelled breaks: some `break` leaves an outer loop (its target is
        // an exit label not following its own loop's latch). Checked
        // structurally on the AST instead of the text.
        let outer = (0..500u64)
            .filter(|s| {
                let mut g = Gen::new(SmallRng::seed_from_u64(*s), &cfg, None);
                let f = g.program();
                has_outer_exit(&f.body)
            })
            .count();
        assert!(outer > 5, "only {outer} programs leave an outer loop");
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
