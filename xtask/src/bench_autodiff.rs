//! `cargo xtask bench-autodiff [--smoke] [--functions mandel,dense,particle]
//! [--lanes avx2x4,avx2x8,avx512x8] [--side N] [--reps R] [--batchify PATH]
//! [--out DIR] [--build-only] [--veclib libmvec]`: derivatives of three scalar functions of doubles on N×N
//! points each, computed by Enzyme and batchify in both orders
//! (docs/benchmarks.md, "Derivatives: Enzyme and batchify, in both
//! orders"), for the functions asked for (`--functions`, by default all of
//! [`FUNCTIONS`]):
//!
//! * `mandel`: the smooth Mandelbrot escape measure `smooth_mandel(cx, cy)`
//!   (`tests/autodiff/01_smooth_mandel.c`), a divergent loop of up to 200
//!   trips, on a grid;
//! * `dense`: a dense layer on one example, `dense(x0, x1, x2, x3)` =
//!   `sum_j v[j] * tanh(sum_i W[j][i] * x_i + b[j])` with 8 hidden units
//!   and constant tables (`benches/autodiff/dense.c`), on random
//!   standardized examples;
//! * `particle`: a particle's time step in a box, `particle(x, y, vx, vy)`,
//!   a `while` loop over wall bounces (at most 16) whose trip count differs
//!   per particle (`benches/autodiff/particle.c`), on random particles;
//!
//! in up to three configurations of lanes and ISA (`--lanes`; by default
//! every one the CPU can run):
//!
//! * `avx2x4`: 4 lanes on AVX2, `_ZGVdN4...`, one `<4 x double>` register
//!   per value, passed and returned by value;
//! * `avx2x8`: 8 lanes on AVX2, `_ZGVdN8...`, each `<8 x double>` passed
//!   as two `<4 x double>` halves and returned through a hidden `sret`
//!   pointer (GCC's lowering, docs/gcc-abi.md);
//! * `avx512x8`: 8 lanes on AVX-512, `_ZGVeN8...`, `<8 x double>` by value
//!   (skipped, loudly, where /proc/cpuinfo has no `avx512f`; `--build-only`
//!   builds it anyway, and every other configuration asked for, and stops
//!   before running the driver).
//!
//! Versions of a function `F` of K inputs, all in one driver process and
//! timed interleaved:
//!
//! * scalar Enzyme: `fwddiffeF` (K forward passes per point, seeds e_0 to
//!   e_{K-1}) and `diffeF` (one reverse pass), the reference of every
//!   configuration;
//! * per configuration C of L lanes, Enzyme of batchify (`enzyme-of-C`):
//!   Enzyme's forward and reverse mode of the L-lane `batchify
//!   --for-autodiff` clone (`_ZGVdN4vv_smooth_mandel`, ...);
//! * batchify of Enzyme (`C-of-enzyme`): batchify's L-lane clones of
//!   Enzyme's two scalar derivative functions
//!   (`_ZGVdN4vvvv_fwddiffesmooth_mandel`, `_ZGVdN4vvv_diffesmooth_mandel`,
//!   ...);
//! * and the primal: scalar calls against the L-lane clone.
//!
//! Build (files in `target/bench-autodiff/build`), one module for all the
//! functions and configurations:
//!
//! 1. `clang-22 -O2 -fno-vectorize -fno-unroll-loops -mavx2
//!    -DAD_DERIVATIVES -emit-llvm` of each function's program (its `AD_XY`
//!    or `AD_X4` macro then only asks Enzyme for the two scalar
//!    derivatives), linked, and per configuration and function of
//!    `benches/autodiff/enzyme_lanes.c` with `-DCFG=C -DLANES=L -DFUNC=F
//!    -DARITY=K` and the ISA's flag (`-mavx2` or `-mavx512f`): Enzyme's
//!    calls on the configuration's clone;
//! 2. `batchify --for-autodiff --no-fallback --variant` each configuration's
//!    clone of each function;
//! 3. `llvm-link` with `wrappers-C-F.ll`, the L-lane wrappers that this
//!    file writes per configuration and function ([`wrappers_ll`]; IR
//!    because C cannot declare the AVX2 8-lane clones' split parameters and
//!    `sret` result, nor the `{<L x double>, ...}` result of the batched
//!    reverse derivative), carrying the ISA's `target-features` and
//!    `min-legal-vector-width`;
//! 4. `opt-22 -load-pass-plugin=LLVMEnzyme-22.so -passes=enzyme`;
//! 5. `batchify --no-fallback --variant _ZGV?NLv..._fwddiffeF --variant
//!    _ZGV?NLv..._diffeF` per configuration and function on Enzyme's output
//!    (the derivative functions are internal; so are their clones, called
//!    by the wrappers of the same module), with `--veclib V` if asked
//!    (`--veclib libmvec`: glibc's vector `log`, `cosh`, ... in batchify
//!    of Enzyme, at most 4 ulp off), and then, with `--veclib V`,
//!    `batchify --lower-vector-math --veclib V` on the result: the vector
//!    math intrinsics of the `--for-autodiff` clones and of Enzyme's
//!    derivatives of them become the library's calls too (the step after
//!    Enzyme of docs/autodiff.md);
//! 6. `llvm-dis`, and `fast` flags replaced by `reassoc nnan ninf nsz arcp
//!    afn` (no `contract`; see below);
//! 7. `clang-22 -O2 -mavx2` of that module (each function is compiled for
//!    its own `target-features`: the `_ZGVe` clones and the AVX-512 wrappers
//!    and their Enzyme derivatives carry `+avx512f`) and of
//!    `benches/autodiff/driver.c` (another object: every call is a call;
//!    `-DFUNCS=...` and `-DCLONES=...` name the functions and the
//!    configurations built), linked.
//!
//! No `-mfma`: the comparisons stay about rounding in the derivative code,
//! not about where the final compile fuses multiplies and adds. AVX-512
//! implies FMA, but batchify's clones compute the source's `llvm.fmuladd`
//! as a multiply and an add, as the scalar AVX2 code does (the primal
//! clones match bit for bit), and Enzyme's derivative arithmetic carries
//! `fast` flags, whose `contract` let the final compile fuse multiplies and
//! adds in the AVX-512 Enzyme-of-batchify derivatives (forward mode then
//! differed from scalar Enzyme by up to 5.4e-12, beyond the 1e-12 bound):
//! step 6 takes `contract` off (batchify's clones already have it off; on
//! AVX2 it changes nothing), and the AVX-512 results match the AVX2 ones. The
//! scalar versions, one set for every configuration, are AVX2 code. The
//! driver checks every version against scalar Enzyme (it exits
//! non-zero beyond its bounds), then times them interleaved (thread CPU
//! time), `--reps` rounds (8 by default), cycling through four stack
//! shifts (the 8-lane AVX2 clones spill ymm registers into frames aligned
//! to 16 bytes only, and one run was 1.9× slower on one version than the
//! next with the same code; the table gives each shift's median too).

