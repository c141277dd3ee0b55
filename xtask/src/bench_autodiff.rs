//! `cargo xtask bench-autodiff [--smoke] [--side N] [--reps R] [--batchify
//! PATH] [--out DIR]`: derivatives of the smooth Mandelbrot escape measure
//! (`tests/autodiff/01_smooth_mandel.c`) on N×N points, computed by Enzyme
//! and batchify in both orders (docs/benchmarks.md, "Derivatives: Enzyme
//! and batchify, in both orders"):
//!
//! * scalar Enzyme: `fwddiffesmooth_mandel` (two forward passes per point,
//!   seeds (1, 0) and (0, 1)) and `diffesmooth_mandel` (one reverse pass);
//! * Enzyme of batchify: Enzyme's forward and reverse mode of the 8-lane
//!   `batchify --for-autodiff` clone `_ZGVdN8vv_smooth_mandel`;
//! * batchify of Enzyme: batchify's 8-lane clones of Enzyme's two scalar
//!   derivative functions (`_ZGVdN8vvvv_fwddiffesmooth_mandel`,
//!   `_ZGVdN8vvv_diffesmooth_mandel`);
//! * and the primal: scalar calls against the 8-lane clone.
//!
//! Build (files in `target/bench-autodiff/build`):
//!
//! 1. `clang-22 -O2 -fno-vectorize -fno-unroll-loops -mavx2 -DAD_DERIVATIVES
//!    -emit-llvm` of the test program (its `AD_XY` macro then only asks
//!    Enzyme for the two scalar derivatives) and of
//!    `benches/autodiff/enzyme_x8.c` (Enzyme's calls on the 8-lane clone);
//! 2. `batchify --for-autodiff --no-fallback --variant
//!    _ZGVdN8vv_smooth_mandel`;
//! 3. `llvm-link` with `benches/autodiff/lanes8.ll` (the 8-lane wrappers,
//!    in IR because C cannot declare the clones' types);
//! 4. `opt-22 -load-pass-plugin=LLVMEnzyme-22.so -passes=enzyme`;
//! 5. `batchify --no-fallback --variant _ZGVdN8vvvv_fwddiffesmooth_mandel
//!    --variant _ZGVdN8vvv_diffesmooth_mandel` on Enzyme's output (the
//!    derivative functions are internal; so are their clones, called by the
//!    wrappers of the same module);
//! 6. `clang-22 -O2 -mavx2` of that module and of
//!    `benches/autodiff/driver.c` (another object: every call is a call),
//!    linked.
//!
//! No `-mfma`: the comparisons stay about rounding in the derivative code,
//! not about where the final compile fuses multiplies and adds. The driver
//! checks every version against scalar Enzyme (it exits non-zero beyond its
//! bounds), then times them interleaved (thread CPU time), `--reps` rounds
//! (12 by default), cycling through four stack shifts (the 8-lane clones
//! spill ymm registers into frames aligned to 16 bytes only, and one run was
//! 1.9× slower on one version than the next with the same code; the table
//! gives each shift's median too).

use crate::setup::{self, Env};
use crate::util::{self, green, header, red, stat, BenchOutcome};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Flags of the bitcode that Enzyme and batchify get: no loop vectorizer or
/// unrolling (Enzyme's advice), AVX2 (the clones' ISA), no FMA.
const BC_FLAGS: &[&str] = &["-O2", "-fno-vectorize", "-fno-unroll-loops", "-mavx2", "-Wno-everything"];
/// Flags of the final compile, of the kernels and of the driver.
const FINAL_FLAGS: &[&str] = &["-O2", "-mavx2"];
const CLONE: &str = "_ZGVdN8vv_smooth_mandel";
const FWD_CLONE: &str = "_ZGVdN8vvvv_fwddiffesmooth_mandel";
const REV_CLONE: &str = "_ZGVdN8vvv_diffesmooth_mandel";

/// The versions the driver times, in table order: mode, version, what one
/// call computes.
const VERSIONS: &[(&str, &str, &str)] = &[
    ("primal", "scalar", "`smooth_mandel`, 1 call per point"),
    ("primal", "x8", "batchify's `_ZGVdN8vv_smooth_mandel` (`--for-autodiff`), 1 call per 8 points"),
    ("forward", "scalar-enzyme", "Enzyme `fwddiffesmooth_mandel`, 2 calls per point"),
    ("forward", "enzyme-of-x8", "Enzyme forward mode of the 8-lane clone, 2 passes per 8 points"),
    ("forward", "x8-of-enzyme", "batchify's `_ZGVdN8vvvv_fwddiffesmooth_mandel`, 2 calls per 8 points"),
    ("reverse", "scalar-enzyme", "Enzyme `diffesmooth_mandel`, 1 call per point"),
    ("reverse", "enzyme-of-x8", "Enzyme reverse mode of the 8-lane clone, 1 pass per 8 points"),
    ("reverse", "x8-of-enzyme", "batchify's `_ZGVdN8vvv_diffesmooth_mandel`, 1 call per 8 points"),
];

