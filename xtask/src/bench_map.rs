//! `cargo xtask bench-map [--smoke] [--n N] [--runs R] [--batchify PATH]
//! [--out DIR]`: map entry points in their three forms, refill with one
//! lane group per trip and with the cost model's choice (docs/cli.md, "Map
//! forms"), and bucketed by a key (docs/cli.md, "Bucketed maps") against
//! scalar calls in a loop, on five divergent kernels
//! (`benches/map/kernels.c`: Mandelbrot, Collatz, Newton's square root with
//! a tolerance exit, binary search in a shared table, sphere tracing) and
//! three input orders (natural; shuffled; sorted by the scalar result, the
//! order a perfect key would give), at AVX2 x8, AVX2 x16 and, where the CPU
//! has it, AVX-512 x16 (docs/benchmarks.md, "Maps: lane refill").
//!
//! Build (files in `target/bench-map/build`): `clang-22 -O2 -march=native
//! -emit-llvm` of the kernels; for each ISA and width and each form,
//! `batchify --variant ... --map --map-form F` and `clang-22 -O2
//! -march=native -shared` into its own shared object (each exports the same
//! `<kernel>_map` names). The bucketed form takes one key per kernel
//! (`<kernel>_key` in kernels.c: a cheap estimate of the trip count with the
//! kernel's parameters), and `--bucket KEY` names one key per run, so its
//! module is built by five batchify runs in a chain (`--variant V --map
//! --bucket <kernel>_key`, each on the previous one's output). The driver
//! (`benches/map/driver.c`, with the scalar kernels and keys) loads them
//! all. The grouped map is the plain clone in a loop (one call per `N`
//! elements, the tail masked). The driver checks every map's output,
//! bucketed ones included, against the scalar loop's, bit for bit, in every
//! run (a difference fails the command), and times each version `--runs`
//! times (thread CPU time), interleaved; the table gives medians and the
//! spread.

use crate::setup::{self, Env};
use crate::util::{self, header, stat, BenchOutcome, Stat};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The kernels and the variants asked for each (`{isa}` and `{w}` filled in).
const KERNELS: &[(&str, &str)] = &[
    ("mandel", "_ZGV{isa}N{w}vv_mandel"),
    ("collatz", "_ZGV{isa}N{w}v_collatz"),
    ("newton_sqrt", "_ZGV{isa}N{w}v_newton_sqrt"),
    ("bsearch_tab", "_ZGV{isa}N{w}vuu_bsearch_tab"),
    ("raymarch", "_ZGV{isa}N{w}vv_raymarch"),
];

/// The ISA and width configurations: label, ISA letter, lanes, CPU feature.
const CONFIGS: &[(&str, &str, u32, &str)] =
    &[("AVX2 x8", "d", 8, "avx2"), ("AVX2 x16", "d", 16, "avx2"), ("AVX-512 x16", "e", 16, "avx512f")];

/// The map forms built for each configuration: label suffix, column name,
/// batchify's options. `refill 1g` is the refilling map with one lane group
/// per trip; `refill` takes the groups the cost model chooses (two where
/// the loop is latency-bound, docs/cli.md "Map forms"). `bucketed` has no
/// options here: its key differs by kernel (`--bucket <kernel>_key`, see
/// [`BUCKETED`]).
const FORMS: &[(&str, &str, &[&str])] = &[
    ("g", "grouped", &["--map-form", "grouped"]),
    ("r1", "refill 1g", &["--map-form", "refill", "--refill-groups", "1"]),
    ("r", "refill", &["--map-form", "refill"]),
    ("a", "adaptive", &["--map-form", "adaptive"]),
    ("b", "bucketed", &[]),
];

/// The label suffix of the bucketed form. `--bucket KEY` names one key for
/// every map of a run, so its shared object is built by one batchify run
/// per kernel, each on the previous one's output, adding that kernel's
/// map bucketed by `<kernel>_key` (`benches/map/kernels.c`).
const BUCKETED: &str = "b";
const ORDERS: &[&str] = &["natural", "shuffled", "sorted"];

