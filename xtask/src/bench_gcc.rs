//! `cargo xtask bench-gcc [--smoke] [--n N] [--reps R] [--processes P]
//! [--kernels a,b] [--batchify PATH]`: batchify's AVX2 clones against GCC 12's own
//! `declare simd` clones, against scalar calls and against clang's `-O3`
//! loop with the kernel inlined, on the kernels in `benches/gcc/kernels/`
//! (docs/benchmarks.md, "Against GCC 12"; benches/README.md).
//!
//! Every kernel file holds one `#pragma omp declare simd` function named
//! like the file and `// bench:` lines that tell the driver generator its
//! signature and inputs:
//!
//! * `// bench: ret TYPE` (the return type; `void` allowed);
//! * one line per parameter, in order:
//!   `v TYPE NAME = EXPR(i)` varying, one element per lane;
//!   `u TYPE NAME = CONST` uniform value;
//!   `t TYPE* NAME LEN = EXPR(j)` uniform pointer to a table of `LEN` elements;
//!   `l TYPE* NAME STRIDE = EXPR(j)` linear pointer, `STRIDE` elements per lane;
//!   `i TYPE NAME` linear integer, the element index;
//! * `// bench: mask EXPR(i)` calls the masked (`inbranch`) variant for the
//!   elements where `EXPR` holds (parameters are arrays: `x[i] > 0.0f`);
//! * `// bench: veclib` also measures batchify with [`BatchifyConfig`]s
//!   that take extra flags (`--veclib libmvec`);
//! * `// bench: ulp K`, the bound for those configurations' results.
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

use crate::setup::{self, Env};
use crate::util::{self, green, header, red, stat, yellow, BenchOutcome, Stat};
use std::fmt::Write as _;
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

#[derive(Clone, Debug, PartialEq)]
enum Kind {
    Varying,
    Uniform,
    Table,
    Linear,
    Index,
}

#[derive(Clone, Debug)]
struct Param {
    kind: Kind,
    /// The C type as written (`const float*`, `int`).
    ty: String,
    name: String,
    /// Table length or linear stride (a C expression).
    extent: String,
    /// The initialiser expression.
    init: String,
}

impl Param {
    /// The element type of a pointer parameter, without `const` and `*`.
    fn elem(&self) -> String {
        self.ty.replace("const", "").replace('*', "").split_whitespace().collect::<Vec<_>>().join(" ")
    }
}

#[derive(Clone, Debug)]
struct Kernel {
    name: String,
    path: PathBuf,
    /// The first comment, flattened to one line.
    about: String,
    ret: String,
    params: Vec<Param>,
    mask: Option<String>,
    veclib: bool,
    ulp: u32,
}

impl Kernel {
    /// The characteristic type: the return type, else the first varying parameter's.
    fn char_type(&self) -> String {
        if self.ret != "void" {
            return self.ret.clone();
        }
        self.params.iter().find(|p| p.kind == Kind::Varying).map(|p| p.ty.clone()).unwrap_or_else(|| "int".into())
    }
}

fn parse_kernel(path: &Path) -> Result<Kernel, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let name = path.file_stem().and_then(|s| s.to_str()).ok_or("bad kernel file name")?.to_string();
    let bad = |line: &str, why: &str| format!("{}: `{line}`: {why}", util::rel(path).display(),);
    let about = text
        .split("*/")
        .next()
        .and_then(|c| c.split("/*").nth(1))
        .map(|c| c.split_whitespace().collect::<Vec<_>>().join(" "))
        .unwrap_or_default();
    let mut k = Kernel {
        name,
        path: path.to_path_buf(),
        about,
        ret: String::new(),
        params: Vec::new(),
        mask: None,
        veclib: false,
        ulp: 0,
    };
    for line in text.lines() {
        let Some(spec) = line.trim().strip_prefix("// bench:") else { continue };
        let spec = spec.trim();
        let (head, rest) = spec.split_once(' ').unwrap_or((spec, ""));
        let rest = rest.trim();
        match head {
            "ret" => k.ret = rest.to_string(),
            "mask" => k.mask = Some(rest.to_string()),
            "veclib" => k.veclib = true,
            "ulp" => k.ulp = rest.parse().map_err(|_| bad(line, "ulp needs a number"))?,
            "v" | "u" | "t" | "l" | "i" => {
                let (lhs, init) = match rest.split_once('=') {
                    Some((l, r)) => (l.trim(), r.trim().to_string()),
                    None => (rest, String::new()),
                };
                let kind = match head {
                    "v" => Kind::Varying,
                    "u" => Kind::Uniform,
                    "t" => Kind::Table,
                    "l" => Kind::Linear,
                    _ => Kind::Index,
                };
                let mut words: Vec<&str> = lhs.split_whitespace().collect();
                let extent = if matches!(kind, Kind::Table | Kind::Linear) {
                    words.pop().ok_or_else(|| bad(line, "missing length/stride"))?.to_string()
                } else {
                    String::new()
                };
                let pname = words.pop().ok_or_else(|| bad(line, "missing name"))?.to_string();
                if words.is_empty() {
                    return Err(bad(line, "missing type"));
                }
                if kind != Kind::Index && ["n", "i", "j"].contains(&pname.as_str()) {
                    return Err(bad(line, "this parameter name is taken by the generated driver"));
                }
                if init.is_empty() && kind != Kind::Index {
                    return Err(bad(line, "missing `= initialiser`"));
                }
                k.params.push(Param { kind, ty: words.join(" "), name: pname, extent, init });
            }
            _ => return Err(bad(line, "unknown bench directive")),
        }
    }
    if k.ret.is_empty() {
        return Err(format!("{}: no `// bench: ret TYPE` line", util::rel(path).display()));
    }
    Ok(k)
}