/// Options of one run.
#[derive(Clone, Debug)]
pub struct Opts {
    /// Points per side of the grid (side × side points).
    pub side: u32,
    pub reps: u32,
    /// The batchify binary; built (release) when `None`.
    pub batchify: Option<PathBuf>,
    pub out: PathBuf,
    pub smoke: bool,
}

fn parse_opts(args: &[String]) -> Result<Opts, String> {
    let mut o =
        Opts { side: 1000, reps: 12, batchify: None, out: util::target_dir().join("bench-autodiff"), smoke: false };
    let (mut side_set, mut reps_set) = (false, false);
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value = |what: &str| it.next().cloned().ok_or(format!("{a} needs {what}"));
        match a.as_str() {
            "--smoke" => o.smoke = true,
            "--side" => {
                o.side = value("a number")?.parse().map_err(|_| "bad --side")?;
                side_set = true;
            }
            "--reps" => {
                o.reps = value("a number")?.parse().map_err(|_| "bad --reps")?;
                reps_set = true;
            }
            "--batchify" => o.batchify = Some(PathBuf::from(value("a path")?)),
            "--out" => o.out = PathBuf::from(value("a folder")?),
            other => return Err(format!("unknown option `{other}`")),
        }
    }
    if o.smoke {
        if !side_set {
            o.side = 64;
        }
        if !reps_set {
            o.reps = 1;
        }
        if o.out == util::target_dir().join("bench-autodiff") {
            o.out = util::target_dir().join("bench-autodiff-smoke");
        }
    }
    if o.side == 0 || !(u64::from(o.side) * u64::from(o.side)).is_multiple_of(8) || o.reps == 0 {
        return Err("--side must be positive with side² a multiple of 8, and --reps positive".into());
    }
    Ok(o)
}

/// Entry point of `cargo xtask bench-autodiff`.
pub fn run(args: &[String]) -> Result<(), String> {
    let opts = parse_opts(args)?;
    util::finish_bench("bench-autodiff", run_with(&opts)?)
}

/// The Enzyme plugin, found as `batchify_testkit::enzyme::plugin` finds it
/// (xtask does not link LLVM, so it cannot use the test kit):
/// `ENZYME_PLUGIN`, else `shared/enzyme/LLVMEnzyme-22.so` beside
/// the repository or one of its parent folders, else under `/work`.
fn enzyme_plugin() -> Option<PathBuf> {
    const SO: &str = "shared/enzyme/LLVMEnzyme-22.so";
    let root = util::root();
    let repo = root.canonicalize().unwrap_or(root);
    let from_env = std::env::var_os("ENZYME_PLUGIN").filter(|v| !v.is_empty()).map(PathBuf::from);
    from_env
        .into_iter()
        .chain(repo.ancestors().skip(1).map(|a| a.join(SO)))
        .chain([Path::new("/work").join(SO)])
        .find(|p| p.exists())
}

/// The tools of one run.
struct Tools {
    clang: PathBuf,
    opt: PathBuf,
    llvm_link: PathBuf,
    enzyme: PathBuf,
    batchify: PathBuf,
}

/// Why the benchmark cannot run here, if it cannot; else the LLVM tools and
/// the Enzyme plugin (batchify still to be found).
fn find_tools() -> Result<(Env, PathBuf), String> {
    if !cfg!(target_arch = "x86_64") {
        return Err(format!("the benchmark needs an x86-64 host with AVX2; this is {}", std::env::consts::ARCH));
    }
    #[cfg(target_arch = "x86_64")]
    if !std::is_x86_feature_detected!("avx2") {
        return Err("this CPU lacks AVX2 (the 8-lane _ZGVd clones cannot run)".into());
    }
    let prefix = setup::llvm_prefix().map_err(|e| format!("LLVM 22 is not installed ({e})"))?;
    let env = Env { llvm_prefix: prefix };
    for tool in ["opt", "llvm-link"] {
        if !env.llvm_bin(tool).exists() {
            return Err(format!("{} is missing (opt-22 / llvm-link-22)", env.llvm_bin(tool).display()));
        }
    }
    if Command::new(env.clang()).arg("--version").output().is_err() {
        return Err("clang-22 is not installed".into());
    }
    let enzyme = enzyme_plugin().ok_or(
        "no Enzyme plugin (ENZYME_PLUGIN, or shared/enzyme/LLVMEnzyme-22.so beside the repository or under /work)",
    )?;
    Ok((env, enzyme))
}