/// Options of one run.
#[derive(Clone, Debug)]
pub struct Opts {
    /// Elements per kernel and order (rounded up to a square).
    pub n: u64,
    /// Timed runs of every version.
    pub runs: u32,
    /// The batchify binary; built (release) when `None`.
    pub batchify: Option<PathBuf>,
    pub out: PathBuf,
    pub smoke: bool,
}

fn parse_opts(args: &[String]) -> Result<Opts, String> {
    let mut o = Opts { n: 1 << 20, runs: 5, batchify: None, out: util::target_dir().join("bench-map"), smoke: false };
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value = |what: &str| it.next().cloned().ok_or(format!("{a} needs {what}"));
        match a.as_str() {
            "--smoke" => {
                o.smoke = true;
                o.n = 4096;
                o.runs = 1;
                o.out = util::target_dir().join("bench-map-smoke");
            }
            "--n" => o.n = value("a number")?.parse().map_err(|_| "bad --n")?,
            "--runs" => o.runs = value("a number")?.parse().map_err(|_| "bad --runs")?,
            "--batchify" => o.batchify = Some(PathBuf::from(value("a path")?)),
            "--out" => o.out = PathBuf::from(value("a folder")?),
            other => return Err(format!("unknown option `{other}`")),
        }
    }
    if o.n == 0 || o.runs == 0 {
        return Err("--n and --runs must be positive".into());
    }
    Ok(o)
}

/// Entry point of `cargo xtask bench-map`.
pub fn run(args: &[String]) -> Result<(), String> {
    let opts = parse_opts(args)?;
    util::finish_bench("bench-map", run_with(&opts)?)
}

/// Whether the CPU has `feature` (an `is_x86_feature_detected!` name).
fn has(feature: &str) -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        match feature {
            "avx2" => std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("fma"),
            "avx512f" => std::is_x86_feature_detected!("avx512f"),
            _ => false,
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = feature;
        false
    }
}

/// The CPU's model name, for the table.
fn cpu_name() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|t| {
            t.lines()
                .find(|l| l.starts_with("model name"))
                .map(|l| l.split(':').nth(1).unwrap_or("").trim().to_string())
        })
        .unwrap_or_else(|| "unknown CPU".into())
}

/// One map version the driver times: its label, configuration and form
/// (indices into [`CONFIGS`] and [`FORMS`]).
struct Version {
    label: String,
    config: usize,
    form: usize,
}

/// What [`build`] made.
struct Built {
    driver: PathBuf,
    versions: Vec<Version>,
    /// The driver's `LABEL=PATH` arguments.
    libs: Vec<String>,
}

/// Builds the shared objects and the driver.
fn build(env: &Env, batchify: &Path, dir: &Path) -> Result<Built, String> {
    let src = util::root().join("benches").join("map");
    let clang = env.clang();
    let kernels_ll = dir.join("kernels.ll");
    util::run(
        Command::new(&clang)
            .args(["-O2", "-march=native", "-S", "-emit-llvm", "-Wno-everything"])
            .arg(src.join("kernels.c"))
            .arg("-o")
            .arg(&kernels_ll),
    )?;
    let mut labels = Vec::new();
    let mut libs = Vec::new();
    for (c, (name, isa, w, feature)) in CONFIGS.iter().enumerate() {
        if !has(feature) {
            println!("{}", util::yellow(&format!("bench-map: {name} skipped: this CPU lacks {feature}")));
            continue;
        }
        for (f, (suffix, _, args)) in FORMS.iter().enumerate() {
            let label = format!("{isa}{w}{suffix}");
            let ll = dir.join(format!("{label}.ll"));
            let variant = |v: &str| v.replace("{isa}", isa).replace("{w}", &w.to_string());
            if *suffix == BUCKETED {
                let mut input = kernels_ll.clone();
                for (k, (kernel, v)) in KERNELS.iter().enumerate() {
                    let step =
                        if k + 1 == KERNELS.len() { ll.clone() } else { dir.join(format!("{label}.{kernel}.ll")) };
                    util::run(Command::new(batchify).arg(&input).arg("-o").arg(&step).arg("-S").args([
                        "--variant",
                        &variant(v),
                        "--map",
                        "--bucket",
                        &format!("{kernel}_key"),
                    ]))?;
                    input = step;
                }
            } else {
                let mut cmd = Command::new(batchify);
                cmd.arg(&kernels_ll).arg("-o").arg(&ll).arg("-S");
                for (_, v) in KERNELS {
                    cmd.arg("--variant").arg(variant(v));
                }
                cmd.arg("--map").args(*args);
                util::run(&mut cmd)?;
            }
            let so = dir.join(format!("{label}.so"));
            util::run(
                Command::new(&clang).args(["-O2", "-march=native", "-shared", "-fPIC"]).arg(&ll).arg("-o").arg(&so),
            )?;
            libs.push(format!("{label}={}", so.display()));
            labels.push(Version { label, config: c, form: f });
        }
    }
    let exe = dir.join("driver");
    util::run(
        Command::new(&clang)
            .args(["-O2", "-march=native", "-Wno-everything"])
            .arg(src.join("driver.c"))
            .arg(src.join("kernels.c"))
            .arg("-o")
            .arg(&exe)
            .args(["-ldl", "-lm"]),
    )?;
    Ok(Built { driver: exe, versions: labels, libs })
}

