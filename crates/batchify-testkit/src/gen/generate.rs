//! Step 1: the random choices that build a function's AST ([`Gen`]), over
//! typed variables, bounded by the [`GenConfig`].

use super::ast::*;
use super::config::GenConfig;
use super::signature::Helper;
use super::TABLE_LENS;
use batchify_core::vfabi::ParamKind;
use rand::rngs::SmallRng;
use rand::seq::SliceRandom;
use rand::Rng;
use std::collections::BTreeSet;
use std::ops::RangeInclusive;

pub(super) fn chance(rng: &mut SmallRng, p: f64) -> bool {
    p > 0.0 && rng.gen_bool(p.min(1.0))
}

const ICMP: [&str; 10] = ["eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge"];
const FCMP: [&str; 14] =
    ["oeq", "one", "olt", "ole", "ogt", "oge", "ord", "ueq", "une", "ult", "ule", "ugt", "uge", "uno"];

pub(super) struct Gen<'a> {
    pub(super) rng: SmallRng,
    pub(super) cfg: &'a GenConfig,
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
    pub(super) helpers: Vec<Helper>,
    /// The helpers expressions may call.
    callable: Vec<usize>,
    /// The function's array pointer parameter (helpers only).
    pub(super) ptr_param: Option<(PtrMode, Ty)>,
    /// Element types of arrays the function must have (for pointer-taking helpers).
    pub(super) needed_arrays: Vec<Ty>,
    /// Read-only buffers the top-level function must have (for
    /// buffer-reading helpers): element type, length.
    pub(super) needed_bufs: Vec<(Elem, u64)>,
    /// Generating a helper.
    pub(super) is_helper: bool,
    /// Every returned value is `value & mask` (a helper's `range` return).
    pub(super) ret_mask: Option<u64>,
    /// Some expression divides or converts float to int.
    pub(super) uses_div: bool,
    /// Helpers some expression calls.
    pub(super) calls: BTreeSet<usize>,
    /// The top-level function's buffer parameters.
    pub(super) bufs: Vec<BufParam>,
    /// How lanes share each scalar parameter (top-level function only;
    /// helpers: all varying).
    kinds: Vec<ParamKind>,
    /// Some statement calls the recorder.
    pub(super) records: bool,
    /// Generating a recursive helper (it has a depth parameter).
    pub(super) recursive: bool,
    /// Self-calls made so far (at most two, none inside loops).
    self_calls: u32,
    /// Tag of the next recorder call.
    pub(super) next_tag: u64,
    /// The function's constant tables.
    tables: Vec<Table>,
    /// Tables no expression reads yet (each gets a read before the end).
    unread: Vec<usize>,
}

fn pick_range(rng: &mut SmallRng, r: &RangeInclusive<u32>) -> u32 {
    if r.is_empty() {
        0
    } else {
        rng.gen_range(r.clone())
    }
}