/// Builds the benchmark in `dir`; returns the executable.
fn build(t: &Tools, dir: &Path) -> Result<PathBuf, String> {
    let root = util::root();
    let src = root.join("benches/autodiff");
    let f = |name: &str| dir.join(name);
    util::output(
        Command::new(&t.clang)
            .args(BC_FLAGS)
            .arg("-DAD_DERIVATIVES")
            .arg("-I")
            .arg(root.join("tests/autodiff"))
            .args(["-c", "-emit-llvm"])
            .arg(root.join("tests/autodiff/01_smooth_mandel.c"))
            .arg("-o")
            .arg(f("mandel.bc")),
        false,
    )?;
    util::output(
        Command::new(&t.batchify)
            .arg(f("mandel.bc"))
            .args(["--for-autodiff", "--no-fallback", "--report", "--variant", CLONE, "-o"])
            .arg(f("mandel.x8.bc")),
        false,
    )?;
    util::output(
        Command::new(&t.clang)
            .args(BC_FLAGS)
            .args(["-c", "-emit-llvm"])
            .arg(src.join("enzyme_x8.c"))
            .arg("-o")
            .arg(f("enzyme_x8.bc")),
        false,
    )?;
    util::output(
        Command::new(&t.llvm_link)
            .arg(f("mandel.x8.bc"))
            .arg(f("enzyme_x8.bc"))
            .arg(src.join("lanes8.ll"))
            .arg("-o")
            .arg(f("linked.bc")),
        false,
    )?;
    util::output(
        Command::new(&t.opt)
            .arg(format!("-load-pass-plugin={}", t.enzyme.display()))
            .arg("-passes=enzyme")
            .arg(f("linked.bc"))
            .arg("-o")
            .arg(f("enzyme.bc")),
        false,
    )?;
    let report = util::output(
        Command::new(&t.batchify)
            .arg(f("enzyme.bc"))
            .args(["--no-fallback", "--report", "--variant", FWD_CLONE, "--variant", REV_CLONE, "-o"])
            .arg(f("kernels.bc")),
        false,
    )?;
    std::fs::write(f("batchify-report.txt"), &report.stderr).map_err(|e| format!("cannot write report: {e}"))?;
    util::output(
        Command::new(&t.clang).args(FINAL_FLAGS).arg("-c").arg(f("kernels.bc")).arg("-o").arg(f("kernels.o")),
        false,
    )?;
    let exe = f("bench-autodiff");
    util::output(
        Command::new(&t.clang)
            .args(FINAL_FLAGS)
            .arg(src.join("driver.c"))
            .arg(f("kernels.o"))
            .arg("-o")
            .arg(&exe)
            .arg("-lm"),
        false,
    )?;
    Ok(exe)
}

/// One `CHECK` line: values, exact, max_rel, bad, bound.
#[derive(Clone, Debug)]
struct Check {
    values: u64,
    exact: u64,
    max_rel: String,
    bad: u64,
    bound: String,
}

/// Times of one version: (stack shift, ns per point) per round.
type Times = BTreeMap<(String, String), Vec<(u32, f64)>>;
/// The driver's `CHECK` and `TIME` lines, by (mode, version).
type Parsed = (BTreeMap<(String, String), Check>, Times);

fn parse_driver(text: &str) -> Parsed {
    let (mut checks, mut times) = (BTreeMap::new(), Times::new());
    for line in text.lines() {
        let w: Vec<&str> = line.split_whitespace().collect();
        match w.as_slice() {
            ["CHECK", m, v, values, exact, max_rel, bad, bound] => {
                let check = Check {
                    values: values.parse().unwrap_or(0),
                    exact: exact.parse().unwrap_or(0),
                    max_rel: max_rel.to_string(),
                    bad: bad.parse().unwrap_or(u64::MAX),
                    bound: bound.to_string(),
                };
                checks.insert((m.to_string(), v.to_string()), check);
            }
            ["TIME", m, v, _, shift, ns] => times
                .entry((m.to_string(), v.to_string()))
                .or_default()
                .push((shift.parse().unwrap_or(u32::MAX), ns.parse().unwrap_or(f64::NAN))),
            _ => {}
        }
    }
    (checks, times)
}