/// The driver's `TIME` lines: (kernel, order, label) -> seconds of each run.
fn parse_times(text: &str) -> BTreeMap<(String, String, String), Vec<f64>> {
    let mut times: BTreeMap<(String, String, String), Vec<f64>> = BTreeMap::new();
    for line in text.lines() {
        let f: Vec<&str> = line.split_whitespace().collect();
        if let ["TIME", kernel, order, label, secs] = f[..] {
            if let Ok(s) = secs.parse::<f64>() {
                times.entry((kernel.into(), order.into(), label.into())).or_default().push(s);
            }
        }
    }
    times
}

/// `a` over `b` as "x.xx×".
fn speedup(scalar: Option<Stat>, map: Option<Stat>) -> String {
    match (scalar, map) {
        (Some(s), Some(m)) if m.median > 0.0 => format!("{:.2}×", s.median / m.median),
        _ => "–".into(),
    }
}

/// The markdown table: per kernel and order, the scalar loop's median time
/// and each map's speed-up over it (medians), its spread in parentheses.
fn table(times: &BTreeMap<(String, String, String), Vec<f64>>, versions: &[Version]) -> String {
    let mut head = "| kernel | input | scalar loop |".to_string();
    let mut rule = "| --- | --- | --- |".to_string();
    for v in versions {
        head.push_str(&format!(" {} {} |", CONFIGS[v.config].0, FORMS[v.form].1));
        rule.push_str(" --- |");
    }
    let mut out = format!("{head}\n{rule}\n");
    for (kernel, _) in KERNELS {
        for order in ORDERS {
            let get =
                |label: &str| stat(times.get(&(kernel.to_string(), order.to_string(), label.to_string()))?.clone());
            let scalar = get("scalar");
            let mut row = format!(
                "| {kernel} | {order} | {} |",
                scalar.map_or("–".into(), |s| format!("{:.1} ms", s.median * 1e3))
            );
            for v in versions {
                let m = get(&v.label);
                let spread =
                    m.map_or(String::new(), |m| format!(" (±{:.0}%)", 50.0 * (m.max - m.min) / m.median.max(1e-12)));
                row.push_str(&format!(" {}{spread} |", speedup(scalar, m)));
            }
            out.push_str(&row);
            out.push('\n');
        }
    }
    out
}

