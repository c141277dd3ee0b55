//! `cargo xtask compile-time [--sizes 100,1000,10000] [--runs 3] [--no-opt]`:
//! batchify's compile time against `opt-22 -O2` on generated functions of
//! growing size, as a markdown table (docs/benchmarks.md).
//!
//! Families (`i32 @f(i32 %x)`, every branch on a value of `%x`, so every
//! branch is divergent in an all-varying clone):
//! * `straight`: a chain of `size` arithmetic instructions;
//! * `diamonds`: `size` divergent if/else diamonds one after another;
//! * `nested-ifs`: `size` divergent ifs nested inside each other;
//! * `loops`: `size / 10` divergent loops one after another, each with a
//!   divergent if/else in its body (so `size / 5` branches);
//! * `nested-loops`: `size / 10` divergent loops nested inside each other,
//!   each with a divergent if/else whose one side holds the next loop (so
//!   `size / 5` branches);
//! * `switch`: one divergent `switch` with `size` cases meeting in one phi;
//! * `callees`: `size / 32` small functions (a divergent if/else and a
//!   chain of arithmetic each), called one after another by `f`, so that
//!   the clone of `f` needs a callee clone of each;
//! * `irreducible`: one state machine of `size / 4` states whose cycle is
//!   entered at two states (batchify splits nodes or falls back).
//!
//! Each measurement is the median wall time of `--runs` runs (taken in
//! turns with the other sizes of the family, or with `opt`) of
//! `batchify IN -o /dev/null --function f --isa avx2 -n 8 --no-cost-model`
//! (release build; the vectorizer's time, even where the cost model would
//! choose the per-lane loop) and of `opt-22 -O2 IN -o /dev/null`.
//!
//! Two tables, the inputs sized by what issue 23 measures them by:
//! * **growth**: each family at `--instructions` (default 1k to 32k
//!   instructions; each family's size parameter is the smallest that gives
//!   at least that many), batchify's time and its growth per doubling;
//! * **against opt**: each family at `--branches` conditional branches and
//!   switch cases (default 2,000; `straight` has none and is measured at
//!   that many instructions), batchify against `opt-22 -O2` (`--no-opt`
//!   skips this table).
//!
//! `--families a,b` measures only those.

use crate::setup;
use crate::util;
use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;
use std::time::Instant;

const FAMILIES: &[&str] =
    &["straight", "diamonds", "nested-ifs", "loops", "nested-loops", "switch", "callees", "irreducible"];

/// What the command was asked to measure.
struct Request {
    instructions: Vec<usize>,
    branches: usize,
    runs: usize,
    with_opt: bool,
    families: Vec<String>,
}

fn parse_list(v: Option<&String>, what: &str) -> Result<Vec<usize>, String> {
    let v = v.ok_or(format!("{what} needs a value, e.g. 1000,2000"))?;
    v.split(',').map(|s| s.trim().parse().map_err(|_| format!("bad number `{s}` for {what}"))).collect()
}

fn parse(args: &[String]) -> Result<Request, String> {
    let mut r = Request {
        instructions: vec![1000, 2000, 4000, 8000, 16000, 32000],
        branches: 2000,
        runs: 3,
        with_opt: true,
        families: FAMILIES.iter().map(|f| f.to_string()).collect(),
    };
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--instructions" => r.instructions = parse_list(it.next(), "--instructions")?,
            "--branches" => {
                r.branches = *parse_list(it.next(), "--branches")?.first().ok_or("--branches needs a number")?
            }
            "--runs" => r.runs = *parse_list(it.next(), "--runs")?.first().ok_or("--runs needs a number")?,
            "--no-opt" => r.with_opt = false,
            "--families" => {
                let v = it.next().ok_or("--families needs a value, e.g. switch,loops")?;
                r.families = v.split(',').map(|s| s.trim().to_string()).collect();
                if let Some(bad) = r.families.iter().find(|f| !FAMILIES.contains(&f.as_str())) {
                    return Err(format!("unknown family `{bad}` (families: {})", FAMILIES.join(", ")));
                }
            }
            other => return Err(format!("unknown option `{other}`")),
        }
    }
    Ok(r)
}