use crate::setup::{self, Env};
use crate::util::{self, green, header, red, stat, BenchOutcome};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Flags of the bitcode that Enzyme and batchify get: no loop vectorizer or
/// unrolling (Enzyme's advice). The ISA flag comes from the configuration
/// (`-mavx2` for the functions' programs; no `-mfma`, see the module doc).
const BC_FLAGS: &[&str] = &["-O2", "-fno-vectorize", "-fno-unroll-loops", "-Wno-everything"];
/// The driver's bound for forward derivatives with `--veclib` (else
/// 1e-10; reverse mode is 1e-9 either way).
const VECLIB_REL: &str = "1e-9";
/// The driver's bound for the primal with `--veclib` (else bit for bit):
/// the clones' `log`, `tanh`, ... are then up to 4 ulp off, and dense's
/// output is a sum whose terms partly cancel (5.4e-13 seen on 64×64 points).
const VECLIB_PRIMAL_REL: &str = "1e-10";
/// Flags of the final compile, of the kernels and of the driver (functions
/// with other `target-features` keep theirs).
const FINAL_FLAGS: &[&str] = &["-O2", "-mavx2"];

/// One function whose derivatives are measured.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Function {
    /// Its name in `--functions`, in the driver and in the tables.
    pub tag: &'static str,
    /// The C function: `double name(double, ...)`.
    pub name: &'static str,
    /// Its inputs, all active (2 or 4 doubles).
    pub inputs: u32,
    /// Its program, relative to the repository (with `-DAD_DERIVATIVES`
    /// it asks Enzyme for `fwddiffe<name>` and `diffe<name>`, called by
    /// `ad_forward_<name>` and `ad_reverse_<name>`).
    source: &'static str,
}

/// Every function, in table order.
pub const FUNCTIONS: &[Function] = &[
    Function { tag: "mandel", name: "smooth_mandel", inputs: 2, source: "tests/autodiff/01_smooth_mandel.c" },
    Function { tag: "dense", name: "dense", inputs: 4, source: "benches/autodiff/dense.c" },
    Function { tag: "particle", name: "particle", inputs: 4, source: "benches/autodiff/particle.c" },
];

/// One configuration of lanes and ISA.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Config {
    /// Its name in `--lanes` and in the driver's version names.
    pub name: &'static str,
    /// The vector ABI's ISA letter: `d` (AVX2) or `e` (AVX-512).
    isa: char,
    /// Lanes of the clones.
    pub lanes: u32,
    /// Registers per `<lanes x double>` value: 1 (passed and returned by
    /// value), or 2 (passed as two halves, returned through `sret`).
    parts: u32,
    /// The `/proc/cpuinfo` flag that the clones need.
    cpu_flag: &'static str,
    /// clang's flag for the ISA.
    clang_flag: &'static str,
    /// The `target-features` of the wrappers (clang's for `clang_flag`).
    features: &'static str,
}

const AVX2_FEATURES: &str =
    "+avx,+avx2,+cmov,+crc32,+cx8,+fxsr,+mmx,+popcnt,+sse,+sse2,+sse3,+sse4.1,+sse4.2,+ssse3,+x87,+xsave";
const AVX512_FEATURES: &str = "+avx,+avx2,+avx512f,+cmov,+crc32,+cx8,+f16c,+fma,+fxsr,+mmx,+popcnt,+sse,+sse2,+sse3,\
                               +sse4.1,+sse4.2,+ssse3,+x87,+xsave";

/// Every configuration, in table order.
pub const CONFIGS: &[Config] = &[
    Config {
        name: "avx2x4",
        isa: 'd',
        lanes: 4,
        parts: 1,
        cpu_flag: "avx2",
        clang_flag: "-mavx2",
        features: AVX2_FEATURES,
    },
    Config {
        name: "avx2x8",
        isa: 'd',
        lanes: 8,
        parts: 2,
        cpu_flag: "avx2",
        clang_flag: "-mavx2",
        features: AVX2_FEATURES,
    },
    Config {
        name: "avx512x8",
        isa: 'e',
        lanes: 8,
        parts: 1,
        cpu_flag: "avx512f",
        clang_flag: "-mavx512f",
        features: AVX512_FEATURES,
    },
];

impl Config {
    /// A variant name of this configuration: `n` varying parameters.
    fn variant(&self, n: u32, name: &str) -> String {
        format!("_ZGV{}N{}{}_{name}", self.isa, self.lanes, "v".repeat(n as usize))
    }
    /// The clone of `f` (`--for-autodiff`).
    fn clone_name(&self, f: &Function) -> String {
        self.variant(f.inputs, f.name)
    }
    /// The clone of Enzyme's forward derivative `(x0, dx0, x1, dx1, ...)`.
    fn fwd_clone(&self, f: &Function) -> String {
        self.variant(2 * f.inputs, &format!("fwddiffe{}", f.name))
    }
    /// The clone of Enzyme's reverse derivative `(x0, ..., dret)`.
    fn rev_clone(&self, f: &Function) -> String {
        self.variant(f.inputs + 1, &format!("diffe{}", f.name))
    }
    /// The widest vector the wrappers pass (`min-legal-vector-width`).
    fn width_bits(&self) -> u32 {
        64 * self.lanes / self.parts
    }
}

/// One version that the driver times: function tag, mode, version, what
/// one call computes.
type Version = (&'static str, &'static str, String, String);

/// The versions the driver times for `funcs` and `configs`, in table order:
/// per function, mode, version.
fn versions(funcs: &[Function], configs: &[Config]) -> Vec<Version> {
    let mut v = Vec::new();
    for f in funcs {
        let (t, k, name) = (f.tag, f.inputs, f.name);
        v.push((t, "primal", "scalar".to_string(), format!("`{name}`, 1 call per point")));
        for c in configs {
            let (n, l) = (c.name, c.lanes);
            let what = format!("`{}` (`--for-autodiff`), 1 call per {l} points", c.clone_name(f));
            v.push((t, "primal", n.to_string(), what));
        }
        v.push((t, "forward", "scalar-enzyme".into(), format!("Enzyme `fwddiffe{name}`, {k} calls per point")));
        for c in configs {
            let (n, l) = (c.name, c.lanes);
            let what = format!("Enzyme forward mode of `{}`, {k} passes per {l} points", c.clone_name(f));
            v.push((t, "forward", format!("enzyme-of-{n}"), what));
            let what = format!("batchify's `{}`, {k} calls per {l} points", c.fwd_clone(f));
            v.push((t, "forward", format!("{n}-of-enzyme"), what));
        }
        v.push((t, "reverse", "scalar-enzyme".into(), format!("Enzyme `diffe{name}`, 1 call per point")));
        for c in configs {
            let (n, l) = (c.name, c.lanes);
            let what = format!("Enzyme reverse mode of `{}`, 1 pass per {l} points", c.clone_name(f));
            v.push((t, "reverse", format!("enzyme-of-{n}"), what));
            let what = format!("batchify's `{}`, 1 call per {l} points", c.rev_clone(f));
            v.push((t, "reverse", format!("{n}-of-enzyme"), what));
        }
    }
    v
}

