//! The generator's tests: programs verify, generation is deterministic and
//! the default configuration covers the language.

use super::ast::*;
use super::*;
use inkwell::context::Context;
use std::collections::{BTreeSet, HashSet};

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
        ExprKind::Call(_, args, ..) | ExprKind::SelfCall(args, ..) => args.iter().for_each(|a| expr_features(a, out)),
        ExprKind::TableLoad(_, idx) => {
            out.insert("table load".into());
            expr_features(&idx.e, out);
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

/// Programs of the default configuration read constant tables: `internal`
/// or `private` `constant [K x i32]`/`[K x float]` globals of every length
/// of `TABLE_LENS`, through both GEP shapes, at indices kept in range by
/// `and`, `urem` or a branch on `icmp ult`, in loops too; and they verify.
#[test]
fn default_programs_read_constant_tables() {
    let cfg = GenConfig::default();
    let mut with_tables = 0;
    let mut seen: BTreeSet<String> = BTreeSet::new();
    for seed in 0..600u64 {
        let p = generate(seed, &cfg);
        if !p.ir.contains(".table0\" = ") {
            continue;
        }
        with_tables += 1;
        parse_and_verify(&p).unwrap_or_else(|e| panic!("seed {seed}: {e}\n{}", p.ir));
        for line in p.ir.lines() {
            if let Some(rest) = line.strip_prefix("@\"").filter(|l| l.contains(".table")) {
                let decl = rest.split("= ").nth(1).expect("a definition");
                let linkage = decl.split(' ').next().expect("a linkage");
                assert!(matches!(linkage, "internal" | "private"), "seed {seed}: `{line}`");
                let ty = decl.split("constant ").nth(1).expect("a constant").split(']').next().expect("a type");
                seen.insert(format!("table {ty}]"));
                let float = ty.ends_with("float");
                assert!(!float || !line.contains("0x7FF8") && !line.contains("0xFFF8"), "a NaN float: `{line}`");
            }
            if line.contains("getelementptr inbounds") && line.contains(".table") {
                let flat =
                    line.contains("getelementptr inbounds i32, ") || line.contains("getelementptr inbounds float, ");
                seen.insert(if flat { "flat gep".into() } else { "array gep".into() });
                for it in ["i32 %", "i64 %"] {
                    if line.rsplit(", ").next().is_some_and(|l| l.starts_with(it)) {
                        seen.insert(format!("{} index", &it[..3]));
                    }
                }
            }
            for (needle, what) in [("urem ", "urem"), ("tab.read", "branch")] {
                if line.contains(needle) {
                    seen.insert(what.into());
                }
            }
        }
        // A table read in a loop body: a `tab`-reading GEP between a
        // loop.body label and the loop's latch.
        let in_loop = p.ir.split("loop.body").skip(1).any(|b| {
            let body = b.split("loop.latch").next().unwrap_or("");
            body.contains(".table")
        });
        if in_loop {
            seen.insert("in a loop".into());
        }
    }
    assert!((50..180).contains(&with_tables), "{with_tables} of 600 programs have tables");
    for k in TABLE_LENS {
        for t in ["i32", "float"] {
            let want = format!("table [{k} x {t}]");
            assert!(seen.contains(&want), "no `{want}`: {seen:?}");
        }
    }
    for want in ["flat gep", "array gep", "i32 index", "i64 index", "urem", "branch", "in a loop"] {
        assert!(seen.contains(want), "no `{want}` among table reads: {seen:?}");
    }
    // Off, no program has one.
    let off = GenConfig { p_tables: 0.0, ..GenConfig::default() };
    assert!((0..200u64).all(|s| !generate(s, &off).ir.contains(".table")));
}
