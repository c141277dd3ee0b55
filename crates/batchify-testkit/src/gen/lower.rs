//! Step 2: lowering a function's AST to textual IR in "`-O0` style" (an
//! `alloca` per variable, explicit blocks and branches).

use super::ast::*;
use super::signature::{Helper, Sig};
use super::RECORDER;
use std::collections::{BTreeSet, HashSet};
use std::fmt::Write as _;

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
    /// The function's constant tables.
    tables: &'a [Table],
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
pub(super) fn sret_size(ret: Ty) -> u32 {
    if ret.bits() == 64 {
        16
    } else {
        8
    }
}

/// Lowers one function with its signature `sig`; intrinsic declarations go
/// to `decls`; `helpers` are the functions its calls name.
pub(super) fn lower(name: &str, sig: &Sig, f: &Function, decls: &mut BTreeSet<String>, helpers: &[Helper]) -> String {
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
        tables: &f.tables,
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
    let mut ir = String::new();
    for (k, t) in f.tables.iter().enumerate() {
        let et = t.ty.ir();
        let elems: Vec<String> = t.elems.iter().map(|&b| format!("{et} {}", const_text(t.ty, b))).collect();
        let _ = writeln!(
            ir,
            "{} = {} {}constant [{} x {et}] [{}], align {}\n",
            super::table_global(name, k),
            t.linkage,
            if t.unnamed_addr { "unnamed_addr " } else { "" },
            t.len(),
            elems.join(", "),
            t.align
        );
    }
    let _ = write!(
        ir,
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

    /// The address of table `t`'s element `i` (the index operand, of the
    /// type of `idx.e`), in the GEP shape `idx` asks for.
    fn table_element(&mut self, t: usize, idx: &TableIndex, i: &str) -> String {
        let (i, it) = match (idx.e.ty, idx.ext) {
            (Ty::I32, Some(signed)) => {
                let ext = if signed { "sext" } else { "zext" };
                (self.val(format!("{ext} i32 {i} to i64")), "i64")
            }
            (ty, _) => (i.to_string(), ty.ir()),
        };
        let tab = &self.tables[t];
        let (et, len) = (tab.ty.ir(), tab.len());
        let g = super::table_global(self.name, t);
        match idx.gep {
            TableGep::Flat => self.val(format!("getelementptr inbounds {et}, ptr {g}, {it} {i}")),
            TableGep::Array => self.val(format!("getelementptr inbounds [{len} x {et}], ptr {g}, i64 0, {it} {i}")),
        }
    }

    /// A read of table `t` at `idx`.
    fn table_load(&mut self, t: usize, idx: &TableIndex) -> String {
        let (et, len) = (self.tables[t].ty, self.tables[t].len());
        let it = idx.e.ty.ir();
        let i = self.expr(&idx.e);
        match idx.guard {
            TableGuard::Mask => {
                let m = if len.is_power_of_two() {
                    self.val(format!("and {it} {i}, {}", len - 1))
                } else {
                    self.val(format!("urem {it} {i}, {len}"))
                };
                let p = self.table_element(t, idx, &m);
                self.val(format!("load {}, ptr {p}, align 4", et.ir()))
            }
            TableGuard::Branch(fallback) => {
                let inr = self.val(format!("icmp ult {it} {i}, {len}"));
                let from = self.cur();
                let (read, end) = (self.label("tab.read"), self.label("tab.end"));
                self.cbr(&inr, &read, &end);
                self.begin(&read);
                let p = self.table_element(t, idx, &i);
                let v = self.val(format!("load {}, ptr {p}, align 4", et.ir()));
                self.br(&end);
                self.begin(&end);
                let fb = const_text(et, fallback);
                self.val(format!("phi {} [ {fb}, %{from} ], [ {v}, %{read} ]", et.ir()))
            }
        }
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
            ExprKind::TableLoad(t, idx) => self.table_load(*t, idx),
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