/// The markdown table: per version, the median time per point with its
/// min–max, the speed-up over the scalar version of its mode (ratio of
/// medians), and the check against scalar Enzyme.
fn table(parsed: &Parsed, points: u64) -> String {
    let (checks, times) = parsed;
    let key = |m: &str, v: &str| (m.to_string(), v.to_string());
    let all =
        |m: &str, v: &str| stat(times.get(&key(m, v)).map(|t| t.iter().map(|x| x.1).collect()).unwrap_or_default());
    let mut t = String::from(
        "| mode | version | what is called | ns per point: median (min–max) | speed-up | checked against scalar |\n\
         | --- | --- | --- | ---: | ---: | --- |\n",
    );
    for (m, v, what) in VERSIONS {
        let s = all(m, v);
        let scalar = if *m == "primal" { "scalar" } else { "scalar-enzyme" };
        let base = all(m, scalar);
        let cell = s.map(|s| format!("{:.1} ({:.1}–{:.1})", s.median, s.min, s.max)).unwrap_or("n/a".into());
        let speedup = match (s, base) {
            (Some(s), Some(b)) => format!("{:.2}×", b.median / s.median),
            _ => "n/a".into(),
        };
        let check = match checks.get(&key(m, v)) {
            Some(c) if c.bound == "0" => format!("{} of {} bit for bit", c.exact, c.values),
            Some(c) => {
                format!("{} of {} bit for bit, max rel. diff. {} (bound {})", c.exact, c.values, c.max_rel, c.bound)
            }
            None if *v == scalar => "(reference)".into(),
            None => "not checked".into(),
        };
        t.push_str(&format!("| {m} | {v} | {what} | {cell} | {speedup} | {check} |\n"));
    }
    t.push_str(&format!(
        "\n{points} points; speed-up: median of the scalar version of the mode / median of this one.\n"
    ));
    let shifts: std::collections::BTreeSet<u32> = times.values().flatten().map(|x| x.0).collect();
    if shifts.len() > 1 {
        t.push_str("\nMedian ns per point by the driver's stack shift (bytes):\n\n| mode | version |");
        for s in &shifts {
            t.push_str(&format!(" {s} |"));
        }
        t.push_str(&format!("\n| --- | --- |{}\n", " ---: |".repeat(shifts.len())));
        for (m, v, _) in VERSIONS {
            t.push_str(&format!("| {m} | {v} |"));
            for s in &shifts {
                let at: Vec<f64> = times
                    .get(&key(m, v))
                    .map(|t| t.iter().filter(|x| x.0 == *s).map(|x| x.1).collect())
                    .unwrap_or_default();
                match stat(at) {
                    Some(st) => t.push_str(&format!(" {:.1} |", st.median)),
                    None => t.push_str(" n/a |"),
                }
            }
            t.push('\n');
        }
    }
    t
}