impl<'a> Gen<'a> {
    pub(super) fn new(rng: SmallRng, cfg: &'a GenConfig, helpers: Vec<Helper>, callable: Vec<usize>) -> Gen<'a> {
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
            tables: Vec::new(),
            unread: Vec::new(),
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

    fn chance(&mut self, p: f64) -> bool {
        p > 0.0 && self.rng.gen_bool(p.min(1.0))
    }

    pub(super) fn program(&mut self) -> Function {
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
        // Helpers draw constant tables less often: their reads are batched
        // through callee clones.
        let p_tables = if self.is_helper { self.cfg.p_tables / 3.0 } else { self.cfg.p_tables };
        if self.chance(p_tables) {
            for _ in 0..self.rng.gen_range(1..=2) {
                let t = self.table();
                self.tables.push(t);
                self.unread.push(self.tables.len() - 1);
            }
        }
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
        let main = body.len();
        body.extend(self.block(n, 0));
        // Every table is read: tables the block did not read get a
        // statement of their own ahead of it (the block may end in a return).
        let mut forced = Vec::new();
        while !self.unread.is_empty() {
            forced.push(self.table_stmt(0));
        }
        body.splice(main..main, forced);
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
            tables: self.tables.clone(),
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
        if !self.tables.is_empty() && self.chance(if self.unread.is_empty() { 0.08 } else { 0.3 }) {
            return self.table_stmt(depth);
        }
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
        let tabs: Vec<usize> = (0..self.tables.len()).filter(|&t| self.tables[t].ty == ty).collect();
        if !tabs.is_empty() && self.rng.gen_bool(0.3) {
            let t = *tabs.choose(&mut self.rng).expect("nonempty");
            return self.table_load(t, d);
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

    /// A constant table of random contents (see [`Table`]).
    fn table(&mut self) -> Table {
        let len = *TABLE_LENS.choose(&mut self.rng).expect("nonempty");
        let ty = if self.rng.gen_bool(0.5) { Ty::I32 } else { Ty::F32 };
        let elems = (0..len).map(|_| self.table_elem(ty)).collect();
        let linkage = if self.rng.gen_bool(0.6) { "internal" } else { "private" };
        let unnamed_addr = self.rng.gen_bool(0.5);
        let align = *[4u32, 16, 64].choose(&mut self.rng).expect("nonempty");
        Table { ty, elems, linkage, unnamed_addr, align }
    }

    /// One element of an `i32` table (NaN bit patterns included) or a
    /// `float` one (±0, ±inf, subnormals, the extremes; never NaN).
    fn table_elem(&mut self, ty: Ty) -> u64 {
        if ty == Ty::I32 {
            let v: i32 = match self.rng.gen_range(0..12) {
                0 => 0,
                1 => 1,
                2 => -1,
                3 => i32::MIN,
                4 => i32::MAX,
                5 => 0x7fc0_0000,           // a quiet NaN's bits
                6 => 0xffa0_0001u32 as i32, // a signalling NaN's bits
                7 | 8 => self.rng.gen_range(-8..64),
                _ => self.rng.gen(),
            };
            return v as i64 as u64;
        }
        let v: f32 = match self.rng.gen_range(0..16) {
            0 => 0.0,
            1 => -0.0,
            2 => f32::INFINITY,
            3 => f32::NEG_INFINITY,
            4 => f32::from_bits(1),            // the smallest subnormal
            5 => -f32::from_bits(0x0040_0000), // a negative subnormal
            6 => f32::MIN_POSITIVE,
            7 => f32::MAX,
            8 => -3.0e38,
            9 => 1.0e30,
            10 => 1.0,
            11 => {
                let v = f32::from_bits(self.rng.gen());
                if v.is_nan() {
                    -2.5
                } else {
                    v
                }
            }
            _ => self.rng.gen_range(-256i32..256) as f32 / 8.0,
        };
        (v as f64).to_bits()
    }

    /// The index of a read of table `t`, of an expression depth up to `d`.
    fn table_index(&mut self, t: usize, d: u32) -> TableIndex {
        let e = self.table_index_expr(d);
        self.table_index_of(t, e)
    }

    /// An integer expression for a table index: often a plain variable.
    fn table_index_expr(&mut self, d: u32) -> Expr {
        let ity = if self.rng.gen_bool(0.5) { Ty::I32 } else { Ty::I64 };
        if self.rng.gen_bool(0.4) {
            self.leaf(ity)
        } else {
            self.expr(ity, d)
        }
    }

    /// Table `t`'s index `e` (`i32` or `i64`), kept in range one way or another.
    fn table_index_of(&mut self, t: usize, e: Expr) -> TableIndex {
        let len = self.tables[t].len();
        let ty = self.tables[t].ty;
        let (e, guard) = if self.rng.gen_bool(0.3) {
            // `if (i < K)`: lanes out of range skip the read. Masked to a
            // little above K most of the time, so both sides are common.
            let e = if self.rng.gen_bool(0.7) {
                let m = Expr { ty: e.ty, kind: ExprKind::Const(2 * len.next_power_of_two() - 1) };
                Expr { ty: e.ty, kind: ExprKind::Int(IntOp::And, Box::new(e), Box::new(m)) }
            } else {
                e
            };
            let fallback = if self.rng.gen_bool(0.5) { 0 } else { self.table_elem(ty) };
            (e, TableGuard::Branch(fallback))
        } else {
            (e, TableGuard::Mask)
        };
        let ext = match self.rng.gen_range(0..3) {
            0 => None,
            1 => Some(false),
            _ => Some(true),
        };
        let gep = if self.rng.gen_bool(0.5) { TableGep::Flat } else { TableGep::Array };
        TableIndex { e, guard, ext, gep }
    }

    /// A read of table `t` of an index depth up to `d`.
    fn table_load(&mut self, t: usize, d: u32) -> Expr {
        self.unread.retain(|&u| u != t);
        let idx = self.table_index(t, d);
        Expr { ty: self.tables[t].ty, kind: ExprKind::TableLoad(t, Box::new(idx)) }
    }

    /// A statement around a table read (an unread table's first): `w = w op
    /// convert(t[f(w)])` for a variable `w`, alone or, sometimes, as the
    /// body of a loop of its own whose condition is random (so lanes
    /// usually leave it at different trips): a table walk.
    fn table_stmt(&mut self, depth: u32) -> Stmt {
        let t = match self.unread.first() {
            Some(&t) => t,
            None => self.rng.gen_range(0..self.tables.len()),
        };
        self.unread.retain(|&u| u != t);
        let ty = self.tables[t].ty;
        let walk = depth < self.cfg.max_depth && self.chance(0.45);
        if walk {
            self.loops += 1;
        }
        let w = self.rng.gen_range(0..self.vars.len());
        let wty = self.vars[w];
        let ity = if self.rng.gen_bool(0.5) { Ty::I32 } else { Ty::I64 };
        // The index depends on `w`, which the read changes: each trip reads
        // where the last one led.
        let from = Expr { ty: wty, kind: ExprKind::Var(w) };
        let mut ix = self.convert(from, ity);
        if self.rng.gen_bool(0.5) {
            let op = *[IntOp::Add, IntOp::Xor, IntOp::Mul].choose(&mut self.rng).expect("op");
            let other = self.leaf(ity);
            ix = Expr { ty: ity, kind: ExprKind::Int(op, Box::new(ix), Box::new(other)) };
        }
        let idx = self.table_index_of(t, ix);
        let load = Expr { ty, kind: ExprKind::TableLoad(t, Box::new(idx)) };
        let val = self.convert(load, wty);
        let e = if self.rng.gen_bool(0.3) {
            val
        } else if wty.is_int() {
            let op = *[IntOp::Add, IntOp::Xor, IntOp::Sub].choose(&mut self.rng).expect("op");
            Expr { ty: wty, kind: ExprKind::Int(op, Box::new(Expr { ty: wty, kind: ExprKind::Var(w) }), Box::new(val)) }
        } else {
            let op = *[FloatOp::FAdd, FloatOp::FMul, FloatOp::FSub].choose(&mut self.rng).expect("op");
            Expr {
                ty: wty,
                kind: ExprKind::Float(op, Box::new(Expr { ty: wty, kind: ExprKind::Var(w) }), Box::new(val)),
            }
        };
        let assign = Stmt::Assign(w, e);
        if !walk {
            return assign;
        }
        let kind = *[LoopKind::For, LoopKind::While, LoopKind::DoWhile].choose(&mut self.rng).expect("nonempty");
        let cap = self.rng.gen_range(2..=self.cfg.max_trip.max(2));
        let short_circuit = self.chance(self.cfg.p_short_circuit);
        let cond = self.cond(2);
        let mut body = vec![assign];
        if self.budget > 0 && self.chance(0.4) {
            body.extend(self.sub_block(depth + 1));
        }
        self.loops -= 1;
        Stmt::Loop { kind, short_circuit, cap, cond, body }
    }
}