/// All kernels in `benches/gcc/kernels`, sorted by name.
fn kernels() -> Result<Vec<Kernel>, String> {
    let dir = util::root().join("benches").join("gcc").join("kernels");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map_err(|e| format!("cannot read {}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "c"))
        .collect();
    paths.sort();
    paths.iter().map(|p| parse_kernel(p)).collect()
}

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

/// The identifiers in `text` that start with `_ZGVd` and end in `_SUFFIX`.
fn avx2_variants(text: &str, suffix: &str) -> Vec<String> {
    let mut found = Vec::new();
    let is_id = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let mut rest = text;
    while let Some(at) = rest.find("_ZGVd") {
        let tail = &rest[at..];
        let end = tail.find(|c: char| !is_id(c)).unwrap_or(tail.len());
        let id = &tail[..end];
        if id.ends_with(&format!("_{suffix}")) && !found.iter().any(|f| f == id) {
            found.push(id.to_string());
        }
        rest = &tail[end..];
    }
    found
}

/// The AVX2 variant to call: masked for kernels with a mask, else unmasked.
fn pick_variant(names: &[String], masked: bool) -> Option<String> {
    let want = if masked { "_ZGVdM" } else { "_ZGVdN" };
    names.iter().find(|n| n.starts_with(want)).cloned()
}

/// The lane count in a variant name (`_ZGVdN8vv_f` -> 8).
fn lanes(variant: &str) -> usize {
    variant[6..].chars().take_while(char::is_ascii_digit).collect::<String>().parse().unwrap_or(0)
}

/// The programs a run uses.
struct Tools {
    clang: PathBuf,
    gcc: PathBuf,
    llvm_dis: PathBuf,
    batchify: PathBuf,
}

/// What was built for one kernel.
#[derive(Debug)]
struct Built {
    objects: Vec<PathBuf>,
    /// Per batchify config id: the variant name, or why there is none.
    bf: Vec<(&'static str, Result<String, String>)>,
    /// GCC's AVX2 variant, or why there is none.
    gcc: Result<String, String>,
    /// Every AVX2 variant GCC emitted.
    gcc_all: Vec<String>,
    /// batchify's `--report` lines and warnings (default configuration).
    report: Vec<String>,
    /// Whether a configuration with extra flags was built (link libmvec).
    extra_flags_built: bool,
}

fn c_size(ty: &str) -> usize {
    match ty.trim() {
        "double" | "long" | "long long" | "unsigned long" | "unsigned long long" | "int64_t" | "uint64_t" => 8,
        _ => 4,
    }
}

fn build_kernel(k: &Kernel, tools: &Tools, dir: &Path) -> Result<Built, String> {
    let src = &k.path;
    let name = &k.name;
    let obj = |tag: &str| dir.join(format!("{name}.{tag}.o"));
    let mut objects = Vec::new();

    // (c) the scalar function, called through a real call from the driver.
    let sc = obj("sc");
    util::output(
        Command::new(&tools.clang)
            .args(CLANG_SCALAR_FLAGS)
            .arg(format!("-D{name}=sc_{name}"))
            .arg("-c")
            .arg(src)
            .arg("-o")
            .arg(&sc),
        true,
    )?;
    objects.push(sc);

    // (a) GCC 12 with its own clones (and its own scalar function gcc_NAME).
    let gcc_o = obj("gcc");
    util::output(
        Command::new(&tools.gcc)
            .args(GCC_FLAGS)
            .arg(format!("-D{name}=gcc_{name}"))
            .arg("-c")
            .arg(src)
            .arg("-o")
            .arg(&gcc_o),
        true,
    )?;
    let nm = util::output(Command::new("nm").arg(&gcc_o), true)?;
    let gcc_all = avx2_variants(&String::from_utf8_lossy(&nm.stdout), &format!("gcc_{name}"));
    let gcc = pick_variant(&gcc_all, k.mask.is_some()).ok_or_else(|| {
        format!(
            "GCC emitted no AVX2 {} variant (has: {})",
            if k.mask.is_some() { "masked" } else { "unmasked" },
            gcc_all.join(" ")
        )
    });
    objects.push(gcc_o);

    // (b) clang to bitcode, batchify, clang to an object; once per configuration.
    let mut bf = Vec::new();
    let mut report = Vec::new();
    let mut extra_flags_built = false;
    for cfg in BATCHIFY_CONFIGS {
        if cfg.veclib_only && !k.veclib {
            continue;
        }
        let prefix = format!("{}_{name}", cfg.id);
        let bc = dir.join(format!("{name}.{}.bc", cfg.id));
        util::output(
            Command::new(&tools.clang)
                .args(CLANG_BC_FLAGS)
                .arg(format!("-D{name}={prefix}"))
                .args(["-c", "-emit-llvm"])
                .arg(src)
                .arg("-o")
                .arg(&bc),
            true,
        )?;
        let dis = util::output(Command::new(&tools.llvm_dis).arg(&bc).arg("-o").arg("-"), true)?;
        let declared = avx2_variants(&String::from_utf8_lossy(&dis.stdout), &prefix);
        let Some(variant) = pick_variant(&declared, k.mask.is_some()) else {
            bf.push((cfg.id, Err(format!("clang declared no AVX2 variant (has: {})", declared.join(" ")))));
            continue;
        };
        let out_bc = dir.join(format!("{name}.{}.batched.bc", cfg.id));
        let mut cmd = Command::new(&tools.batchify);
        cmd.arg(&bc).arg("-o").arg(&out_bc).args(["--variant", &variant, "--report"]).args(cfg.flags);
        let line = util::show(&cmd);
        let res = cmd.output().map_err(|e| format!("cannot run `{line}`: {e}"))?;
        let stderr = String::from_utf8_lossy(&res.stderr).to_string();
        if !res.status.success() {
            let rejects_flag = cfg.flags.iter().any(|f| f.starts_with("--") && stderr.contains(f));
            if rejects_flag {
                let why = stderr.lines().find(|l| !l.trim().is_empty()).unwrap_or("").trim().to_string();
                bf.push((cfg.id, Err(format!("n/a: batchify rejects `{}`: {why}", cfg.flags.join(" ")))));
                continue;
            }
            return Err(format!("`{line}` failed:\n{stderr}"));
        }
        if cfg.flags.is_empty() {
            report = stderr.lines().map(|l| l.trim_start_matches("batchify: ").to_string()).collect();
        } else {
            extra_flags_built = true;
        }
        let o = obj(cfg.id);
        util::output(
            Command::new(&tools.clang).args(CLANG_SCALAR_FLAGS).arg("-c").arg(&out_bc).arg("-o").arg(&o),
            true,
        )?;
        objects.push(o);
        bf.push((cfg.id, Ok(variant)));
    }

    // (d) clang -O3 loop with the kernel inlined in the same translation unit.
    let inl_c = dir.join(format!("{name}.inl.c"));
    std::fs::write(&inl_c, gen_inlined(k)).map_err(|e| format!("cannot write {}: {e}", inl_c.display()))?;
    let inl = obj("in");
    util::output(
        Command::new(&tools.clang)
            .args(CLANG_INLINED_FLAGS)
            .arg(format!("-D{name}=in_{name}"))
            .arg("-c")
            .arg(&inl_c)
            .arg("-o")
            .arg(&inl),
        true,
    )?;
    objects.push(inl);
    Ok(Built { objects, bf, gcc, gcc_all, report, extra_flags_built })
}

/// Arguments of a call to the kernel at element `i`: `vector` loads the
/// varying ones as vectors of type `kQ_v<name>`; `lin` names the array
/// that linear pointers point into.
fn call_args(k: &Kernel, q: usize, vector: bool, lin: &dyn Fn(&Param) -> String) -> Vec<String> {
    k.params
        .iter()
        .map(|p| match p.kind {
            Kind::Varying if vector => format!("*(k{q}_v{} *)(k{q}_{} + i)", p.name, p.name),
            Kind::Varying => format!("k{q}_{}[i]", p.name),
            Kind::Uniform => format!("({})", p.init),
            Kind::Table => format!("k{q}_{}", p.name),
            Kind::Linear => format!("{} + i * ({})", lin(p), p.extent),
            Kind::Index => format!("({})i", p.ty),
        })
        .collect()
}

/// The translation unit of the inlined loop: the kernel file itself, then
/// `loop_in_NAME` over the arrays.
fn gen_inlined(k: &Kernel) -> String {
    let name = &k.name;
    let mut params = vec!["long n".to_string()];
    if k.ret != "void" {
        params.push(format!("{} *restrict out", k.ret));
    }
    for p in &k.params {
        match p.kind {
            Kind::Varying => params.push(format!("const {} *restrict p_{}", p.ty, p.name)),
            Kind::Table => params.push(format!("const {} *restrict p_{}", p.elem(), p.name)),
            Kind::Linear => params.push(format!("{} *restrict p_{}", p.elem(), p.name)),
            _ => {}
        }
    }
    if k.mask.is_some() {
        params.push(format!("const {} *restrict mask", mask_int(k)));
    }
    let args: Vec<String> = k
        .params
        .iter()
        .map(|p| match p.kind {
            Kind::Varying => format!("p_{}[i]", p.name),
            Kind::Uniform => format!("({})", p.init),
            Kind::Table => format!("p_{}", p.name),
            Kind::Linear => format!("p_{} + i * ({})", p.name, p.extent),
            Kind::Index => format!("({})i", p.ty),
        })
        .collect();
    let call = format!("in_{name}({})", args.join(", "));
    let body = match (&k.mask, k.ret.as_str()) {
        (None, "void") => format!("{call};"),
        (None, _) => format!("out[i] = {call};"),
        (Some(_), "void") => format!("if (mask[i]) {call};"),
        (Some(_), _) => format!("out[i] = mask[i] ? {call} : 0;"),
    };
    format!(
        "/* Generated by `cargo xtask bench-gcc`: {name} inlined into a loop (clang -O3). */\n\
         #include <stdint.h>\n#include \"{}\"\n\n\
         void loop_in_{name}({}) {{\n    for (long i = 0; i < n; i++)\n        {body}\n}}\n",
        k.path.display(),
        params.join(", ")
    )
}

/// The integer type of a mask element (the characteristic type's size).
fn mask_int(k: &Kernel) -> &'static str {
    if c_size(&k.char_type()) == 8 {
        "int64_t"
    } else {
        "int32_t"
    }
}

const DRIVER_PRELUDE: &str = r#"/* Generated by `cargo xtask bench-gcc`: fills the inputs, checks every
   version against its reference and times them (thread CPU time). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { SC, BF, GCC, IN, BFV, GSC, BSC, NV };
static const char *vname[NV] = {"sc", "bf", "gcc", "in", "bfv", "gsc", "bsc"};

static uint64_t rng;
static void rng_seed(uint64_t s) { rng = s ? s : 1; }
static uint32_t rnd_u32(void) {
    rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
    return (uint32_t)(rng >> 16);
}
static float rnd01(void) { return (float)(rnd_u32() >> 8) * (1.0f / 16777216.0f); }
static float rnd_range(float a, float b) { return a + (b - a) * rnd01(); }
static double rnd_range_d(double a, double b) { return a + (b - a) * ((double)(rnd_u32() >> 1) / 2147483648.0); }
static int rnd_int(int a, int b) { return a + (int)(rnd_u32() % (uint32_t)(b - a + 1)); }
static long grid_side(long n) { long s = (long)sqrt((double)n); while (s * s > n) s--; return s > 0 ? s : 1; }
static float grid_x(long i, long n) { long s = grid_side(n); return -2.0f + 3.0f * (float)(i % s) / (float)s; }
static float grid_y(long i, long n) { long s = grid_side(n); return -1.5f + 3.0f * (float)((i / s) % s) / (float)s; }

/* 64-byte aligned, zeroed; successive arrays start at different offsets
   modulo 4 KiB, so that no two arrays alias in the store-to-load
   forwarding check (4K aliasing), whatever malloc does. */
static void *xalloc(size_t bytes) {
    static unsigned count;
    size_t offset = (size_t)(count++ * 7 % 64) * 64, size = (bytes + 63) / 64 * 64 + offset;
    char *p = aligned_alloc(4096, (size + 4095) / 4096 * 4096);
    if (!p) { fprintf(stderr, "out of memory\n"); exit(2); }
    memset(p, 0, size);
    return p + offset;
}
static double now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

/* Mismatches beyond tol ulps (two NaNs match), the largest distance, the first index. */
static int64_t ord32(uint32_t b) { return (b & 0x80000000u) ? -(int64_t)(b & 0x7fffffffu) : (int64_t)b; }
static int64_t ord64(uint64_t b) { return (b >> 63) ? -(int64_t)(b & 0x7fffffffffffffffull) : (int64_t)b; }
static void cmp_f32(const float *a, const float *b, long n, double tol, long *bad, double *maxd, long *first) {
    for (long i = 0; i < n; i++) {
        if (isnan(a[i]) && isnan(b[i])) continue;
        uint32_t x, y; memcpy(&x, a + i, 4); memcpy(&y, b + i, 4);
        double d = isnan(a[i]) || isnan(b[i]) ? 1e30 : (double)llabs(ord32(x) - ord32(y));
        if (d > *maxd) *maxd = d;
        if (d > tol) { if (*bad == 0) *first = i; ++*bad; }
    }
}
static void cmp_f64(const double *a, const double *b, long n, double tol, long *bad, double *maxd, long *first) {
    for (long i = 0; i < n; i++) {
        if (isnan(a[i]) && isnan(b[i])) continue;
        uint64_t x, y; memcpy(&x, a + i, 8); memcpy(&y, b + i, 8);
        int64_t p = ord64(x), q = ord64(y);
        uint64_t u = p >= q ? (uint64_t)p - (uint64_t)q : (uint64_t)q - (uint64_t)p;
        double d = isnan(a[i]) || isnan(b[i]) ? 1e30 : (double)u;
        if (d > *maxd) *maxd = d;
        if (d > tol) { if (*bad == 0) *first = i; ++*bad; }
    }
}
static void cmp_int(const void *a, const void *b, long n, size_t size, long *bad, double *maxd, long *first) {
    for (long i = 0; i < n; i++)
        if (memcmp((const char *)a + i * size, (const char *)b + i * size, size)) {
            if (*bad == 0) *first = i;
            ++*bad;
        }
}

struct kernel {
    const char *name;
    void (*fill)(long);
    void (*reset)(int, long);
    void (*run)(int, long);
    void (*check)(int, int, long, double, long *, double *, long *);
    int avail[NV];
    double ulp;
};
"#;

const DRIVER_MAIN: &str = r#"
int main(int argc, char **argv) {
    long n = argc > 1 ? atol(argv[1]) : 65536;
    int reps = argc > 2 ? atoi(argv[2]) : 5;
    const char *only = argc > 3 ? argv[3] : 0;
    for (size_t q = 0; q < sizeof kernels / sizeof kernels[0]; q++) {
        struct kernel *k = &kernels[q];
        if (only && strcmp(only, k->name)) continue;
        k->fill(n);
        for (int v = 0; v < NV; v++)
            if (k->avail[v]) { k->reset(v, n); k->run(v, n); }
        /* version, reference, ulp bound */
        static const int pairs[][2] = {{BF, SC}, {BFV, SC}, {GCC, GSC}, {IN, SC}, {GSC, SC}, {BSC, SC}};
        for (int p = 0; p < 6; p++) {
            int v = pairs[p][0], r = pairs[p][1];
            if (!k->avail[v] || !k->avail[r]) continue;
            long bad = 0, first = -1; double maxd = 0;
            k->check(v, r, n, v == BFV ? k->ulp : 0.0, &bad, &maxd, &first);
            printf("CHECK %s %s %s %ld %g %ld\n", k->name, vname[v], vname[r], bad, maxd, first);
        }
        /* Repeat each timed run so that the scalar one takes about 3 ms. */
        double t0 = now_ns(); k->run(SC, n); double tsc = now_ns() - t0;
        int inner = (int)(3e6 / (tsc > 1.0 ? tsc : 1.0)) + 1;
        if (inner > 64) inner = 64;
        int order[NV], m = 0;
        for (int v = 0; v < NV; v++) if (k->avail[v] && v != GSC) order[m++] = v;
        for (int r = 0; r < reps; r++)
            for (int o = 0; o < m; o++) {
                int v = order[(o + r) % m];
                k->reset(v, n);
                double a = now_ns();
                for (int t = 0; t < inner; t++) k->run(v, n);
                double b = now_ns();
                printf("TIME %s %s %d %.4f\n", k->name, vname[v], r, (b - a) / ((double)n * inner));
            }
        fflush(stdout);
    }
    return 0;
}
"#;

fn fnv(s: &str) -> u64 {
    s.bytes().fold(0xcbf29ce484222325u64, |h, b| (h ^ b as u64).wrapping_mul(0x100000001b3))
}

/// The driver's part for kernel number `q`.
fn gen_kernel_driver(k: &Kernel, q: usize, built: &Built) -> String {
    let name = &k.name;
    let mut o = String::new();
    let ret = k.ret.as_str();
    let has_ret = ret != "void";
    let _ = writeln!(o, "/* ==== {name} ==== */");
    if has_ret {
        let _ = writeln!(o, "static {ret} *k{q}_out[NV];");
    }
    for p in &k.params {
        match p.kind {
            Kind::Varying => {
                let _ = writeln!(o, "static {} *k{q}_{};", p.ty, p.name);
            }
            Kind::Table => {
                let _ = writeln!(o, "static {} *k{q}_{};", p.elem(), p.name);
            }
            Kind::Linear => {
                let _ = writeln!(o, "static {} *k{q}_{}_master, *k{q}_{}_v[NV];", p.elem(), p.name, p.name);
            }
            _ => {}
        }
    }
    let mi = mask_int(k);
    if k.mask.is_some() {
        let _ = writeln!(o, "static {mi} *k{q}_mask;");
    }
    let proto: Vec<String> = k.params.iter().map(|p| p.ty.clone()).collect();
    let proto = if proto.is_empty() { "void".to_string() } else { proto.join(", ") };
    let _ = writeln!(o, "extern {ret} sc_{name}({proto});\nextern {ret} gcc_{name}({proto});");
    if built.bf.iter().any(|(c, r)| *c == "bf" && r.is_ok()) {
        let _ = writeln!(o, "extern {ret} bf_{name}({proto});");
    }

    // Vector variants: one lane count per kernel (the same in GCC's and clang's names).
    let variants: Vec<(usize, String)> = [(V_BF, "bf"), (V_BFV, "bfv")]
        .iter()
        .filter_map(|(v, id)| {
            built.bf.iter().find(|(c, _)| c == id).and_then(|(_, r)| r.as_ref().ok()).map(|n| (*v, n.clone()))
        })
        .chain(built.gcc.as_ref().ok().map(|n| (V_GCC, n.clone())))
        .collect();
    let lanes_n = variants.first().map(|(_, n)| lanes(n)).unwrap_or(8);
    let ct = k.char_type();
    let _ = writeln!(o, "typedef {ct} k{q}_vc __attribute__((vector_size({lanes_n} * sizeof({ct}))));");
    let _ = writeln!(o, "typedef {mi} k{q}_vmi __attribute__((vector_size({lanes_n} * sizeof({mi}))));");
    if has_ret {
        let _ = writeln!(o, "typedef {ret} k{q}_vr __attribute__((vector_size({lanes_n} * sizeof({ret}))));");
    }
    let mut vproto: Vec<String> = Vec::new();
    for p in &k.params {
        if p.kind == Kind::Varying {
            let _ = writeln!(
                o,
                "typedef {} k{q}_v{} __attribute__((vector_size({lanes_n} * sizeof({}))));",
                p.ty, p.name, p.ty
            );
            vproto.push(format!("k{q}_v{}", p.name));
        } else {
            vproto.push(p.ty.clone());
        }
    }
    if k.mask.is_some() {
        vproto.push(format!("k{q}_vc"));
    }
    let vret = if has_ret { format!("k{q}_vr") } else { "void".into() };
    for (_, v) in &variants {
        let _ = writeln!(o, "extern {vret} {v}({});", vproto.join(", "));
    }
    // The inlined loop.
    let mut lparams = vec!["long".to_string()];
    let mut largs = vec!["n".to_string()];
    if has_ret {
        lparams.push(format!("{ret} *"));
        largs.push(format!("k{q}_out[v]"));
    }
    for p in &k.params {
        match p.kind {
            Kind::Varying => {
                lparams.push(format!("const {} *", p.ty));
                largs.push(format!("k{q}_{}", p.name));
            }
            Kind::Table => {
                lparams.push(format!("const {} *", p.elem()));
                largs.push(format!("k{q}_{}", p.name));
            }
            Kind::Linear => {
                lparams.push(format!("{} *", p.elem()));
                largs.push(format!("k{q}_{}_v[v]", p.name));
            }
            _ => {}
        }
    }
    if k.mask.is_some() {
        lparams.push(format!("const {mi} *"));
        largs.push(format!("k{q}_mask"));
    }
    let _ = writeln!(o, "extern void loop_in_{name}({});", lparams.join(", "));

    // fill
    let _ = writeln!(o, "static void k{q}_fill(long n) {{\n    rng_seed({}ull);", fnv(name));
    for p in &k.params {
        match p.kind {
            Kind::Varying => {
                let _ = writeln!(
                    o,
                    "    k{q}_{0} = xalloc(n * sizeof(*k{q}_{0}));\n    for (long i = 0; i < n; i++) k{q}_{0}[i] = ({1})({2});",
                    p.name, p.ty, p.init
                );
            }
            Kind::Table => {
                let _ = writeln!(
                    o,
                    "    {{ long len = {1}; k{q}_{0} = xalloc(len * sizeof(*k{q}_{0}));\n      for (long j = 0; j < len; j++) k{q}_{0}[j] = ({2})({3}); }}",
                    p.name, p.extent, p.elem(), p.init
                );
            }
            Kind::Linear => {
                let _ = writeln!(
                    o,
                    "    {{ long len = (n + 1) * ({1}); k{q}_{0}_master = xalloc(len * sizeof({2}));\n      for (long j = 0; j < len; j++) k{q}_{0}_master[j] = ({2})({3});\n      for (int v = 0; v < NV; v++) k{q}_{0}_v[v] = xalloc(len * sizeof({2})); }}",
                    p.name, p.extent, p.elem(), p.init
                );
            }
            _ => {}
        }
    }
    if has_ret {
        let _ = writeln!(o, "    for (int v = 0; v < NV; v++) k{q}_out[v] = xalloc(n * sizeof({ret}));");
    }
    if let Some(m) = &k.mask {
        let _ = writeln!(o, "    k{q}_mask = xalloc(n * sizeof({mi}));\n    {{");
        for p in &k.params {
            if p.kind == Kind::Varying {
                let _ = writeln!(o, "        const {} *{} = k{q}_{};", p.ty, p.name, p.name);
            }
        }
        let _ = writeln!(o, "        for (long i = 0; i < n; i++) k{q}_mask[i] = ({m}) ? -1 : 0;\n    }}");
    }
    let _ = writeln!(o, "}}");

    // reset
    let _ = writeln!(o, "static void k{q}_reset(int v, long n) {{");
    for p in &k.params {
        if p.kind == Kind::Linear {
            let _ = writeln!(
                o,
                "    memcpy(k{q}_{0}_v[v], k{q}_{0}_master, (n + 1) * ({1}) * sizeof({2}));",
                p.name,
                p.extent,
                p.elem()
            );
        }
    }
    let _ = writeln!(o, "    (void)v; (void)n;\n}}");

    // run
    let _ = writeln!(o, "static void k{q}_run(int v, long n) {{");
    if has_ret {
        let _ = writeln!(o, "    {ret} *out = k{q}_out[v]; (void)out;");
    }
    let _ = writeln!(o, "    switch (v) {{");
    let lin = |p: &Param| format!("k{q}_{}_v[v]", p.name);
    let has_bf = built.bf.iter().any(|(c, r)| *c == "bf" && r.is_ok());
    let scalars = [(V_SC, format!("sc_{name}")), (V_GSC, format!("gcc_{name}")), (V_BSC, format!("bf_{name}"))];
    for (v, fname) in scalars.into_iter().filter(|(v, _)| *v != V_BSC || has_bf) {
        let call = format!("{fname}({})", call_args(k, q, false, &lin).join(", "));
        let body = match (&k.mask, has_ret) {
            (None, false) => format!("{call};"),
            (None, true) => format!("out[i] = {call};"),
            (Some(_), false) => format!("if (k{q}_mask[i]) {call};"),
            (Some(_), true) => format!("out[i] = k{q}_mask[i] ? {call} : 0;"),
        };
        let _ = writeln!(o, "    case {}: for (long i = 0; i < n; i++) {body} break;", VERSIONS[v].to_uppercase());
    }
    for (v, fname) in &variants {
        let mut args = call_args(k, q, true, &lin);
        if k.mask.is_some() {
            args.push(format!("(k{q}_vc)m"));
        }
        let call = format!("{fname}({})", args.join(", "));
        let body = match (&k.mask, has_ret) {
            (None, false) => format!("{call};"),
            (None, true) => format!("*(k{q}_vr *)(out + i) = {call};"),
            (Some(_), false) => format!("k{q}_vmi m = *(k{q}_vmi *)(k{q}_mask + i); {call};"),
            (Some(_), true) => {
                format!("k{q}_vmi m = *(k{q}_vmi *)(k{q}_mask + i); *(k{q}_vmi *)(out + i) = (k{q}_vmi)({call}) & m;")
            }
        };
        let _ = writeln!(
            o,
            "    case {}: for (long i = 0; i < n; i += {lanes_n}) {{ {body} }} break;",
            VERSIONS[*v].to_uppercase()
        );
    }
    let _ = writeln!(o, "    case IN: loop_in_{name}({}); break;", largs.join(", "));
    let _ = writeln!(o, "    default: break;\n    }}\n}}");

    // check
    let cmp = |ty: &str, a: &str, b: &str, len: &str| match ty.trim() {
        "float" => format!("cmp_f32({a}, {b}, {len}, tol, bad, maxd, first);"),
        "double" => format!("cmp_f64({a}, {b}, {len}, tol, bad, maxd, first);"),
        t => format!("cmp_int({a}, {b}, {len}, sizeof({t}), bad, maxd, first);"),
    };
    let _ = writeln!(
        o,
        "static void k{q}_check(int v, int r, long n, double tol, long *bad, double *maxd, long *first) {{"
    );
    if has_ret {
        let _ = writeln!(o, "    {}", cmp(ret, &format!("k{q}_out[v]"), &format!("k{q}_out[r]"), "n"));
    }
    for p in &k.params {
        if p.kind == Kind::Linear {
            let _ = writeln!(
                o,
                "    {}",
                cmp(
                    &p.elem(),
                    &format!("k{q}_{}_v[v]", p.name),
                    &format!("k{q}_{}_v[r]", p.name),
                    &format!("(n + 1) * ({})", p.extent)
                )
            );
        }
    }
    let _ = writeln!(o, "    (void)tol;\n}}\n");
    o
}

fn gen_driver(ks: &[(Kernel, Built)]) -> String {
    let mut o = String::from(DRIVER_PRELUDE);
    for (q, (k, b)) in ks.iter().enumerate() {
        o.push_str(&gen_kernel_driver(k, q, b));
    }
    o.push_str("static struct kernel kernels[] = {\n");
    for (q, (k, b)) in ks.iter().enumerate() {
        let has = |id: &str| b.bf.iter().any(|(c, r)| *c == id && r.is_ok()) as u8;
        let avail = [1, has("bf"), b.gcc.is_ok() as u8, 1, has("bfv"), 1, has("bf")];
        let avail: Vec<String> = avail.iter().map(u8::to_string).collect();
        let _ = writeln!(
            o,
            "    {{\"{}\", k{q}_fill, k{q}_reset, k{q}_run, k{q}_check, {{{}}}, {}}},",
            k.name,
            avail.join(", "),
            k.ulp
        );
    }
    o.push_str("};\n");
    o.push_str(DRIVER_MAIN);
    o
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

/// Builds every kernel, on two threads.
fn build_all(all: &[Kernel], tools: &Tools, dir: &Path) -> Result<Vec<(Kernel, Built)>, String> {
    let next = std::sync::atomic::AtomicUsize::new(0);
    let results: std::sync::Mutex<Vec<Option<Result<Built, String>>>> =
        std::sync::Mutex::new((0..all.len()).map(|_| None).collect());
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                if i >= all.len() {
                    break;
                }
                let r = build_kernel(&all[i], tools, dir);
                results.lock().expect("no panics while held")[i] = Some(r);
            });
        }
    });
    let results = results.into_inner().map_err(|_| "a build thread panicked".to_string())?;
    all.iter()
        .zip(results)
        .map(|(k, r)| match r {
            Some(Ok(b)) => Ok((k.clone(), b)),
            Some(Err(e)) => Err(format!("{}: {e}", k.name)),
            None => Err(format!("{}: not built", k.name)),
        })
        .collect()
}