/// Options of one run.
#[derive(Clone, Debug)]
pub struct Opts {
    /// Points per side of the grid (side × side points per function).
    pub side: u32,
    /// Rounds of timing.
    pub reps: u32,
    /// The functions asked for (`--functions`); `None`: all of them.
    pub functions: Option<Vec<Function>>,
    /// The configurations asked for (`--lanes`); `None`: all of them, less
    /// those the CPU cannot run.
    pub lanes: Option<Vec<Config>>,
    /// The batchify binary; built (release) when `None`.
    pub batchify: Option<PathBuf>,
    /// Where the build and the results go.
    pub out: PathBuf,
    /// 64×64 points and 1 round unless told otherwise: the checks only.
    pub smoke: bool,
    /// Build every configuration asked for, also those this CPU cannot run,
    /// and stop before running the driver (`--build-only`).
    pub build_only: bool,
    /// `--veclib` of the batchify run on Enzyme's output, and of the
    /// `--lower-vector-math` step after it (the `--for-autodiff` clones
    /// keep vector intrinsics through Enzyme, which Enzyme differentiates,
    /// and calls of glibc's vector functions only after it); `None`: exact
    /// libm calls, one per lane.
    pub veclib: Option<String>,
}

/// The items of a comma-separated `list` of `option`, found by `name` in
/// `all`, without duplicates, in `all`'s order.
fn parse_list<T: Copy + PartialEq>(
    list: &str,
    all: &[T],
    name: impl Fn(&T) -> &'static str,
    option: &str,
) -> Result<Vec<T>, String> {
    let mut out: Vec<T> = Vec::new();
    for item in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let c = all.iter().find(|c| name(c) == item).ok_or_else(|| {
            let known: Vec<&str> = all.iter().map(&name).collect();
            format!("unknown {option} item `{item}` (known: {})", known.join(", "))
        })?;
        if !out.contains(c) {
            out.push(*c);
        }
    }
    if out.is_empty() {
        return Err(format!("{option} needs at least one item"));
    }
    // Table order, whatever the order asked.
    out.sort_by_key(|c| all.iter().position(|k| k == c));
    Ok(out)
}