/// Runs the benchmark with `opts`.
pub fn run_with(opts: &Opts) -> Result<BenchOutcome, String> {
    let (env, enzyme) = match find_tools() {
        Ok(found) => found,
        Err(why) => return Ok(BenchOutcome::Skipped(why)),
    };
    let batchify = match &opts.batchify {
        Some(p) => p.clone(),
        None => {
            header("bench-autodiff: build the batchify CLI (release)");
            util::run(&mut env.cargo(&["build", "--release", "-p", "batchify-cli"]))?;
            util::target_dir().join("release").join("batchify")
        }
    };
    if !batchify.exists() {
        return Err(format!("{} does not exist", batchify.display()));
    }
    let tools =
        Tools { clang: env.clang(), opt: env.llvm_bin("opt"), llvm_link: env.llvm_bin("llvm-link"), enzyme, batchify };
    let dir = opts.out.join("build");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;

    header(&format!("bench-autodiff: build (files in {})", util::rel(&dir).display()));
    let exe = build(&tools, &dir)?;

    let side = opts.side.to_string();
    let points = u64::from(opts.side) * u64::from(opts.side);
    header(&format!("bench-autodiff: run ({points} points, {} round(s), versions interleaved)", opts.reps));
    let loadavg =
        || std::fs::read_to_string("/proc/loadavg").ok().and_then(|l| l.split_whitespace().next().map(str::to_string));
    let load_before = loadavg().unwrap_or_else(|| "?".into());
    let mut cmd = Command::new(&exe);
    cmd.args([&side, &side, &opts.reps.to_string()]);
    println!("$ {}", util::show(&cmd));
    let started = std::time::Instant::now();
    let out = cmd.output().map_err(|e| format!("cannot run {}: {e}", exe.display()))?;
    let elapsed = started.elapsed().as_secs_f64();
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    std::fs::write(opts.out.join("raw.txt"), &text).map_err(|e| format!("cannot write raw.txt: {e}"))?;
    for line in text.lines().filter(|l| !l.starts_with("TIME")) {
        let red_line = line.starts_with("MISMATCH") || line.starts_with("FAIL");
        println!("{}", if red_line { red(line) } else { line.to_string() });
    }
    if !out.status.success() {
        return Err(format!(
            "the driver failed ({}): some version disagrees with scalar Enzyme\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let parsed = parse_driver(&text);
    let missing: Vec<String> = VERSIONS
        .iter()
        .filter(|(m, v, _)| !parsed.1.contains_key(&(m.to_string(), v.to_string())))
        .map(|(m, v, _)| format!("{m} {v}"))
        .collect();
    if !missing.is_empty() || parsed.0.len() != VERSIONS.len() - 3 || parsed.0.values().any(|c| c.bad != 0) {
        return Err(format!("the driver's output is incomplete (no time for: {missing:?}):\n{text}"));
    }
    let table = table(&parsed, points);
    println!("\n{table}");
    let load = format!("{load_before} before, {} after", loadavg().unwrap_or_else(|| "?".into()));
    let md = format!(
        "# bench-autodiff\n\n`cargo xtask bench-autodiff{}` ({points} points, {} rounds, driver ran {elapsed:.1}s, load \
         average {load})\n\n{table}",
        if opts.smoke { " --smoke" } else { "" },
        opts.reps
    );
    let md_path = opts.out.join("results.md");
    std::fs::write(&md_path, md).map_err(|e| format!("cannot write {}: {e}", md_path.display()))?;
    println!("{}", green(&format!("bench-autodiff: wrote {}", util::rel(&md_path).display())));
    Ok(BenchOutcome::Done(table))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options() {
        let o = parse_opts(&["--smoke".to_string()]).unwrap();
        assert_eq!((o.side, o.reps), (64, 1));
        let o = parse_opts(&[]).unwrap();
        assert!(o.side == 1000 && o.reps >= 7);
        assert!(parse_opts(&["--side".into(), "3".into()]).is_err());
    }

    #[test]
    fn driver_output_parses() {
        let text = "CHECK primal x8 8 8 0 0 0\nCHECK forward enzyme-of-x8 16 10 4e-16 0 1e-12\n\
                    TIME primal scalar 0 0 10.0\nTIME primal scalar 1 16 12.0\nTIME primal x8 0 0 5.0\n";
        let parsed = parse_driver(text);
        assert_eq!(parsed.0.len(), 2);
        let t = table(&parsed, 8);
        assert!(t.contains("| primal | x8 |"), "{t}");
        assert!(t.contains("2.20×"), "{t}");
        assert!(t.contains("10 of 16 bit for bit, max rel. diff. 4e-16 (bound 1e-12)"), "{t}");
        assert!(t.contains("| primal | scalar | 10.0 | 12.0 |"), "{t}");
    }

    /// `cargo xtask bench-autodiff --smoke` with the batchify binary that
    /// `cargo build` made: 64×64 points, every version checked against
    /// scalar Enzyme. Skips loudly without clang-22, opt-22, llvm-link-22,
    /// the Enzyme plugin, AVX2 or a built batchify (fails instead under
    /// `BATCHIFY_REQUIRE_TOOLS=1`).
    #[test]
    fn smoke() {
        let skip = |why: &str| util::skip_test("bench_autodiff::tests::smoke", why);
        let bin = util::built_batchify();
        let Some(bin) = bin else {
            return skip("no target/{debug,release}/batchify (build the workspace first)");
        };
        let mut opts = parse_opts(&["--smoke".to_string()]).unwrap();
        opts.batchify = Some(bin);
        opts.out = util::target_dir().join("bench-autodiff-smoke-test");
        match run_with(&opts) {
            Ok(BenchOutcome::Done(table)) => assert!(table.contains("x8-of-enzyme"), "{table}"),
            Ok(BenchOutcome::Skipped(why)) => skip(&why),
            Err(e) => panic!("bench-autodiff --smoke failed: {e}"),
        }
    }
}
