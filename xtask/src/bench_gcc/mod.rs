//! `cargo xtask bench-gcc [--smoke] [--n N] [--reps R] [--processes P]
//! [--kernels a,b] [--batchify PATH]`: batchify's AVX2 clones against GCC 12's own
//! `declare simd` clones, against scalar calls and against clang's `-O3`
//! loop with the kernel inlined, on the kernels in `benches/gcc/kernels/`
//! (docs/benchmarks.md, "Against GCC 12"; benches/README.md).
//!
//! Every kernel file holds one `#pragma omp declare simd` function named
//! like the file and `// bench:` lines that tell the driver generator its
//! signature and inputs (see `kernel.rs`).
//!
//! Each kernel is compiled four ways and linked into one driver (symbol
//! names are kept apart with `-DNAME=PREFIX_NAME`): `sc_` scalar calls
//! (clang -O2), `bf_` batchify's clone, `gcc_` GCC's clone, `in_` clang's
//! -O3 loop. The driver checks the results, then times the versions
//! interleaved, `--reps` times; it runs as `--processes` separate processes
//! (3 by default), whose repetitions are pooled, so that no one process's
//! address-space layout or share of the machine's disturbances decides a
//! ratio (in one run, one of three processes ran every version of `fib`
//! 20–30% slower than the other two).

mod build;
mod driver;
mod kernel;
mod report;

use crate::setup::{self, Env};
use crate::util::{self, green, header, red, yellow, BenchOutcome};
use build::{build_all, Tools};
use driver::gen_driver;
use kernel::kernels;
use report::{results_markdown, results_table};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The compiler flags the issue names, in one place, plus 64-byte function
/// alignment in every object: the same machine code (`fib`'s `fib_rec`, one
/// copy in each object) ran 6% apart depending on where in its cache lines
/// the linker put it (`objdump` showed identical bytes at the same object
/// offset), which a function alignment of one cache line takes out of the
/// comparison. For clang's C and bitcode inputs alike the option is the
/// code generator's (`-falign-functions` only reaches functions clang
/// itself generates from C).
const GCC_FLAGS: &[&str] = &["-O3", "-fopenmp-simd", "-march=x86-64-v3", "-falign-functions=64"];
const CLANG_BC_FLAGS: &[&str] = &["-O2", "-fopenmp-simd", "-march=x86-64-v3"];
const CLANG_SCALAR_FLAGS: &[&str] = &["-O2", "-march=x86-64-v3", "-mllvm", "-align-all-functions=6"];
const CLANG_INLINED_FLAGS: &[&str] = &["-O3", "-march=x86-64-v3", "-mllvm", "-align-all-functions=6"];

/// The kernels `--smoke` runs: a table search, a store through a linear
/// pointer, a masked variant and a libm kernel with the extra configurations.
const SMOKE_KERNELS: &[&str] = &["lsearch", "store_clamp", "masked_rsqrt", "gauss"];

/// A batchify configuration: its driver version id, column title, extra
/// CLI flags, and whether it runs only on kernels marked `veclib`.
pub struct BatchifyConfig {
    /// Symbol prefix and version id in the driver.
    pub id: &'static str,
    /// Column title.
    pub title: &'static str,
    /// Extra flags for the `batchify` command line.
    pub flags: &'static [&'static str],
    /// Only for kernels marked `// bench: veclib`.
    pub veclib_only: bool,
}

/// The batchify columns: default flags, and with libmvec for libm calls.
pub const BATCHIFY_CONFIGS: &[BatchifyConfig] = &[
    BatchifyConfig { id: "bf", title: "batchify", flags: &[], veclib_only: false },
    BatchifyConfig {
        id: "bfv",
        title: "batchify --veclib libmvec",
        flags: &["--veclib", "libmvec"],
        veclib_only: true,
    },
];

/// Driver version ids, in the order of the driver's version numbers.
const VERSIONS: &[&str] = &["sc", "bf", "gcc", "in", "bfv", "gsc", "bsc"];
const V_SC: usize = 0;
const V_BF: usize = 1;
const V_GCC: usize = 2;
const V_BFV: usize = 4;
const V_GSC: usize = 5;
/// The scalar function from batchify's output object (`bf_NAME`), called per
/// element: the same object, and so the same copies of its callees, as the clone.
const V_BSC: usize = 6;