fn cell(s: Option<Stat>) -> String {
    match s {
        Some(s) => format!("{:.2} ({:.2}–{:.2})", s.median, s.min, s.max),
        None => "n/a".into(),
    }
}

fn ratio(a: Option<Stat>, b: Option<Stat>) -> Option<f64> {
    Some(a?.median / b?.median)
}

fn geomean(xs: &[f64]) -> Option<f64> {
    if xs.is_empty() {
        return None;
    }
    Some((xs.iter().map(|x| x.ln()).sum::<f64>() / xs.len() as f64).exp())
}

fn times_x(x: Option<f64>) -> String {
    x.map(|x| format!("{x:.2}×")).unwrap_or_else(|| "n/a".into())
}

/// The short note on how batchify built a clone, from its `--report`.
fn report_note(b: &Built) -> String {
    if let Some(w) = b.report.iter().find(|l| l.contains("per-lane loop over the scalar function")) {
        let why = w.split("scalar function:").nth(1).unwrap_or("").trim();
        return format!("**per-lane loop** ({why})");
    }
    let per_lane = b
        .report
        .iter()
        .find(|l| l.contains(" lanes, "))
        .and_then(|l| l.split(", ").find(|p| p.ends_with(" per-lane")))
        .and_then(|p| p.trim_end_matches(" per-lane").trim().parse::<u32>().ok())
        .unwrap_or(0);
    let details: Vec<&str> = b.report.iter().filter_map(|l| l.trim().strip_prefix("per-lane: ")).collect();
    if per_lane > 0 {
        format!("{per_lane} per-lane ({})", details.join(", "))
    } else {
        String::new()
    }
}