pub fn run(args: &[String]) -> Result<(), String> {
    let req = parse(args)?;
    let env = setup::ensure(true)?;
    util::header("compile-time: build batchify (release)");
    util::run(&mut env.cargo(&["build", "--release", "-p", "batchify-cli"]))?;
    let batchify = util::target_dir().join("release").join("batchify");
    let opt = env.llvm_bin("opt");
    let dir = util::target_dir().join("compile-time");
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let batchify_once = |file: &Path| {
        seconds(|| {
            Command::new(&batchify)
                .arg(file)
                .args(["-o", "/dev/null", "--function", "f", "--isa", "avx2", "-n", "8", "--no-cost-model"])
                .status()
        })
    };
    let opt_once = |file: &Path| seconds(|| Command::new(&opt).arg("-O2").arg(file).args(["-o", "/dev/null"]).status());

    let mut growth = String::from("| family |");
    for n in &req.instructions {
        let _ = write!(growth, " {} |", thousands(*n));
    }
    growth.push_str(" growth per doubling |\n| --- |");
    growth.push_str(&" ---: |".repeat(req.instructions.len()));
    growth.push_str(" --- |\n");
    util::header("compile-time: growth (batchify seconds by instructions)");
    for family in &req.families {
        let mut files = Vec::new();
        for &target in &req.instructions {
            let ir = generate(family, size_for(family, target, instruction_count));
            let file = dir.join(format!("{family}-{target}i.ll"));
            std::fs::write(&file, &ir).map_err(|e| format!("cannot write {}: {e}", file.display()))?;
            files.push(file);
        }
        // The sizes take turns in every run, so that a slow spell of the
        // machine falls on all of them and not on one doubling.
        let mut samples = vec![Vec::new(); files.len()];
        for _ in 0..req.runs.max(1) {
            for (file, s) in files.iter().zip(&mut samples) {
                s.push(batchify_once(file)?);
            }
        }
        let times: Vec<f64> = samples.into_iter().map(median).collect();
        for (target, t) in req.instructions.iter().zip(&times) {
            println!("{family} at {target} instructions: {t:.3} s");
        }
        let _ = write!(growth, "| {family} |");
        for t in &times {
            let _ = write!(growth, " {t:.3} |");
        }
        let ratios: Vec<String> = times.windows(2).map(|w| format!("{:.1}", w[1] / w[0])).collect();
        let _ = writeln!(growth, " {} |", ratios.join(" "));
    }

    let mut against = String::new();
    if req.with_opt {
        let _ = writeln!(
            against,
            "| family | branches | instructions | batchify (s) | opt -O2 (s) | batchify / opt |\n| --- | ---: | ---: | ---: | ---: | ---: |"
        );
        util::header(&format!("compile-time: against opt -O2 at {} branches", req.branches));
        for family in &req.families {
            let measure = if family == "straight" { instruction_count } else { branch_count };
            let ir = generate(family, size_for(family, req.branches, measure));
            let file = dir.join(format!("{family}-{}b.ll", req.branches));
            std::fs::write(&file, &ir).map_err(|e| format!("cannot write {}: {e}", file.display()))?;
            let (mut ours, mut theirs) = (Vec::new(), Vec::new());
            for _ in 0..req.runs.max(1) {
                ours.push(batchify_once(&file)?);
                theirs.push(opt_once(&file)?);
            }
            let (ours, theirs) = (median(ours), median(theirs));
            let row = format!(
                "| {family} | {} | {} | {ours:.3} | {theirs:.3} | {:.2} |",
                branch_count(&ir),
                instruction_count(&ir),
                ours / theirs
            );
            println!("{row}");
            let _ = writeln!(against, "{row}");
        }
    }
    let out = dir.join("table.md");
    let text = format!("<!-- cargo xtask compile-time {} -->\n{growth}\n{against}", args.join(" "));
    std::fs::write(&out, &text).map_err(|e| format!("cannot write {}: {e}", out.display()))?;
    println!("\n{text}\ntables written to {}", util::rel(&out).display());
    Ok(())
}

/// `1000` as `1k`, `1500` as `1500`.
fn thousands(n: usize) -> String {
    if n.is_multiple_of(1000) {
        format!("{}k", n / 1000)
    } else {
        n.to_string()
    }
}

/// Instructions of a generated module (lines indented inside a body).
fn instruction_count(ir: &str) -> usize {
    ir.lines().filter(|l| l.starts_with("  ")).count()
}

/// Conditional branches and switch cases of a generated module.
fn branch_count(ir: &str) -> usize {
    ir.lines().filter(|l| l.starts_with("  br i1 ")).count() + ir.matches(", label %c").count()
}