/// Options of one run.
#[derive(Clone, Debug)]
pub struct Opts {
    /// Elements per repetition (a multiple of 64).
    pub n: usize,
    /// Timed repetitions per version, in each process.
    pub reps: usize,
    /// Driver processes, whose repetitions are pooled.
    pub processes: usize,
    /// Only these kernels (all when empty).
    pub only: Vec<String>,
    /// The batchify binary; `None` builds the release CLI.
    pub batchify: Option<PathBuf>,
    /// Output folder.
    pub out: PathBuf,
    /// Smoke mode: every mismatch is an error, and no docs-ready table.
    pub smoke: bool,
}

fn parse_opts(args: &[String]) -> Result<Opts, String> {
    let mut o = Opts {
        n: 65536,
        reps: 7,
        processes: 3,
        only: Vec::new(),
        batchify: None,
        out: util::target_dir().join("bench-gcc"),
        smoke: false,
    };
    let mut it = args.iter();
    let mut n_set = false;
    while let Some(a) = it.next() {
        let mut value = |what: &str| it.next().cloned().ok_or(format!("{a} needs {what}"));
        match a.as_str() {
            "--smoke" => o.smoke = true,
            "--n" => {
                o.n = value("a number")?.parse().map_err(|_| "bad --n")?;
                n_set = true;
            }
            "--reps" => o.reps = value("a number")?.parse().map_err(|_| "bad --reps")?,
            "--processes" => o.processes = value("a number")?.parse().map_err(|_| "bad --processes")?,
            "--kernels" => o.only = value("a list")?.split(',').map(str::to_string).collect(),
            "--batchify" => o.batchify = Some(PathBuf::from(value("a path")?)),
            "--out" => o.out = PathBuf::from(value("a folder")?),
            other => return Err(format!("unknown option `{other}`")),
        }
    }
    if o.smoke {
        if !n_set {
            o.n = 1024;
        }
        o.reps = o.reps.min(1);
        o.processes = 1;
        if o.only.is_empty() {
            o.only = SMOKE_KERNELS.iter().map(|s| s.to_string()).collect();
        }
        if o.out == util::target_dir().join("bench-gcc") {
            o.out = util::target_dir().join("bench-gcc-smoke");
        }
    }
    if o.n == 0 || !o.n.is_multiple_of(64) || o.reps == 0 || o.processes == 0 {
        return Err("--n must be a positive multiple of 64, --reps and --processes positive".into());
    }
    Ok(o)
}

/// Entry point of `cargo xtask bench-gcc`.
pub fn run(args: &[String]) -> Result<(), String> {
    let opts = parse_opts(args)?;
    util::finish_bench("bench-gcc", run_with(&opts)?)
}

fn tool_version(program: &Path) -> Option<String> {
    let out = Command::new(program).arg("--version").output().ok()?;
    out.status.success().then(|| String::from_utf8_lossy(&out.stdout).lines().next().unwrap_or("").to_string())
}

/// The GCC driver: `$BATCHIFY_GCC`, else `gcc` from `PATH`.
fn gcc() -> PathBuf {
    std::env::var_os("BATCHIFY_GCC").filter(|v| !v.is_empty()).map(PathBuf::from).unwrap_or_else(|| "gcc".into())
}

/// Why the benchmark cannot run here, if it cannot.
fn missing_requirement(env_prefix: Option<&Path>) -> Option<String> {
    if !cfg!(target_arch = "x86_64") {
        return Some(format!(
            "the benchmark needs an x86-64 host with AVX2 and FMA; this is {}",
            std::env::consts::ARCH
        ));
    }
    #[cfg(target_arch = "x86_64")]
    if !(std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("fma")) {
        return Some("this CPU lacks AVX2 or FMA (the x86-64-v3 clones cannot run)".into());
    }
    if tool_version(&gcc()).is_none() {
        return Some(format!("`{}` (GCC 12) is not installed", gcc().display()));
    }
    match env_prefix {
        None => Some("LLVM 22 is not installed (tools/llvm-prefix.sh found no prefix)".into()),
        Some(p) if !p.join("bin").join("llvm-dis").exists() => Some(format!("{}/bin/llvm-dis is missing", p.display())),
        _ => None,
    }
}

/// One `CHECK` line of the driver.
#[derive(Clone, Debug)]
struct Check {
    kernel: String,
    version: String,
    reference: String,
    bad: u64,
    maxd: String,
    first: String,
}