/// The note for a clone slower than scalar calls: "**slower than scalar**"
/// where every repetition of the clone took longer than every repetition
/// of both scalar versions; a note on code placement where that holds for
/// the separately compiled scalar function only (the clone and the scalar
/// function of its own object call the same copies of their callees); "as
/// fast as scalar within the spread" where the medians say slower but the
/// repetitions' ranges overlap.
fn slower_note(sc: Option<Stat>, bsc: Option<Stat>, bf: Option<Stat>) -> Option<String> {
    let (sc, bf) = (sc?, bf?);
    if bf.median <= sc.median {
        return None;
    }
    let clearly = |s: Stat| bf.min > s.max;
    Some(match (clearly(sc), bsc.is_none_or(clearly)) {
        (true, true) => "**slower than scalar**".into(),
        (true, false) => {
            "slower than the other object's scalar calls, not than its own object's (code placement)".into()
        }
        (false, _) => "as fast as scalar within the spread (the repetitions' ranges overlap)".into(),
    })
}

fn results_table(
    built: &[(Kernel, Built)],
    times: &std::collections::BTreeMap<(String, String), Vec<f64>>,
    checks: &[Check],
    opts: &Opts,
) -> String {
    let get = |k: &str, v: &str| times.get(&(k.to_string(), v.to_string())).cloned().and_then(stat);
    let extra_title = BATCHIFY_CONFIGS.iter().find(|c| c.id == "bfv").map(|c| c.title).unwrap_or("bfv");
    let mut t = format!(
        "| kernel | lanes | scalar calls | scalar calls, batchify's object | batchify | GCC 12 | clang -O3 inlined | {extra_title} | batchify vs scalar | batchify vs scalar, same object | batchify vs GCC | GCC vs scalar | notes |\n\
         | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |\n"
    );
    let (mut vs_sc, mut vs_gcc, mut gcc_sc, mut in_sc, mut bfv_sc) = (vec![], vec![], vec![], vec![], vec![]);
    let mut vs_bsc = vec![];
    for (k, b) in built {
        let n = &k.name;
        let (sc, bf, gcc, inl, bfv) = (get(n, "sc"), get(n, "bf"), get(n, "gcc"), get(n, "in"), get(n, "bfv"));
        let bsc = get(n, "bsc");
        let r_bsc = ratio(bsc, bf);
        vs_bsc.extend(r_bsc);
        let lanes_n = b.bf.iter().find_map(|(_, r)| r.as_ref().ok()).map(|v| lanes(v).to_string()).unwrap_or_default();
        let r_sc = ratio(sc, bf);
        let r_gcc = ratio(gcc, bf);
        let r_gs = ratio(sc, gcc);
        vs_sc.extend(r_sc);
        vs_gcc.extend(r_gcc);
        gcc_sc.extend(r_gs);
        in_sc.extend(ratio(sc, inl));
        bfv_sc.extend(ratio(sc, bfv));
        let mut notes = vec![report_note(b)];
        notes.extend(slower_note(sc, bsc, bf));
        for c in checks.iter().filter(|c| &c.kernel == n && c.bad > 0) {
            let what = match c.version.as_str() {
                "gsc" => "GCC's scalar function differs from clang's".to_string(),
                "bsc" => "the scalar function in batchify's object differs from clang's".to_string(),
                "gcc" => "GCC's clone differs from GCC's scalar function".to_string(),
                "in" => "clang -O3 loop differs from the scalar calls".to_string(),
                v => format!("**{v} MISMATCH**"),
            };
            notes.push(format!("{what} in {}/{} elements", c.bad, opts.n));
        }
        if let Some(max) = checks.iter().find(|c| &c.kernel == n && c.version == "bfv").map(|c| c.maxd.clone()) {
            if max != "0" {
                notes.push(format!("libmvec: max {max} ulp (bound {})", k.ulp));
            }
        }
        let bfv_cell = match b.bf.iter().find(|(c, _)| *c == "bfv") {
            None => "—".to_string(),
            Some((_, Err(_))) => "n/a".to_string(),
            Some((_, Ok(_))) => cell(bfv),
        };
        let notes: Vec<String> = notes.into_iter().filter(|s| !s.is_empty()).collect();
        let _ = writeln!(
            t,
            "| {n} | {lanes_n} | {} | {} | {} | {} | {} | {bfv_cell} | {} | {} | {} | {} | {} |",
            cell(sc),
            cell(bsc),
            cell(bf),
            cell(gcc),
            cell(inl),
            times_x(r_sc),
            times_x(r_bsc),
            times_x(r_gcc),
            times_x(r_gs),
            notes.join("; ")
        );
    }
    let _ = writeln!(
        t,
        "| **geomean** ({} kernels) | | | | | | clang -O3 vs scalar: {} | vs scalar: {} | **{}** | {} | **{}** | {} | |",
        vs_sc.len(),
        times_x(geomean(&in_sc)),
        times_x(geomean(&bfv_sc)),
        times_x(geomean(&vs_sc)),
        times_x(geomean(&vs_bsc)),
        times_x(geomean(&vs_gcc)),
        times_x(geomean(&gcc_sc)),
    );
    t
}