/// Runs the benchmark with `opts`.
pub fn run_with(opts: &Opts) -> Result<BenchOutcome, String> {
    if !has("avx2") {
        return Ok(BenchOutcome::Skipped("the benchmark needs an x86-64 CPU with AVX2 and FMA".into()));
    }
    let env = match setup::llvm_prefix() {
        Ok(p) => Env { llvm_prefix: p },
        Err(e) => return Ok(BenchOutcome::Skipped(format!("LLVM 22 is not installed ({e})"))),
    };
    if Command::new(env.clang()).arg("--version").output().is_err() {
        return Ok(BenchOutcome::Skipped("clang-22 is not installed".into()));
    }
    let batchify = match &opts.batchify {
        Some(p) => p.clone(),
        None => {
            header("bench-map: build the batchify CLI (release)");
            util::run(&mut env.cargo(&["build", "--release", "-p", "batchify-cli"]))?;
            util::target_dir().join("release").join("batchify")
        }
    };
    let dir = opts.out.join("build");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    header(&format!("bench-map: build (files in {})", util::rel(&dir).display()));
    let built = build(&env, &batchify, &dir)?;
    let exe = &built.driver;
    header(&format!("bench-map: run ({} elements per kernel and order, {} run(s))", opts.n, opts.runs));
    let out = Command::new(exe)
        .arg(opts.runs.to_string())
        .arg(opts.n.to_string())
        .args(&built.libs)
        .output()
        .map_err(|e| format!("cannot run {}: {e}", exe.display()))?;
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    let mismatches: Vec<&str> = text.lines().filter(|l| l.starts_with("MISMATCH")).collect();
    if !out.status.success() || !mismatches.is_empty() {
        return Err(format!(
            "bench-map: the driver failed ({}): {}\n{}",
            out.status,
            mismatches.join("; "),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let times = parse_times(&text);
    let t = table(&times, &built.versions);
    let md = format!(
        "# bench-map\n\n`cargo xtask bench-map{}` on {} ({} elements per kernel and order, median of {} run(s); \
         speed-up over the scalar loop, spread ±half the range of the map's times). Every map's output matched \
         the scalar loop's bit for bit in every run.\n\n{t}",
        if opts.smoke { " --smoke" } else { "" },
        cpu_name(),
        opts.n,
        opts.runs
    );
    println!("{md}");
    std::fs::write(opts.out.join("results.md"), &md).map_err(|e| format!("cannot write results.md: {e}"))?;
    Ok(BenchOutcome::Done(t))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options() {
        let o = parse_opts(&["--n".into(), "100".into(), "--runs".into(), "3".into()]).unwrap();
        assert_eq!((o.n, o.runs), (100, 3));
        assert!(parse_opts(&["--runs".into(), "0".into()]).is_err());
        assert!(parse_opts(&["--bogus".into()]).is_err());
    }

    #[test]
    fn times_and_table() {
        let text = "TIME mandel natural scalar 0.010\nTIME mandel natural d8g 0.002\nTIME mandel natural d8g 0.004\n\
                    MISMATCH nothing\n";
        let times = parse_times(text);
        assert_eq!(times[&("mandel".into(), "natural".into(), "d8g".into())], vec![0.002, 0.004]);
        let t = table(&times, &[Version { label: "d8g".into(), config: 0, form: 0 }]);
        assert!(t.contains("| mandel | natural | 10.0 ms | 3.33× (±33%) |"), "{t}");
    }

    /// `cargo xtask bench-map --smoke` with the batchify binary that `cargo
    /// build` made: every kernel, form and order on 4096 elements, each map
    /// checked bit for bit against the scalar loop. Skips loudly without
    /// clang-22, AVX2 or a built batchify (fails instead under
    /// `BATCHIFY_REQUIRE_TOOLS=1`).
    #[test]
    fn smoke() {
        let skip = |why: &str| util::skip_test("bench_map::tests::smoke", why);
        let bin = util::built_batchify();
        let Some(bin) = bin else {
            return skip("no target/{debug,release}/batchify (build the workspace first)");
        };
        let mut o = parse_opts(&["--smoke".to_string()]).unwrap();
        o.batchify = Some(bin);
        o.out = util::target_dir().join("bench-map-smoke-test");
        match run_with(&o) {
            Ok(BenchOutcome::Done(t)) => {
                assert!(t.contains("| raymarch | sorted |"), "{t}");
                for (name, _, _, feature) in CONFIGS {
                    if has(feature) {
                        for form in ["refill", "bucketed"] {
                            assert!(t.contains(&format!("{name} {form}")), "{name} {form} missing:\n{t}");
                        }
                    } else {
                        util::skip_cpu_part(&format!("bench_map::tests::smoke ({name})"), feature);
                    }
                }
            }
            Ok(BenchOutcome::Skipped(why)) => skip(&why),
            Err(e) => panic!("bench-map --smoke failed: {e}"),
        }
    }
}