/// The smallest size parameter of `family` whose function has at least
/// `target` of what `measure` counts (the counts grow with the size).
fn size_for(family: &str, target: usize, measure: fn(&str) -> usize) -> usize {
    let (mut lo, mut hi) = (1usize, 1usize);
    while measure(&generate(family, hi)) < target {
        lo = hi;
        hi *= 2;
    }
    while lo < hi {
        let mid = (lo + hi) / 2;
        if measure(&generate(family, mid)) < target {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    hi
}

/// Wall time of one run of a command that must succeed.
fn seconds(cmd: impl FnOnce() -> std::io::Result<std::process::ExitStatus>) -> Result<f64, String> {
    let start = Instant::now();
    let status = cmd().map_err(|e| format!("cannot run: {e}"))?;
    if !status.success() {
        return Err(format!("a timed command failed ({status})"));
    }
    Ok(start.elapsed().as_secs_f64())
}

/// The median of some times.
fn median(mut times: Vec<f64>) -> f64 {
    times.sort_by(f64::total_cmp);
    times[times.len() / 2]
}

/// Textual IR of one generated function (see the module doc).
fn generate(family: &str, size: usize) -> String {
    let mut o = String::from("define i32 @f(i32 %x) {\nentry:\n");
    match family {
        "straight" => {
            let _ = writeln!(o, "  %v0 = add i32 %x, 1");
            for i in 1..size {
                let op = ["add", "mul", "xor", "sub"][i % 4];
                let _ = writeln!(o, "  %v{i} = {op} i32 %v{}, {}", i - 1, i % 7 + 1);
            }
            let _ = writeln!(o, "  ret i32 %v{}", size - 1);
        }
        "diamonds" => {
            let _ = writeln!(o, "  br label %b0");
            for i in 0..size {
                let (v, from) = if i == 0 {
                    ("%x".to_string(), "entry".to_string())
                } else {
                    (format!("%r{}", i - 1), format!("j{}", i - 1))
                };
                let _ = write!(
                    o,
                    "b{i}:\n  %v{i} = phi i32 [ {v}, %{from} ]\n  %c{i} = icmp sgt i32 %v{i}, {i}\n  br i1 %c{i}, label %t{i}, label %e{i}\n\
                     t{i}:\n  %a{i} = add i32 %v{i}, {}\n  br label %j{i}\ne{i}:\n  %s{i} = mul i32 %v{i}, 3\n  br label %j{i}\n\
                     j{i}:\n  %r{i} = phi i32 [ %a{i}, %t{i} ], [ %s{i}, %e{i} ]\n  br label %b{}\n",
                    i + 1,
                    i + 1
                );
            }
            let _ = writeln!(o, "b{size}:\n  ret i32 %r{}", size - 1);
        }
        "nested-ifs" => {
            let _ = writeln!(o, "  br label %b0");
            for i in 0..size {
                let _ =
                    writeln!(o, "b{i}:\n  %c{i} = icmp sgt i32 %x, {i}\n  br i1 %c{i}, label %b{}, label %j{i}", i + 1);
            }
            let _ = writeln!(o, "b{size}:\n  br label %j{}", size - 1);
            for i in (0..size).rev() {
                let (inner, value) = if i + 1 < size {
                    (format!("%j{}", i + 1), format!("%p{}", i + 1))
                } else {
                    (format!("%b{size}"), "%x".to_string())
                };
                let _ = writeln!(o, "j{i}:\n  %p{i} = phi i32 [ {value}, {inner} ], [ {i}, %b{i} ]");
                if i > 0 {
                    let _ = writeln!(o, "  br label %j{}", i - 1);
                } else {
                    let _ = writeln!(o, "  ret i32 %p0");
                }
            }
        }
        "loops" => {
            let n = (size / 10).max(1);
            let _ = writeln!(o, "  br label %pre0");
            for i in 0..n {
                let acc_in = if i == 0 { "%x".to_string() } else { format!("%out{}", i - 1) };
                let from = if i == 0 { "entry".to_string() } else { format!("exit{}", i - 1) };
                let _ = write!(
                    o,
                    "pre{i}:\n  %in{i} = phi i32 [ {acc_in}, %{from} ]\n  br label %h{i}\n\
                     h{i}:\n  %k{i} = phi i32 [ 0, %pre{i} ], [ %k1_{i}, %l{i} ]\n  %a{i} = phi i32 [ %in{i}, %pre{i} ], [ %a1_{i}, %l{i} ]\n\
                     \x20 %odd{i} = and i32 %a{i}, 1\n  %c{i} = icmp eq i32 %odd{i}, 0\n  br i1 %c{i}, label %t{i}, label %e{i}\n\
                     t{i}:\n  %ta{i} = lshr i32 %a{i}, 1\n  br label %l{i}\ne{i}:\n  %ea{i} = add i32 %a{i}, 7\n  br label %l{i}\n\
                     l{i}:\n  %a1_{i} = phi i32 [ %ta{i}, %t{i} ], [ %ea{i}, %e{i} ]\n  %k1_{i} = add i32 %k{i}, 1\n\
                     \x20 %more{i} = icmp ult i32 %k1_{i}, %x\n  %cap{i} = icmp ult i32 %k1_{i}, 64\n  %go{i} = and i1 %more{i}, %cap{i}\n\
                     \x20 br i1 %go{i}, label %h{i}, label %exit{i}\n\
                     exit{i}:\n  %out{i} = phi i32 [ %a1_{i}, %l{i} ]\n  br label %{}\n",
                    if i + 1 < n { format!("pre{}", i + 1) } else { "done".to_string() }
                );
            }
            let _ = writeln!(o, "done:\n  ret i32 %out{}", n - 1);
        }
        "nested-loops" => {
            let n = (size / 10).max(1);
            let _ = writeln!(o, "  br label %h0");
            for i in 0..n {
                let (pred, init) = if i == 0 {
                    ("entry".to_string(), "%x".to_string())
                } else {
                    (format!("t{}", i - 1), format!("%ta{}", i - 1))
                };
                // The `then` side enters the next loop; the innermost one just joins.
                let then_target = if i + 1 < n { format!("h{}", i + 1) } else { format!("l{i}") };
                let (join_value, join_from) = if i + 1 < n {
                    (format!("%out{}", i + 1), format!("x{}", i + 1))
                } else {
                    (format!("%ta{i}"), format!("t{i}"))
                };
                let after = if i == 0 { "done".to_string() } else { format!("l{}", i - 1) };
                let _ = write!(
                    o,
                    "h{i}:\n  %k{i} = phi i32 [ 0, %{pred} ], [ %k1_{i}, %l{i} ]\n  %a{i} = phi i32 [ {init}, %{pred} ], [ %a1_{i}, %l{i} ]\n\
                     \x20 %odd{i} = and i32 %a{i}, 1\n  %c{i} = icmp eq i32 %odd{i}, 0\n  br i1 %c{i}, label %t{i}, label %e{i}\n\
                     t{i}:\n  %ta{i} = lshr i32 %a{i}, 1\n  br label %{then_target}\ne{i}:\n  %ea{i} = add i32 %a{i}, 7\n  br label %l{i}\n\
                     l{i}:\n  %a1_{i} = phi i32 [ {join_value}, %{join_from} ], [ %ea{i}, %e{i} ]\n  %k1_{i} = add i32 %k{i}, 1\n\
                     \x20 %more{i} = icmp ult i32 %k1_{i}, %x\n  %cap{i} = icmp ult i32 %k1_{i}, 4\n  %go{i} = and i1 %more{i}, %cap{i}\n\
                     \x20 br i1 %go{i}, label %h{i}, label %x{i}\n\
                     x{i}:\n  %out{i} = phi i32 [ %a1_{i}, %l{i} ]\n  br label %{after}\n"
                );
            }
            let _ = writeln!(o, "done:\n  ret i32 %out0");
        }
        "switch" => {
            let _ = write!(o, "  %s = urem i32 %x, {size}\n  switch i32 %s, label %d [");
            for i in 0..size {
                let _ = write!(o, " i32 {i}, label %c{i}");
            }
            let _ = writeln!(o, " ]");
            let mut phi = String::from("[ 0, %d ]");
            for i in 0..size {
                let _ = writeln!(o, "c{i}:\n  %v{i} = add i32 %x, {}\n  br label %j", i * 7 + 1);
                let _ = write!(phi, ", [ %v{i}, %c{i} ]");
            }
            let _ = writeln!(o, "d:\n  br label %j\nj:\n  %r = phi i32 {phi}\n  ret i32 %r");
        }
        "callees" => {
            let n = (size / 32).max(1);
            let _ = writeln!(o, "  %v0 = call i32 @g0(i32 %x)");
            for k in 1..n {
                let _ = writeln!(o, "  %v{k} = call i32 @g{k}(i32 %v{})", k - 1);
            }
            let _ = writeln!(o, "  ret i32 %v{}\n}}", n - 1);
            for k in 0..n {
                let _ = write!(
                    o,
                    "define internal i32 @g{k}(i32 %y) {{\nentry:\n  %c = icmp sgt i32 %y, {k}\n  br i1 %c, label %t, label %e\n\
                     t:\n  %a = add i32 %y, 3\n  br label %j\ne:\n  %b = mul i32 %y, 5\n  br label %j\n\
                     j:\n  %p = phi i32 [ %a, %t ], [ %b, %e ]\n  %q0 = xor i32 %p, {k}\n"
                );
                for i in 1..24 {
                    let op = ["add", "mul", "xor", "sub"][i % 4];
                    let _ = writeln!(o, "  %q{i} = {op} i32 %q{}, {}", i - 1, i % 7 + 1);
                }
                let _ = writeln!(o, "  ret i32 %q23\n}}");
            }
            return o;
        }
        "irreducible" => {
            // The state lives in memory; `prepare` promotes it. The cycle
            // s0 -> s1 -> ... -> s(n-1) -> s0 is entered at s0 and at s1.
            let n = (size / 4).max(3);
            let _ = writeln!(
                o,
                "  %acc = alloca i32\n  store i32 %x, ptr %acc\n  %c = icmp sgt i32 %x, 0\n  br i1 %c, label %s0, label %s1"
            );
            for i in 0..n {
                let next = if i + 1 < n { format!("%s{}", i + 1) } else { "%back".to_string() };
                let skip = if i + 2 < n { format!("%s{}", i + 2) } else { "%back".to_string() };
                let _ = writeln!(
                    o,
                    "s{i}:\n  %a{i} = load i32, ptr %acc\n  %b{i} = add i32 %a{i}, {}\n  store i32 %b{i}, ptr %acc\n\
                     \x20 %t{i} = icmp sgt i32 %b{i}, {}\n  br i1 %t{i}, label {next}, label {skip}",
                    i + 1,
                    i * 3
                );
            }
            let _ = writeln!(
                o,
                "back:\n  %z = load i32, ptr %acc\n  %more = icmp ult i32 %z, 100000\n  br i1 %more, label %s0, label %out\n\
                 out:\n  ret i32 %z"
            );
        }
        _ => unreachable!("unknown family {family}"),
    }
    o.push_str("}\n");
    o
}

#[cfg(test)]
mod tests {
    /// Every family at a small size is valid IR (checked with `opt-22` when it is installed).
    #[test]
    fn generated_functions_are_valid_ir() {
        let Ok(opt) = which_opt() else {
            eprintln!("SKIPPED generated_functions_are_valid_ir: opt-22 is not installed");
            assert!(std::env::var("BATCHIFY_REQUIRE_TOOLS").is_err(), "opt-22 is required");
            return;
        };
        for family in super::FAMILIES {
            let ir = super::generate(family, 20);
            let dir = std::env::temp_dir().join(format!("xtask-ct-{}-{family}", std::process::id()));
            std::fs::write(&dir, &ir).unwrap();
            let out = std::process::Command::new(&opt)
                .args(["-passes=verify", "-disable-output"])
                .arg(&dir)
                .output()
                .unwrap();
            let _ = std::fs::remove_file(&dir);
            assert!(out.status.success(), "{family}: {}\n{ir}", String::from_utf8_lossy(&out.stderr));
        }
    }

    /// The size found for a target is the smallest that reaches it.
    #[test]
    fn sizes_reach_their_targets() {
        for family in super::FAMILIES {
            for (target, measure) in [(1000, super::instruction_count as fn(&str) -> usize), (300, super::branch_count)]
            {
                if *family == "straight" && target == 300 {
                    continue;
                }
                let size = super::size_for(family, target, measure);
                assert!(measure(&super::generate(family, size)) >= target, "{family} at {size}");
                if size > 1 {
                    assert!(
                        measure(&super::generate(family, size - 1)) < target,
                        "{family} at {size} is not the smallest"
                    );
                }
            }
        }
    }

    fn which_opt() -> Result<std::path::PathBuf, ()> {
        let p = crate::setup::llvm_prefix().map_err(|_| ())?.join("bin").join("opt");
        if p.exists() {
            Ok(p)
        } else {
            Err(())
        }
    }
}