fn results_markdown(
    table: &str,
    built: &[(Kernel, Built)],
    opts: &Opts,
    gcc: &str,
    tools: &Tools,
    (secs, load): (f64, &str),
) -> String {
    let git = Command::new("git")
        .args(["rev-parse", "--short", "HEAD"])
        .current_dir(util::root())
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default();
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .map(|l| l.split(':').nth(1).unwrap_or("").trim().to_string())
        })
        .unwrap_or_default();
    let clang = tool_version(&tools.clang).unwrap_or_default();
    let mut m = String::new();
    let _ = writeln!(m, "# bench-gcc results\n");
    let _ = writeln!(
        m,
        "Command: `cargo xtask bench-gcc{}`; {} elements per repetition, {} repetitions per version in each of {} \
         processes (pooled), interleaved; \
         thread CPU time, ns per element, median (min–max). Commit `{git}`; CPU `{cpu}` ({} logical CPUs); {gcc}; {clang}. \
         The driver ran {secs:.0} s; 1-minute load average {load}.\n",
        if opts.smoke { " --smoke" } else { "" },
        opts.n,
        opts.reps,
        opts.processes,
        std::thread::available_parallelism().map(|n| n.get()).unwrap_or(0),
    );
    m.push_str(table);
    let _ = writeln!(
        m,
        "\n## Kernels\n\n| kernel | what it exercises | variant | GCC's AVX2 variants |\n| --- | --- | --- | --- |"
    );
    for (k, b) in built {
        let v = b.bf.iter().find_map(|(_, r)| r.as_ref().ok()).cloned().unwrap_or_else(|| "n/a".into());
        let _ = writeln!(m, "| {} | {} | `{v}` | {} |", k.name, k.about.replace('|', "\\|"), b.gcc_all.join(", "));
    }
    let _ = writeln!(m, "\n## batchify --report\n\n```");
    for (_, b) in built {
        for l in &b.report {
            let _ = writeln!(m, "{l}");
        }
    }
    let _ = writeln!(m, "```");
    let na: Vec<String> = built
        .iter()
        .flat_map(|(k, b)| {
            b.bf.iter().filter_map(move |(c, r)| r.as_ref().err().map(|e| format!("{} ({c}): {e}", k.name)))
        })
        .collect();
    if !na.is_empty() {
        let _ = writeln!(m, "\nConfigurations not built:\n");
        for l in na {
            let _ = writeln!(m, "* {l}");
        }
    }
    m
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kernel_parses() {
        let ks = kernels().unwrap();
        assert!(ks.len() >= 24, "only {} kernels", ks.len());
        for k in &ks {
            assert!(!k.about.is_empty(), "{}: no comment saying what it exercises", k.name);
            let src = std::fs::read_to_string(&k.path).unwrap();
            assert!(src.contains("#pragma omp declare simd"), "{}: no declare simd", k.name);
        }
    }

    #[test]
    fn variant_names_are_found() {
        let nm = "0000 T _ZGVdN8vv_gcc_mandel\n0010 T _ZGVbN4vv_gcc_mandel\n0020 T _ZGVdM8vv_gcc_mandel2\n";
        assert_eq!(avx2_variants(nm, "gcc_mandel"), vec!["_ZGVdN8vv_gcc_mandel".to_string()]);
        assert_eq!(lanes("_ZGVdN4v_bf_bisect"), 4);
    }

    /// The driver's comparison: ulp distances, signed zeros, NaNs, bounds.
    #[test]
    fn driver_compares_in_ulps() {
        let Some(clang) =
            setup::llvm_prefix().ok().map(|p| Env { llvm_prefix: p }.clang()).filter(|c| tool_version(c).is_some())
        else {
            eprintln!("SKIPPED bench_gcc::tests::driver_compares_in_ulps: clang-22 is not installed");
            assert!(!util::tools_required(), "clang-22 is required");
            return;
        };
        let dir = std::env::temp_dir().join(format!("xtask-bench-gcc-cmp-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let src = dir.join("cmp.c");
        let test = r#"
int main(void) {
    float a[5] = {1.0f, 0.0f, NAN, 1.0f, -2.0f};
    float b[5] = {1.0f, -0.0f, NAN, 1.0f, -2.0f};
    b[3] = nextafterf(nextafterf(1.0f, 2.0f), 2.0f); /* 2 ulp */
    b[4] = nextafterf(-2.0f, 0.0f);                  /* 1 ulp, across the binade */
    long bad = 0, first = -1; double maxd = 0;
    cmp_f32(a, b, 5, 0.0, &bad, &maxd, &first);
    if (bad != 2 || maxd != 2.0 || first != 3) return 1;
    bad = 0; first = -1; maxd = 0;
    cmp_f32(a, b, 5, 2.0, &bad, &maxd, &first);
    if (bad != 0) return 2;
    float c[1] = {NAN}, d[1] = {1.0f};
    bad = 0; cmp_f32(c, d, 1, 4.0, &bad, &maxd, &first);
    if (bad != 1) return 3;
    double e[1] = {1.0}, f[1] = {0.0};
    f[0] = nextafter(1.0, 0.0);
    bad = 0; maxd = 0; cmp_f64(e, f, 1, 0.0, &bad, &maxd, &first);
    if (bad != 1 || maxd != 1.0) return 4;
    int g[2] = {1, 2}, h[2] = {1, 3};
    bad = 0; cmp_int(g, h, 2, sizeof(int), &bad, &maxd, &first);
    if (bad != 1 || first != 1) return 5;
    (void)vname; (void)rnd01; (void)rnd_range; (void)rnd_range_d; (void)rnd_int; (void)grid_x; (void)grid_y;
    (void)xalloc; (void)now_ns; (void)rng_seed;
    return 0;
}
"#;
        std::fs::write(&src, format!("{DRIVER_PRELUDE}{test}")).unwrap();
        let exe = dir.join("cmp");
        let out = Command::new(&clang).arg("-O2").arg(&src).arg("-o").arg(&exe).arg("-lm").output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let status = Command::new(&exe).status().unwrap();
        let _ = std::fs::remove_dir_all(&dir);
        assert!(status.success(), "cmp test failed: {status}");
    }

    /// `cargo xtask bench-gcc --smoke` with the batchify binary that `cargo
    /// build` made: a few kernels on tiny arrays, every version checked
    /// against the scalar function. Skips loudly without gcc, LLVM 22, AVX2
    /// or a built batchify (fails instead under `BATCHIFY_REQUIRE_TOOLS=1`).
    #[test]
    fn smoke() {
        let bin = ["debug", "release"].iter().map(|p| util::target_dir().join(p).join("batchify")).find(|p| p.exists());
        let skip = |why: &str| {
            eprintln!("SKIPPED bench_gcc::tests::smoke: {why}");
            assert!(!util::tools_required(), "bench-gcc smoke: {why} (BATCHIFY_REQUIRE_TOOLS is set)");
            if let Some(log) = std::env::var_os("BATCHIFY_SKIP_LOG") {
                use std::io::Write as _;
                if let Ok(mut f) = std::fs::OpenOptions::new().create(true).append(true).open(log) {
                    let _ = writeln!(f, "xtask bench_gcc::tests::smoke: {why}");
                }
            }
        };
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