fn parse_opts(args: &[String]) -> Result<Opts, String> {
    let mut o = Opts {
        side: 1000,
        reps: 8,
        functions: None,
        lanes: None,
        batchify: None,
        out: util::target_dir().join("bench-autodiff"),
        smoke: false,
        build_only: false,
        veclib: None,
    };
    let (mut side_set, mut reps_set) = (false, false);
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value = |what: &str| it.next().cloned().ok_or(format!("{a} needs {what}"));
        match a.as_str() {
            "--smoke" => o.smoke = true,
            "--build-only" => o.build_only = true,
            "--veclib" => o.veclib = Some(value("none, libmvec or sleef")?),
            "--side" => {
                o.side = value("a number")?.parse().map_err(|_| "bad --side")?;
                side_set = true;
            }
            "--reps" => {
                o.reps = value("a number")?.parse().map_err(|_| "bad --reps")?;
                reps_set = true;
            }
            "--lanes" => {
                let list = value("a list such as avx2x4,avx2x8,avx512x8")?;
                o.lanes = Some(parse_list(&list, CONFIGS, |c| c.name, "--lanes")?);
            }
            "--functions" => {
                let list = value("a list such as mandel,dense,particle")?;
                o.functions = Some(parse_list(&list, FUNCTIONS, |f| f.tag, "--functions")?);
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

/// Whether `/proc/cpuinfo` lists `flag` among the CPU's flags (`None`:
/// no /proc/cpuinfo).
fn cpuinfo_has(flag: &str) -> Option<bool> {
    let text = std::fs::read_to_string("/proc/cpuinfo").ok()?;
    let flags = text.lines().find(|l| l.starts_with("flags"))?;
    Some(flags.split(':').nth(1).unwrap_or("").split_whitespace().any(|f| f == flag))
}

/// Why this CPU cannot run configuration `c`, if it cannot.
fn cannot_run(c: &Config) -> Option<String> {
    match cpuinfo_has(c.cpu_flag) {
        Some(true) => None,
        Some(false) => Some(format!("this CPU lacks {} (not in the flags of /proc/cpuinfo)", c.cpu_flag)),
        None => Some(format!("cannot read /proc/cpuinfo to check for {}", c.cpu_flag)),
    }
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
    llvm_dis: PathBuf,
    enzyme: PathBuf,
    batchify: PathBuf,
    /// `--veclib` of the second batchify run (on Enzyme's output).
    veclib: Option<String>,
}

/// Why the benchmark cannot run here, if it cannot; else the LLVM tools and
/// the Enzyme plugin (batchify still to be found).
fn find_tools() -> Result<(Env, PathBuf), String> {
    if !cfg!(target_arch = "x86_64") {
        return Err(format!("the benchmark needs an x86-64 host with AVX2; this is {}", std::env::consts::ARCH));
    }
    #[cfg(target_arch = "x86_64")]
    if !std::is_x86_feature_detected!("avx2") {
        return Err("this CPU lacks AVX2 (the driver and the scalar code are built with -mavx2)".into());
    }
    let prefix = setup::llvm_prefix().map_err(|e| format!("LLVM 22 is not installed ({e})"))?;
    let env = Env { llvm_prefix: prefix };
    for tool in ["opt", "llvm-link", "llvm-dis"] {
        if !env.llvm_bin(tool).exists() {
            return Err(format!("{} is missing (opt-22 / llvm-link-22 / llvm-dis-22)", env.llvm_bin(tool).display()));
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

/// The IR of configuration `c`'s wrappers of function `f`, linked into the
/// module that Enzyme then processes: `C_F_primal` (what `enzyme_lanes.c`
/// differentiates), `C_F_bf_fwd` and `C_F_bf_rev`, each taking L points of
/// the K inputs (and writing L results, or L results per input) through
/// pointers, so that the driver (C, another object) never passes a vector
/// by value. They declare the clones with the vector ABI's types: a
/// `<L x double>` as one value, or on AVX2 with 8 lanes as two
/// `<4 x double>` halves with the result through a hidden `sret` pointer;
/// the `{double, ...}` result of Enzyme's reverse derivative (one double
/// per input) becomes `{<L x double>, ...}`, returned by value (GCC has no
/// lowering for struct results). The clones of Enzyme's derivative
/// functions are declared here and defined by the second batchify run,
/// after Enzyme.
pub fn wrappers_ll(c: &Config, f: &Function) -> String {
    let (l, p, k) = (c.lanes, c.parts, f.inputs);
    let whole = format!("<{l} x double>");
    let part = format!("<{} x double>", l / p);
    let part_bytes = 8 * l / p;
    let sret = p > 1;
    let tuple = format!("{{ {} }}", vec![whole.as_str(); k as usize].join(", "));
    // Declaration of a clone with `n` vector parameters and a vector (or,
    // `tuple_result`, struct) result.
    let declare = |name: &str, n: u32, tuple_result: bool| {
        let params = vec![part.as_str(); (n * p) as usize].join(", ");
        if tuple_result {
            format!("declare {tuple} @{name}({params})\n")
        } else if sret {
            format!("declare void @{name}(ptr sret({whole}) align 32, {params})\n")
        } else {
            format!("declare {whole} @{name}({params})\n")
        }
    };
    // Loads of the vector at `%ptr` into the parts `%ptr_0`, `%ptr_1`...;
    // returns (code, arguments).
    let load = |ptr: &str| {
        let (mut code, mut args) = (String::new(), Vec::new());
        for q in 0..p {
            let at = if q == 0 {
                format!("%{ptr}")
            } else {
                let _ = writeln!(code, "  %{ptr}_{q}p = getelementptr inbounds i8, ptr %{ptr}, i64 {}", q * part_bytes);
                format!("%{ptr}_{q}p")
            };
            let _ = writeln!(code, "  %{ptr}_{q} = load {part}, ptr {at}, align 8");
            args.push(format!("{part} %{ptr}_{q}"));
        }
        (code, args)
    };
    let splat = |v: &str| vec![format!("{part} {v}"); p as usize];
    let ones = splat("splat (double 1.0)");
    let zeros = splat("zeroinitializer");
    // A call of clone `name` on `args` whose vector result goes to `%out`.
    let call_store = |name: &str, args: &[String], tag: &str, out: &str| {
        let args = args.join(", ");
        if sret {
            format!(
                "  call void @{name}(ptr sret({whole}) align 32 %r, {args})\n  %{tag} = load {whole}, ptr %r, align \
                 32\n  store {whole} %{tag}, ptr %{out}, align 8\n"
            )
        } else {
            format!("  %{tag} = call {whole} @{name}({args})\n  store {whole} %{tag}, ptr %{out}, align 8\n")
        }
    };
    let alloca = if sret { format!("  %r = alloca {whole}, align 32\n") } else { String::new() };
    let (mut loads, mut xs) = (String::new(), Vec::new());
    for j in 0..k {
        let (code, args) = load(&format!("in{j}"));
        loads.push_str(&code);
        xs.push(args);
    }
    let ins: Vec<String> = (0..k).map(|j| format!("ptr %in{j}")).collect();
    let outs: Vec<String> = (0..k).map(|j| format!("ptr %d{j}")).collect();
    let (ins, outs) = (ins.join(", "), outs.join(", "));
    let (n, name) = (format!("{}_{}", c.name, f.tag), f.name);
    let mut s = format!(
        "; {n} wrappers of `cargo xtask bench-autodiff`, written by xtask/src/bench_autodiff.rs\n\
         ; (wrappers_ll): `{name}` of {k} inputs, {l} lanes, `_ZGV{isa}`, each <{l} x double> {how}.\n\n\
         target datalayout = \"e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128\"\n\
         target triple = \"x86_64-pc-linux-gnu\"\n\n",
        isa = c.isa,
        how = if sret {
            format!("passed as {p} x {part}, returned through sret")
        } else {
            "passed and returned by value".to_string()
        },
    );
    s.push_str("; batchify --for-autodiff (before Enzyme)\n");
    s.push_str(&declare(&c.clone_name(f), k, false));
    let _ = writeln!(s, "; batchify on Enzyme's output: (x0, dx0, x1, dx1, ...) -> d {name} along (dx0, dx1, ...)");
    s.push_str(&declare(&c.fwd_clone(f), 2 * k, false));
    let _ = writeln!(s, "; batchify on Enzyme's output: (x0, x1, ..., dret) -> {{dret * d/dx0, dret * d/dx1, ...}}");
    s.push_str(&declare(&c.rev_clone(f), k + 1, true));
    let x: Vec<String> = xs.iter().flatten().cloned().collect();
    let _ = write!(
        s,
        "\n; out[0..{l}] = {name}(in0[k], ...) by the {l}-lane clone.\n\
         define void @{n}_primal({ins}, ptr %out) #0 {{\n{loads}{alloca}{}  ret void\n}}\n",
        call_store(&c.clone_name(f), &x, "v", "out")
    );
    let mut calls = String::new();
    for seed in 0..k {
        let mut args = Vec::new();
        for (j, xj) in xs.iter().enumerate() {
            args.extend(xj.iter().cloned());
            args.extend(if j as u32 == seed { ones.iter() } else { zeros.iter() }.cloned());
        }
        calls.push_str(&call_store(&c.fwd_clone(f), &args, &format!("f{seed}"), &format!("d{seed}")));
    }
    let _ = write!(
        s,
        "\n; d_j[k] = d {name} / d x_j at the k-th point: {k} calls of the {l}-lane clone of Enzyme's\n\
         ; forward derivative, seeds e_0, ..., e_{}.\n\
         define void @{n}_bf_fwd({ins}, {outs}) #0 {{\n{loads}{alloca}{calls}  ret void\n}}\n",
        k - 1
    );
    let rev_args: Vec<String> = x.iter().chain(&ones).cloned().collect();
    let mut stores = String::new();
    for j in 0..k {
        let _ = write!(stores, "  %g{j} = extractvalue {tuple} %g, {j}\n  store {whole} %g{j}, ptr %d{j}, align 8\n");
    }
    let _ = write!(
        s,
        "\n; d_j[k] = the gradient's component j at the k-th point: one call of the {l}-lane clone of\n\
         ; Enzyme's reverse derivative, dret = 1.\n\
         define void @{n}_bf_rev({ins}, {outs}) #0 {{\n{loads}  %g = call {tuple} @{}({})\n{stores}  ret void\n}}\n",
        c.rev_clone(f),
        rev_args.join(", ")
    );
    let _ = write!(
        s,
        "\nattributes #0 = {{ nounwind \"min-legal-vector-width\"=\"{}\" \"target-cpu\"=\"x86-64\" \
         \"target-features\"=\"{}\" \"tune-cpu\"=\"generic\" }}\n",
        c.width_bits(),
        c.features
    );
    s
}

/// Builds the benchmark of `funcs` in `configs` in `dir`; returns the
/// executable.
fn build(t: &Tools, funcs: &[Function], configs: &[Config], dir: &Path) -> Result<PathBuf, String> {
    let root = util::root();
    let src = root.join("benches/autodiff");
    let f = |name: &str| dir.join(name);
    let write = |name: &str, text: &str| {
        std::fs::write(f(name), text).map_err(|e| format!("cannot write {}: {e}", f(name).display()))
    };
    let mut programs = Command::new(&t.llvm_link);
    for func in funcs {
        let bc = f(&format!("{}.bc", func.tag));
        util::output(
            Command::new(&t.clang)
                .args(BC_FLAGS)
                .args(["-mavx2", "-DAD_DERIVATIVES", "-I"])
                .arg(root.join("tests/autodiff"))
                .arg("-I")
                .arg(&src)
                .args(["-c", "-emit-llvm"])
                .arg(root.join(func.source))
                .arg("-o")
                .arg(&bc),
            false,
        )?;
        programs.arg(bc);
    }
    util::output(programs.arg("-o").arg(f("functions.bc")), false)?;
    let mut clones = Command::new(&t.batchify);
    clones.arg(f("functions.bc")).args(["--for-autodiff", "--no-fallback", "--report"]);
    for c in configs {
        for func in funcs {
            clones.args(["--variant", &c.clone_name(func)]);
        }
    }
    let report = util::output(clones.arg("-o").arg(f("clones.bc")), false)?;
    write("batchify-report-clones.txt", &String::from_utf8_lossy(&report.stderr))?;
    let mut link = Command::new(&t.llvm_link);
    link.arg(f("clones.bc"));
    for c in configs {
        for func in funcs {
            let stem = format!("{}-{}", c.name, func.tag);
            let bc = f(&format!("enzyme-{stem}.bc"));
            util::output(
                Command::new(&t.clang)
                    .args(BC_FLAGS)
                    .arg(c.clang_flag)
                    .arg(format!("-DCFG={}", c.name))
                    .arg(format!("-DLANES={}", c.lanes))
                    .arg(format!("-DFUNC={}", func.tag))
                    .arg(format!("-DARITY={}", func.inputs))
                    .args(["-c", "-emit-llvm"])
                    .arg(src.join("enzyme_lanes.c"))
                    .arg("-o")
                    .arg(&bc),
                false,
            )?;
            let ll = format!("wrappers-{stem}.ll");
            write(&ll, &wrappers_ll(c, func))?;
            link.arg(&bc).arg(f(&ll));
        }
    }
    util::output(link.arg("-o").arg(f("linked.bc")), false)?;
    util::output(
        Command::new(&t.opt)
            .arg(format!("-load-pass-plugin={}", t.enzyme.display()))
            .arg("-passes=enzyme")
            .arg(f("linked.bc"))
            .arg("-o")
            .arg(f("enzyme.bc")),
        false,
    )?;
    let mut kernels = Command::new(&t.batchify);
    kernels.arg(f("enzyme.bc")).args(["--no-fallback", "--report"]);
    if let Some(v) = &t.veclib {
        kernels.args(["--veclib", v]);
    }
    for c in configs {
        for func in funcs {
            kernels.args(["--variant", &c.fwd_clone(func), "--variant", &c.rev_clone(func)]);
        }
    }
    let report = util::output(kernels.arg("-o").arg(f("kernels.bc")), false)?;
    write("batchify-report.txt", &String::from_utf8_lossy(&report.stderr))?;
    if let Some(v) = t.veclib.as_deref().filter(|v| *v != "none") {
        // The step after Enzyme: the `--for-autodiff` clones' vector math
        // intrinsics, and Enzyme's derivatives of them, as library calls.
        util::output(
            Command::new(&t.batchify)
                .arg(f("kernels.bc"))
                .args(["--lower-vector-math", "--veclib", v])
                .arg("-o")
                .arg(f("kernels.lowered.bc")),
            false,
        )?;
        std::fs::rename(f("kernels.lowered.bc"), f("kernels.bc"))
            .map_err(|e| format!("cannot rename kernels.lowered.bc: {e}"))?;
    }
    // Enzyme's `fast` flags less `contract` (batchify's clones already
    // carry `reassoc nnan ninf nsz arcp afn`): with AVX-512, which implies
    // FMA, the final compile would fuse multiplies and adds of the
    // Enzyme-of-batchify derivatives, and their forward mode then differed
    // from scalar Enzyme by up to 5.4e-12 (51 of 2M values beyond the
    // 1e-12 bound). Without FMA (AVX2) `contract` changes nothing.
    util::output(Command::new(&t.llvm_dis).arg(f("kernels.bc")).arg("-o").arg(f("kernels.ll")), false)?;
    let ir = std::fs::read_to_string(f("kernels.ll")).map_err(|e| format!("cannot read kernels.ll: {e}"))?;
    let fused = ir.matches(" fast ").count();
    write("kernels.nocontract.ll", &ir.replace(" fast ", " reassoc nnan ninf nsz arcp afn "))?;
    println!("bench-autodiff: `contract` taken off {fused} `fast` flag(s) (kernels.nocontract.ll)");
    util::output(
        Command::new(&t.clang)
            .args(FINAL_FLAGS)
            .arg("-c")
            .arg(f("kernels.nocontract.ll"))
            .arg("-o")
            .arg(f("kernels.o")),
        false,
    )?;
    let exe = f("bench-autodiff");
    let func_list: Vec<String> = funcs.iter().map(|x| format!("F({}, {}, {})", x.tag, x.name, x.inputs)).collect();
    let clone_list: Vec<String> = configs
        .iter()
        .flat_map(|c| funcs.iter().map(move |x| format!("V({}, {}, {})", c.name, c.lanes, x.tag)))
        .collect();
    let mut driver = Command::new(&t.clang);
    if t.veclib.as_deref().is_some_and(|v| v != "none") {
        // glibc's vector functions are up to 4 ulp off; where a derivative
        // is a sum of terms of both signs that cancel (dense's small
        // partials, 1e-5 against terms near 1), that is up to 1e-11
        // relative (296 of 4M forward values beyond 1e-12 with libmvec).
        driver.arg(format!("-DREL_FWD={VECLIB_REL}"));
        // The primal of the `--for-autodiff` clones calls the library too.
        driver.arg(format!("-DREL_PRIMAL={VECLIB_PRIMAL_REL}"));
    }
    util::output(
        driver
            .args(FINAL_FLAGS)
            .arg(format!("-DFUNCS={}", func_list.join(" ")))
            .arg(format!("-DCLONES={}", clone_list.join(" ")))
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

/// One timed run of a version: round, stack shift, ns per point.
#[derive(Clone, Copy, Debug)]
struct Time {
    round: u32,
    shift: u32,
    ns: f64,
}

/// A version's key: function tag, mode, version.
type Key = (String, String, String);
/// Times of each version.
type Times = BTreeMap<Key, Vec<Time>>;
/// The driver's `CHECK` and `TIME` lines, by (function, mode, version).
type Parsed = (BTreeMap<Key, Check>, Times);

fn key(f: &str, m: &str, v: &str) -> Key {
    (f.to_string(), m.to_string(), v.to_string())
}

fn parse_driver(text: &str) -> Parsed {
    let (mut checks, mut times) = (BTreeMap::new(), Times::new());
    for line in text.lines() {
        let w: Vec<&str> = line.split_whitespace().collect();
        match w.as_slice() {
            ["CHECK", f, m, v, values, exact, max_rel, bad, bound] => {
                let check = Check {
                    values: values.parse().unwrap_or(0),
                    exact: exact.parse().unwrap_or(0),
                    max_rel: max_rel.to_string(),
                    bad: bad.parse().unwrap_or(u64::MAX),
                    bound: bound.to_string(),
                };
                checks.insert(key(f, m, v), check);
            }
            ["TIME", f, m, v, round, shift, ns] => times.entry(key(f, m, v)).or_default().push(Time {
                round: round.parse().unwrap_or(u32::MAX),
                shift: shift.parse().unwrap_or(u32::MAX),
                ns: ns.parse().unwrap_or(f64::NAN),
            }),
            _ => {}
        }
    }
    (checks, times)
}

/// The largest relative difference allowed between scalar Enzyme's
/// forward and reverse derivatives of a function: the two are different
/// code (up to 1.8e-10 apart on the Mandelbrot grid, where the adjoints go
/// back through up to 200 trips of a chaotic map), but a wrong derivative
/// (as Enzyme's forward mode of `dense` with the bias first, 1.7798 against
/// 1.5580, benches/autodiff/dense.c) differs in the first digits, and then
/// every check against scalar Enzyme checks against a wrong reference.
const FWD_REV_BOUND: f64 = 1e-8;

/// The driver's `INFO <function> scalar-enzyme forward vs reverse: ...,
/// max_rel R` lines: function, R, the line.
fn fwd_rev_agreement(text: &str) -> Vec<(String, f64, String)> {
    text.lines()
        .filter(|l| l.starts_with("INFO ") && l.contains("forward vs reverse"))
        .filter_map(|l| {
            let tag = l.split_whitespace().nth(1)?.to_string();
            let rel = l.rsplit(' ').next()?.parse().unwrap_or(f64::INFINITY);
            Some((tag, rel, l.to_string()))
        })
        .collect()
}

/// The scalar version of mode `m`.
fn scalar_of(m: &str) -> &'static str {
    if m == "primal" {
        "scalar"
    } else {
        "scalar-enzyme"
    }
}

/// Speed-up of version `v` of mode `m` of function `f` over the scalar
/// version: the ratio of medians, with the smallest and largest ratio
/// within one round.
fn speedup(times: &Times, f: &str, m: &str, v: &str) -> Option<(f64, f64, f64)> {
    let get = |v: &str| times.get(&key(f, m, v));
    let (t, base) = (get(v)?, get(scalar_of(m))?);
    let med = |t: &[Time]| stat(t.iter().map(|x| x.ns).collect()).map(|s| s.median);
    let ratio = med(base)? / med(t)?;
    let per_round: Vec<f64> =
        t.iter().filter_map(|x| base.iter().find(|b| b.round == x.round).map(|b| b.ns / x.ns)).collect();
    let s = stat(per_round)?;
    Some((ratio, s.min, s.max))
}

/// The short table: per function, the scalar versions' ns per point, then
/// per configuration each version's speed-up over the scalar version of
/// its mode (ratio of medians, and the range of the per-round ratios).
fn summary(parsed: &Parsed, funcs: &[Function], configs: &[Config]) -> String {
    let times = &parsed.1;
    let mut t = String::from(
        "| function | configuration | primal | forward: Enzyme of batchify | forward: batchify of Enzyme | reverse: \
         Enzyme of batchify | reverse: batchify of Enzyme |\n| --- | --- | ---: | ---: | ---: | ---: | ---: |\n",
    );
    for f in funcs {
        let ns = |m: &str| {
            let s = stat(times.get(&key(f.tag, m, scalar_of(m))).map(|t| t.iter().map(|x| x.ns).collect())?)?;
            Some(format!("{:.1} ({:.1}–{:.1})", s.median, s.min, s.max))
        };
        let na = || "n/a".to_string();
        let _ = writeln!(
            t,
            "| {} | scalar (ns per point, median (min–max)) | {} | scalar Enzyme: {} | | scalar Enzyme: {} | |",
            f.tag,
            ns("primal").unwrap_or_else(na),
            ns("forward").unwrap_or_else(na),
            ns("reverse").unwrap_or_else(na),
        );
        for c in configs {
            let n = c.name;
            let cell = |m: &str, v: String| match speedup(times, f.tag, m, &v) {
                Some((r, lo, hi)) => format!("{r:.2}× ({lo:.2}–{hi:.2})"),
                None => "n/a".into(),
            };
            let _ = writeln!(
                t,
                "| {} | {n} ({} lanes, `_ZGV{}`) | {} | {} | {} | {} | {} |",
                f.tag,
                c.lanes,
                c.isa,
                cell("primal", n.to_string()),
                cell("forward", format!("enzyme-of-{n}")),
                cell("forward", format!("{n}-of-enzyme")),
                cell("reverse", format!("enzyme-of-{n}")),
                cell("reverse", format!("{n}-of-enzyme")),
            );
        }
    }
    t.push_str(
        "\nSpeed-up over the scalar version of the same mode (the scalar function for the primal, scalar Enzyme \
         for the derivatives): ratio of the medians, and in parentheses the smallest and largest ratio within one \
         round.\n",
    );
    t
}

/// The markdown tables: the summary, then per version the median time per
/// point with its min–max, the speed-up over the scalar version of its
/// mode (ratio of medians), and the check against scalar Enzyme; then the
/// medians at each stack shift.
fn table(parsed: &Parsed, funcs: &[Function], configs: &[Config], points: u64) -> String {
    let (checks, times) = parsed;
    let versions = versions(funcs, configs);
    let all = |f: &str, m: &str, v: &str| {
        stat(times.get(&key(f, m, v)).map(|t| t.iter().map(|x| x.ns).collect()).unwrap_or_default())
    };
    let mut t = summary(parsed, funcs, configs);
    t.push_str(
        "\n| function | mode | version | what is called | ns per point: median (min–max) | speed-up | checked \
         against scalar |\n| --- | --- | --- | --- | ---: | ---: | --- |\n",
    );
    for (f, m, v, what) in &versions {
        let s = all(f, m, v);
        let scalar = scalar_of(m);
        let base = all(f, m, scalar);
        let cell = s.map(|s| format!("{:.1} ({:.1}–{:.1})", s.median, s.min, s.max)).unwrap_or("n/a".into());
        let speedup = match (s, base) {
            (Some(s), Some(b)) => format!("{:.2}×", b.median / s.median),
            _ => "n/a".into(),
        };
        let check = match checks.get(&key(f, m, v)) {
            Some(c) if c.bound == "0" => format!("{} of {} bit for bit", c.exact, c.values),
            Some(c) => {
                format!("{} of {} bit for bit, max rel. diff. {} (bound {})", c.exact, c.values, c.max_rel, c.bound)
            }
            None if v == scalar => "(reference)".into(),
            None => "not checked".into(),
        };
        let _ = writeln!(t, "| {f} | {m} | {v} | {what} | {cell} | {speedup} | {check} |");
    }
    let _ = write!(
        t,
        "\n{points} points per function; speed-up: median of the scalar version of the mode / median of this one.\n"
    );
    let shifts: std::collections::BTreeSet<u32> = times.values().flatten().map(|x| x.shift).collect();
    if shifts.len() > 1 {
        t.push_str("\nMedian ns per point by the driver's stack shift (bytes):\n\n| function | mode | version |");
        for s in &shifts {
            let _ = write!(t, " {s} |");
        }
        let _ = writeln!(t, "\n| --- | --- | --- |{}", " ---: |".repeat(shifts.len()));
        for (f, m, v, _) in &versions {
            let _ = write!(t, "| {f} | {m} | {v} |");
            for s in &shifts {
                let at: Vec<f64> = times
                    .get(&key(f, m, v))
                    .map(|t| t.iter().filter(|x| x.shift == *s).map(|x| x.ns).collect())
                    .unwrap_or_default();
                match stat(at) {
                    Some(st) => {
                        let _ = write!(t, " {:.1} |", st.median);
                    }
                    None => t.push_str(" n/a |"),
                }
            }
            t.push('\n');
        }
    }
    t
}

/// The configurations to run: those asked for (all by default), less those
/// this CPU cannot run, each of which is reported (loudly) with why.
fn select(opts: &Opts) -> (Vec<Config>, Vec<String>) {
    let asked = opts.lanes.clone().unwrap_or_else(|| CONFIGS.to_vec());
    let (mut run, mut skipped) = (Vec::new(), Vec::new());
    for c in asked {
        match cannot_run(&c) {
            None => run.push(c),
            Some(why) => skipped.push(format!("{} skipped: {why}", c.name)),
        }
    }
    (run, skipped)
}

/// Runs the benchmark with `opts`.
pub fn run_with(opts: &Opts) -> Result<BenchOutcome, String> {
    let (env, enzyme) = match find_tools() {
        Ok(found) => found,
        Err(why) => return Ok(BenchOutcome::Skipped(why)),
    };
    let (configs, skipped) = if opts.build_only {
        (opts.lanes.clone().unwrap_or_else(|| CONFIGS.to_vec()), Vec::new())
    } else {
        select(opts)
    };
    for s in &skipped {
        println!("{}", red(&util::bold(&format!("bench-autodiff: configuration {s}"))));
    }
    if configs.is_empty() {
        return Ok(BenchOutcome::Skipped(format!("no configuration this CPU can run ({})", skipped.join("; "))));
    }
    let funcs = opts.functions.clone().unwrap_or_else(|| FUNCTIONS.to_vec());
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
    let tools = Tools {
        clang: env.clang(),
        opt: env.llvm_bin("opt"),
        llvm_link: env.llvm_bin("llvm-link"),
        llvm_dis: env.llvm_bin("llvm-dis"),
        enzyme,
        batchify,
        veclib: opts.veclib.clone(),
    };
    let dir = opts.out.join("build");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;

    let names: Vec<&str> = configs.iter().map(|c| c.name).collect();
    let tags: Vec<&str> = funcs.iter().map(|f| f.tag).collect();
    header(&format!(
        "bench-autodiff: build {} in {} (files in {})",
        tags.join(", "),
        names.join(", "),
        util::rel(&dir).display()
    ));
    let exe = build(&tools, &funcs, &configs, &dir)?;
    if opts.build_only {
        let built = format!(
            "| built | functions | configurations |\n| --- | --- | --- |\n| {} | {} | {} |\n",
            util::rel(&exe).display(),
            tags.join(", "),
            names.join(", ")
        );
        println!("{}", green(&format!("bench-autodiff: built {} (--build-only: not run)", util::rel(&exe).display())));
        return Ok(BenchOutcome::Done(built));
    }

    let side = opts.side.to_string();
    let points = u64::from(opts.side) * u64::from(opts.side);
    header(&format!(
        "bench-autodiff: run ({points} points per function, {} round(s), versions interleaved)",
        opts.reps
    ));
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
    let versions = versions(&funcs, &configs);
    let missing: Vec<String> = versions
        .iter()
        .filter(|(f, m, v, _)| !parsed.1.contains_key(&key(f, m, v)))
        .map(|(f, m, v, _)| format!("{f} {m} {v}"))
        .collect();
    let checked = versions.len() - 3 * funcs.len();
    if !missing.is_empty() || parsed.0.len() != checked || parsed.0.values().any(|c| c.bad != 0) {
        return Err(format!("the driver's output is incomplete (no time for: {missing:?}):\n{text}"));
    }
    let agreement = fwd_rev_agreement(&text);
    for f in &funcs {
        match agreement.iter().find(|(t, _, _)| t == f.tag) {
            Some((_, rel, _)) if *rel <= FWD_REV_BOUND => {}
            Some((_, rel, line)) => {
                return Err(format!(
                    "scalar Enzyme's forward and reverse derivatives of {} differ by up to {rel:e} (relative, \
                     bound {FWD_REV_BOUND:e}): one of them, the reference of every version, is wrong\n{line}",
                    f.tag
                ))
            }
            None => return Err(format!("no forward-against-reverse line for {} in the driver's output", f.tag)),
        }
    }
    let mut table = table(&parsed, &funcs, &configs, points);
    table.push_str(
        "\nScalar Enzyme's forward against its reverse derivatives (different code, different rounding):\n\n",
    );
    for (_, _, line) in &agreement {
        let _ = writeln!(table, "* {}", line.trim_start_matches("INFO "));
    }
    for s in &skipped {
        let _ = write!(table, "\n**Configuration {s}.**\n");
    }
    println!("\n{table}");
    let load = format!("{load_before} before, {} after", loadavg().unwrap_or_else(|| "?".into()));
    let mut command = String::from("cargo xtask bench-autodiff");
    if opts.smoke {
        command.push_str(" --smoke");
    }
    if let Some(f) = &opts.functions {
        let _ = write!(command, " --functions {}", f.iter().map(|f| f.tag).collect::<Vec<_>>().join(","));
    }
    if let Some(l) = &opts.lanes {
        let _ = write!(command, " --lanes {}", l.iter().map(|c| c.name).collect::<Vec<_>>().join(","));
    }
    let defaults = parse_opts(&(if opts.smoke { vec!["--smoke".to_string()] } else { Vec::new() }))?;
    if opts.side != defaults.side {
        let _ = write!(command, " --side {}", opts.side);
    }
    if opts.reps != defaults.reps {
        let _ = write!(command, " --reps {}", opts.reps);
    }
    if let Some(b) = &opts.batchify {
        let _ = write!(command, " --batchify {}", util::rel(b).display());
    }
    if let Some(v) = &opts.veclib {
        let _ = write!(command, " --veclib {v}");
    }
    if opts.out != defaults.out {
        let _ = write!(command, " --out {}", util::rel(&opts.out).display());
    }
    let md = format!(
        "# bench-autodiff\n\n`{command}` ({points} points per function, {} rounds, functions {}, configurations {}, \
         driver ran {elapsed:.1}s, load average {load})\n\n{table}",
        opts.reps,
        tags.join(", "),
        names.join(", ")
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
        assert!(o.lanes.is_none() && o.functions.is_none());
        let o = parse_opts(&[]).unwrap();
        assert!(o.side == 1000 && o.reps >= 5);
        assert!(parse_opts(&["--side".into(), "3".into()]).is_err());
        let o = parse_opts(&["--lanes".into(), "avx512x8,avx2x4".into()]).unwrap();
        let names: Vec<&str> = o.lanes.unwrap().iter().map(|c| c.name).collect();
        assert_eq!(names, ["avx2x4", "avx512x8"]);
        assert!(parse_opts(&["--lanes".into(), "avx2x16".into()]).is_err());
        assert!(parse_opts(&["--lanes".into(), ",".into()]).is_err());
        let o = parse_opts(&["--functions".into(), "particle,mandel,particle".into()]).unwrap();
        let tags: Vec<&str> = o.functions.unwrap().iter().map(|f| f.tag).collect();
        assert_eq!(tags, ["mandel", "particle"]);
        assert!(parse_opts(&["--functions".into(), "conv".into()]).is_err());
        assert!(parse_opts(&["--build-only".into()]).unwrap().build_only);
        let o = parse_opts(&["--veclib".into(), "libmvec".into()]).unwrap();
        assert_eq!(o.veclib.as_deref(), Some("libmvec"));
    }

    #[test]
    fn wrappers() {
        let by_name = |n: &str| *CONFIGS.iter().find(|c| c.name == n).unwrap();
        let func = |t: &str| *FUNCTIONS.iter().find(|f| f.tag == t).unwrap();
        let x4 = wrappers_ll(&by_name("avx2x4"), &func("mandel"));
        assert!(x4.contains("declare <4 x double> @_ZGVdN4vv_smooth_mandel(<4 x double>, <4 x double>)"), "{x4}");
        assert!(
            x4.contains("@_ZGVdN4vvv_diffesmooth_mandel(<4 x double> %in0_0, <4 x double> %in1_0, <4 x double> splat"),
            "{x4}"
        );
        assert!(x4.contains("define void @avx2x4_mandel_bf_rev(ptr %in0, ptr %in1, ptr %d0, ptr %d1)"), "{x4}");
        let x8 = wrappers_ll(&by_name("avx2x8"), &func("mandel"));
        assert!(x8.contains(
            "declare void @_ZGVdN8vv_smooth_mandel(ptr sret(<8 x double>) align 32, <4 x double>, <4 x double>, \
             <4 x double>, <4 x double>)"
        ));
        assert!(x8.contains("%in0_1p = getelementptr inbounds i8, ptr %in0, i64 32"), "{x8}");
        let e8 = wrappers_ll(&by_name("avx512x8"), &func("mandel"));
        assert!(e8.contains(
            "declare { <8 x double>, <8 x double> } @_ZGVeN8vvv_diffesmooth_mandel(<8 x double>, <8 x \
                             double>, <8 x double>)"
        ));
        assert!(e8.contains("\"min-legal-vector-width\"=\"512\"") && e8.contains("+avx512f"), "{e8}");
        let d4 = wrappers_ll(&by_name("avx2x4"), &func("dense"));
        assert!(d4.contains(
            "declare { <4 x double>, <4 x double>, <4 x double>, <4 x double> } @_ZGVdN4vvvvv_diffedense(<4 x \
             double>, <4 x double>, <4 x double>, <4 x double>, <4 x double>)"
        ));
        assert!(d4.contains("declare <4 x double> @_ZGVdN4vvvvvvvv_fwddiffedense("), "{d4}");
        // The third forward call seeds input 2.
        assert!(
            d4.contains(
                "%f2 = call <4 x double> @_ZGVdN4vvvvvvvv_fwddiffedense(<4 x double> %in0_0, <4 x double> \
                 zeroinitializer, <4 x double> %in1_0, <4 x double> zeroinitializer, <4 x double> %in2_0, <4 x \
                 double> splat (double 1.0), <4 x double> %in3_0, <4 x double> zeroinitializer)"
            ),
            "{d4}"
        );
        assert!(d4.contains("store <4 x double> %g3, ptr %d3, align 8"), "{d4}");
    }

    #[test]
    fn driver_output_parses() {
        let text = "CHECK mandel primal avx2x8 8 8 0 0 0\nCHECK mandel forward enzyme-of-avx2x8 16 10 4e-16 0 1e-12\n\
                    TIME mandel primal scalar 0 0 10.0\nTIME mandel primal scalar 1 16 12.0\n\
                    TIME mandel primal avx2x8 0 0 5.0\nTIME mandel primal avx2x8 1 16 4.0\n";
        let parsed = parse_driver(text);
        assert_eq!(parsed.0.len(), 2);
        let x8: Vec<Config> = CONFIGS.iter().filter(|c| c.name == "avx2x8").copied().collect();
        let t = table(&parsed, &FUNCTIONS[..1], &x8, 8);
        assert!(t.contains("| mandel | primal | avx2x8 |"), "{t}");
        assert!(t.contains("2.44×"), "{t}");
        assert!(t.contains("| mandel | avx2x8 (8 lanes, `_ZGVd`) | 2.44× (2.00–3.00) |"), "{t}");
        assert!(t.contains("| mandel | scalar (ns per point, median (min–max)) | 11.0 (10.0–12.0) |"), "{t}");
        assert!(t.contains("10 of 16 bit for bit, max rel. diff. 4e-16 (bound 1e-12)"), "{t}");
        assert!(t.contains("| mandel | primal | scalar | 10.0 | 12.0 |"), "{t}");
        let info = "INFO dense scalar-enzyme forward vs reverse: 16 values, 0 NaN, 6 equal, max_rel 3.83e-13\n\
                    INFO mandel scalar-enzyme forward vs reverse: 8 values, 0 NaN, 1 equal, max_rel 1e+03\n";
        let a = fwd_rev_agreement(info);
        assert_eq!((a[0].0.as_str(), a[0].1), ("dense", 3.83e-13));
        assert!(a[1].1 > FWD_REV_BOUND);
    }

    /// `cargo xtask bench-autodiff --smoke` with the batchify binary that
    /// `cargo build` made: 64×64 points per function, every version of
    /// every function in every configuration the CPU can run checked
    /// against scalar Enzyme. Skips loudly without clang-22, opt-22,
    /// llvm-link-22, the Enzyme plugin, AVX2 or a built batchify (fails
    /// instead under `BATCHIFY_REQUIRE_TOOLS=1`), and skips the AVX-512
    /// configuration loudly without avx512f (fails instead where
    /// `BATCHIFY_REQUIRE_CPU` lists avx512f).
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
            Ok(BenchOutcome::Done(table)) => {
                for c in CONFIGS {
                    if cannot_run(c).is_some() {
                        util::skip_cpu_part(&format!("bench_autodiff::tests::smoke ({})", c.name), c.cpu_flag);
                        continue;
                    }
                    for f in FUNCTIONS {
                        for m in ["forward", "reverse"] {
                            for v in [format!("{}-of-enzyme", c.name), format!("enzyme-of-{}", c.name)] {
                                let row = format!("| {} | {m} | {v} |", f.tag);
                                assert!(table.contains(&row), "{row} missing:\n{table}");
                            }
                        }
                    }
                }
            }
            Ok(BenchOutcome::Skipped(why)) => skip(&why),
            Err(e) => panic!("bench-autodiff --smoke failed: {e}"),
        }
    }
}