/// Runs the benchmark with `opts`.
pub fn run_with(opts: &Opts) -> Result<BenchOutcome, String> {
    let prefix = setup::llvm_prefix().ok();
    if let Some(why) = missing_requirement(prefix.as_deref()) {
        return Ok(BenchOutcome::Skipped(why));
    }
    let env = Env { llvm_prefix: prefix.expect("checked") };
    let gcc_version = tool_version(&gcc()).unwrap_or_default();
    if !gcc_version.contains(" 12.") {
        println!("{}", yellow(&format!("bench-gcc: warning: the issue asks for GCC 12, and `gcc` is: {gcc_version}")));
    }
    let batchify = match &opts.batchify {
        Some(p) => p.clone(),
        None => {
            header("bench-gcc: build the batchify CLI (release)");
            util::run(&mut env.cargo(&["build", "--release", "-p", "batchify-cli"]))?;
            util::target_dir().join("release").join("batchify")
        }
    };
    if !batchify.exists() {
        return Err(format!("{} does not exist", batchify.display()));
    }
    let tools = Tools { clang: env.clang(), gcc: gcc(), llvm_dis: env.llvm_bin("llvm-dis"), batchify };

    let mut all = kernels()?;
    if !opts.only.is_empty() {
        for want in &opts.only {
            if !all.iter().any(|k| &k.name == want) {
                return Err(format!("no kernel `{want}` in benches/gcc/kernels"));
            }
        }
        all.retain(|k| opts.only.contains(&k.name));
    }
    let dir = &opts.out;
    let obj_dir = dir.join("build");
    let _ = std::fs::remove_dir_all(&obj_dir);
    std::fs::create_dir_all(&obj_dir).map_err(|e| format!("cannot create {}: {e}", obj_dir.display()))?;

    header(&format!(
        "bench-gcc: compile {} kernel(s) four ways (files in {})",
        all.len(),
        util::rel(&obj_dir).display()
    ));
    println!("  GCC:      gcc {} -DNAME=gcc_NAME -c NAME.c", GCC_FLAGS.join(" "));
    println!("  batchify: clang-22 {} -DNAME=bf_NAME -c -emit-llvm NAME.c; batchify NAME.bc --variant _ZGVd... --report [flags]; clang-22 {} -c", CLANG_BC_FLAGS.join(" "), CLANG_SCALAR_FLAGS.join(" "));
    println!(
        "  scalar:   clang-22 {} -DNAME=sc_NAME -c NAME.c (called from the driver, another object)",
        CLANG_SCALAR_FLAGS.join(" ")
    );
    println!(
        "  inlined:  clang-22 {} NAME.inl.c (the kernel #included, loop over the arrays)",
        CLANG_INLINED_FLAGS.join(" ")
    );
    let built = build_all(&all, &tools, &obj_dir)?;
    let mut with_extra = false;
    for (k, b) in &built {
        let bf =
            b.bf.iter()
                .map(|(c, r)| format!("{c}: {}", r.as_deref().unwrap_or_else(|e| e)))
                .collect::<Vec<_>>()
                .join("; ");
        println!("  {:<14} {bf}; gcc: {}", k.name, b.gcc.as_deref().unwrap_or_else(|e| e));
        with_extra |= b.extra_flags_built;
    }

    header("bench-gcc: generate, compile and link the driver");
    let driver_c = obj_dir.join("driver.c");
    std::fs::write(&driver_c, gen_driver(&built)).map_err(|e| format!("cannot write {}: {e}", driver_c.display()))?;
    let driver_o = obj_dir.join("driver.o");
    util::output(
        Command::new(&tools.clang).args(CLANG_SCALAR_FLAGS).arg("-c").arg(&driver_c).arg("-o").arg(&driver_o),
        false,
    )?;
    let exe = obj_dir.join("bench-gcc");
    let mut link = Command::new(&tools.clang);
    link.arg(&driver_o).args(built.iter().flat_map(|(_, b)| b.objects.iter())).arg("-o").arg(&exe);
    if with_extra {
        link.arg("-lmvec");
    }
    link.arg("-lm");
    util::output(&mut link, true)?;
    println!("linked {}", util::rel(&exe).display());

    header(&format!(
        "bench-gcc: run ({} elements, {} repetition(s) in each of {} process(es), versions interleaved)",
        opts.n, opts.reps, opts.processes
    ));
    let loadavg =
        || std::fs::read_to_string("/proc/loadavg").ok().and_then(|l| l.split_whitespace().next().map(str::to_string));
    let load_before = loadavg().unwrap_or_else(|| "?".into());
    let started = std::time::Instant::now();
    let mut outputs = Vec::new();
    for _ in 0..opts.processes {
        let out = util::output(Command::new(&exe).arg(opts.n.to_string()).arg(opts.reps.to_string()), false)?;
        outputs.push(String::from_utf8_lossy(&out.stdout).to_string());
    }
    let elapsed = started.elapsed().as_secs_f64();
    let load = format!("{load_before} before, {} after", loadavg().unwrap_or_else(|| "?".into()));
    std::fs::write(dir.join("raw.txt"), outputs.join("\n")).map_err(|e| format!("cannot write raw.txt: {e}"))?;
    let mut times: std::collections::BTreeMap<(String, String), Vec<f64>> = Default::default();
    let mut checks: Vec<Check> = Vec::new();
    for (process, text) in outputs.iter().enumerate() {
        for line in text.lines() {
            let w: Vec<&str> = line.split_whitespace().collect();
            match w.as_slice() {
                ["TIME", k, v, _, ns] => {
                    times.entry((k.to_string(), v.to_string())).or_default().push(ns.parse().unwrap_or(f64::NAN))
                }
                // The inputs are the same in every process: one check each.
                ["CHECK", k, v, r, bad, maxd, first] if process == 0 => checks.push(Check {
                    kernel: k.to_string(),
                    version: v.to_string(),
                    reference: r.to_string(),
                    bad: bad.parse().unwrap_or(u64::MAX),
                    maxd: maxd.to_string(),
                    first: first.to_string(),
                }),
                _ => {}
            }
        }
    }
    println!("driver ran {elapsed:.1}s");

    // Correctness first: batchify's clones must match (exact, or within the ULP bound).
    let mut failures = Vec::new();
    for c in &checks {
        let ours = c.version == "bf" || c.version == "bfv";
        let strict = ours || (opts.smoke && c.version != "gsc");
        if c.bad > 0 {
            let dist = if c.maxd == "0" { String::new() } else { format!("largest distance {} ulp, ", c.maxd) };
            let msg = format!(
                "{}: `{}` differs from `{}` in {} of {} elements ({dist}first at {})",
                c.kernel, c.version, c.reference, c.bad, opts.n, c.first
            );
            if strict {
                println!("{}", red(&format!("MISMATCH {msg}")));
                failures.push(msg);
            } else {
                println!("{}", yellow(&format!("note: {msg}")));
            }
        }
    }

    let table = results_table(&built, &times, &checks, opts);
    println!("\n{table}");
    let md = results_markdown(&table, &built, opts, &gcc_version, &tools, (elapsed, &load));
    let md_path = dir.join("results.md");
    std::fs::write(&md_path, md).map_err(|e| format!("cannot write {}: {e}", md_path.display()))?;
    println!("{}", green(&format!("bench-gcc: wrote {}", util::rel(&md_path).display())));
    if !failures.is_empty() {
        return Err(format!(
            "{} version(s) disagree with the scalar function:\n  {}",
            failures.len(),
            failures.join("\n  ")
        ));
    }
    Ok(BenchOutcome::Done(table))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `cargo xtask bench-gcc --smoke` with the batchify binary that `cargo
    /// build` made: a few kernels on tiny arrays, every version checked
    /// against the scalar function. Skips loudly without gcc, LLVM 22, AVX2
    /// or a built batchify (fails instead under `BATCHIFY_REQUIRE_TOOLS=1`).
    #[test]
    fn smoke() {
        let bin = util::built_batchify();
        let skip = |why: &str| util::skip_test("bench_gcc::tests::smoke", why);
        let Some(bin) = bin else {
            return skip("no target/{debug,release}/batchify (build the workspace first)");
        };
        let mut opts = parse_opts(&["--smoke".to_string()]).unwrap();
        opts.batchify = Some(bin);
        opts.out = util::target_dir().join("bench-gcc-smoke-test");
        match run_with(&opts) {
            Ok(BenchOutcome::Done(table)) => assert!(table.contains("geomean")),
            Ok(BenchOutcome::Skipped(why)) => skip(&why),
            Err(e) => panic!("bench-gcc --smoke failed: {e}"),
        }
    }
}
