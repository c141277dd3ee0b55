//! `cargo xtask bench-autodiff [--smoke] [--lanes avx2x4,avx2x8,avx512x8]
//! [--side N] [--reps R] [--batchify PATH] [--out DIR]`: derivatives of the
//! smooth Mandelbrot escape measure (`tests/autodiff/01_smooth_mandel.c`)
//! on N×N points, computed by Enzyme and batchify in both orders
//! (docs/benchmarks.md, "Derivatives: Enzyme and batchify, in both
//! orders"), in up to three configurations of lanes and ISA (`--lanes`;
//! by default every one the CPU can run):
//!
//! * `avx2x4`: 4 lanes on AVX2, `_ZGVdN4...`, one `<4 x double>` register
//!   per value, passed and returned by value;
//! * `avx2x8`: 8 lanes on AVX2, `_ZGVdN8...`, each `<8 x double>` passed
//!   as two `<4 x double>` halves and returned through a hidden `sret`
//!   pointer (GCC's lowering, docs/gcc-abi.md);
//! * `avx512x8`: 8 lanes on AVX-512, `_ZGVeN8...`, `<8 x double>` by value
//!   (skipped, loudly, where /proc/cpuinfo has no `avx512f`).
//!
//! Versions, all in one driver process and timed interleaved:
//!
//! * scalar Enzyme: `fwddiffesmooth_mandel` (two forward passes per point,
//!   seeds (1, 0) and (0, 1)) and `diffesmooth_mandel` (one reverse pass),
//!   the reference of every configuration;
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
//! configurations:
//!
//! 1. `clang-22 -O2 -fno-vectorize -fno-unroll-loops -mavx2
//!    -DAD_DERIVATIVES -emit-llvm` of the test program (its `AD_XY`
//!    macro then only asks Enzyme for the two scalar derivatives), and per
//!    configuration of `benches/autodiff/enzyme_lanes.c` with `-DCFG=C
//!    -DLANES=L` and the ISA's flag (`-mavx2` or `-mavx512f`): Enzyme's
//!    calls on the configuration's clone;
//! 2. `batchify --for-autodiff --no-fallback --variant` each configuration's
//!    clone of `smooth_mandel`;
//! 3. `llvm-link` with `wrappers-C.ll`, the L-lane wrappers that this file
//!    writes per configuration ([`wrappers_ll`]; IR because C cannot
//!    declare the AVX2 8-lane clones' split parameters and `sret` result,
//!    nor the `{<L x double>, <L x double>}` result of the batched reverse
//!    derivative), carrying the ISA's `target-features` and
//!    `min-legal-vector-width`;
//! 4. `opt-22 -load-pass-plugin=LLVMEnzyme-22.so -passes=enzyme`;
//! 5. `batchify --no-fallback --variant _ZGV?NLvvvv_fwddiffesmooth_mandel
//!    --variant _ZGV?NLvvv_diffesmooth_mandel` per configuration on
//!    Enzyme's output (the derivative functions are internal; so are their
//!    clones, called by the wrappers of the same module);
//! 6. `llvm-dis`, and `fast` flags replaced by `reassoc nnan ninf nsz arcp
//!    afn` (no `contract`; see below);
//! 7. `clang-22 -O2 -mavx2` of that module (each function is compiled for
//!    its own `target-features`: the `_ZGVe` clones and the AVX-512 wrappers
//!    and their Enzyme derivatives carry `+avx512f`) and of
//!    `benches/autodiff/driver.c` (another object: every call is a call;
//!    `-DCONFIGS=...` names the configurations built), linked.
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
//! time), `--reps` rounds (12 by default), cycling through four stack
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
/// (`-mavx2` for the test program; no `-mfma`, see the module doc).
const BC_FLAGS: &[&str] = &["-O2", "-fno-vectorize", "-fno-unroll-loops", "-Wno-everything"];
/// Flags of the final compile, of the kernels and of the driver (functions
/// with other `target-features` keep theirs).
const FINAL_FLAGS: &[&str] = &["-O2", "-mavx2"];

/// One configuration of lanes and ISA.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Config {
    /// Its name in `--lanes` and in the driver's version names.
    pub name: &'static str,
    /// The vector ABI's ISA letter: `d` (AVX2) or `e` (AVX-512).
    isa: char,
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
    /// The clone of `smooth_mandel` (`--for-autodiff`).
    fn clone_name(&self) -> String {
        format!("_ZGV{}N{}vv_smooth_mandel", self.isa, self.lanes)
    }
    /// The clone of Enzyme's forward derivative `(x, dx, y, dy)`.
    fn fwd_clone(&self) -> String {
        format!("_ZGV{}N{}vvvv_fwddiffesmooth_mandel", self.isa, self.lanes)
    }
    /// The clone of Enzyme's reverse derivative `(x, y, dret)`.
    fn rev_clone(&self) -> String {
        format!("_ZGV{}N{}vvv_diffesmooth_mandel", self.isa, self.lanes)
    }
    /// The widest vector the wrappers pass (`min-legal-vector-width`).
    fn width_bits(&self) -> u32 {
        64 * self.lanes / self.parts
    }
}

/// The versions the driver times for `configs`, in table order: mode,
/// version, what one call computes.
fn versions(configs: &[Config]) -> Vec<(&'static str, String, String)> {
    let mut v = vec![("primal", "scalar".to_string(), "`smooth_mandel`, 1 call per point".to_string())];
    for c in configs {
        let (n, l) = (c.name, c.lanes);
        v.push(("primal", n.to_string(), format!("`{}` (`--for-autodiff`), 1 call per {l} points", c.clone_name())));
    }
    v.push(("forward", "scalar-enzyme".into(), "Enzyme `fwddiffesmooth_mandel`, 2 calls per point".into()));
    for c in configs {
        let (n, l) = (c.name, c.lanes);
        v.push((
            "forward",
            format!("enzyme-of-{n}"),
            format!("Enzyme forward mode of `{}`, 2 passes per {l} points", c.clone_name()),
        ));
        v.push((
            "forward",
            format!("{n}-of-enzyme"),
            format!("batchify's `{}`, 2 calls per {l} points", c.fwd_clone()),
        ));
    }
    v.push(("reverse", "scalar-enzyme".into(), "Enzyme `diffesmooth_mandel`, 1 call per point".into()));
    for c in configs {
        let (n, l) = (c.name, c.lanes);
        v.push((
            "reverse",
            format!("enzyme-of-{n}"),
            format!("Enzyme reverse mode of `{}`, 1 pass per {l} points", c.clone_name()),
        ));
        v.push(("reverse", format!("{n}-of-enzyme"), format!("batchify's `{}`, 1 call per {l} points", c.rev_clone())));
    }
    v
}

/// Options of one run.
#[derive(Clone, Debug)]
pub struct Opts {
    /// Points per side of the grid (side × side points).
    pub side: u32,
    pub reps: u32,
    /// The configurations asked for (`--lanes`); `None`: all of them, less
    /// those the CPU cannot run.
    pub lanes: Option<Vec<Config>>,
    /// The batchify binary; built (release) when `None`.
    pub batchify: Option<PathBuf>,
    pub out: PathBuf,
    pub smoke: bool,
}

fn parse_lanes(list: &str) -> Result<Vec<Config>, String> {
    let mut out: Vec<Config> = Vec::new();
    for name in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let c = CONFIGS.iter().find(|c| c.name == name).ok_or_else(|| {
            let all: Vec<&str> = CONFIGS.iter().map(|c| c.name).collect();
            format!("unknown --lanes configuration `{name}` (known: {})", all.join(", "))
        })?;
        if !out.contains(c) {
            out.push(*c);
        }
    }
    if out.is_empty() {
        return Err("--lanes needs at least one configuration".into());
    }
    // Table order, whatever the order asked.
    out.sort_by_key(|c| CONFIGS.iter().position(|k| k == c));
    Ok(out)
}

fn parse_opts(args: &[String]) -> Result<Opts, String> {
    let mut o = Opts {
        side: 1000,
        reps: 12,
        lanes: None,
        batchify: None,
        out: util::target_dir().join("bench-autodiff"),
        smoke: false,
    };
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
            "--lanes" => o.lanes = Some(parse_lanes(&value("a list such as avx2x4,avx2x8,avx512x8")?)?),
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

/// The IR of configuration `c`'s wrappers, linked into the module that
/// Enzyme then processes: `C_primal` (what `enzyme_lanes.c`
/// differentiates), `C_bf_fwd` and `C_bf_rev`, each taking L points (and
/// writing L results) through pointers, so that the driver (C, another
/// object) never passes a vector by value. They declare the clones with
/// the vector ABI's types: a `<L x double>` as one value, or on AVX2 with 8
/// lanes as two `<4 x double>` halves with the result through a hidden
/// `sret` pointer; the `{double, double}` result of Enzyme's reverse
/// derivative becomes `{<L x double>, <L x double>}`, returned by value
/// (GCC has no lowering for struct results). The clones of Enzyme's
/// derivative functions are declared here and defined by the second
/// batchify run, after Enzyme.
pub fn wrappers_ll(c: &Config) -> String {
    let (l, p) = (c.lanes, c.parts);
    let whole = format!("<{l} x double>");
    let part = format!("<{} x double>", l / p);
    let part_bytes = 8 * l / p;
    let sret = p > 1;
    let pair = format!("{{ {whole}, {whole} }}");
    // Declaration of a clone with `n` vector parameters and a vector (or,
    // `pair`, struct) result.
    let declare = |name: &str, n: u32, pair_result: bool| {
        let params = vec![part.as_str(); (n * p) as usize].join(", ");
        if pair_result {
            format!("declare {pair} @{name}({params})\n")
        } else if sret {
            format!("declare void @{name}(ptr sret({whole}) align 32, {params})\n")
        } else {
            format!("declare {whole} @{name}({params})\n")
        }
    };
    // Loads of the vector at `%ptr` into the parts `%ptr0`, `%ptr1`...;
    // returns (code, arguments).
    let load = |ptr: &str| {
        let (mut code, mut args) = (String::new(), Vec::new());
        for k in 0..p {
            let at = if k == 0 {
                format!("%{ptr}")
            } else {
                let _ = writeln!(code, "  %{ptr}{k}p = getelementptr inbounds i8, ptr %{ptr}, i64 {}", k * part_bytes);
                format!("%{ptr}{k}p")
            };
            let _ = writeln!(code, "  %{ptr}{k} = load {part}, ptr {at}, align 8");
            args.push(format!("{part} %{ptr}{k}"));
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
    let (lx, x) = load("x");
    let (ly, y) = load("y");
    let n = c.name;
    let mut s = format!(
        "; {n} wrappers of `cargo xtask bench-autodiff`, written by xtask/src/bench_autodiff.rs\n\
         ; (wrappers_ll): {l} lanes, `_ZGV{isa}`, each <{l} x double> {how}.\n\n\
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
    s.push_str(&declare(&c.clone_name(), 2, false));
    s.push_str("; batchify on Enzyme's output: (x, dx, y, dy) -> d smooth_mandel along (dx, dy)\n");
    s.push_str(&declare(&c.fwd_clone(), 4, false));
    s.push_str("; batchify on Enzyme's output: (x, y, dret) -> {dret * d/dx, dret * d/dy}\n");
    s.push_str(&declare(&c.rev_clone(), 3, true));
    let xy: Vec<String> = x.iter().chain(&y).cloned().collect();
    let _ = write!(
        s,
        "\n; out[0..{l}] = smooth_mandel(x[k], y[k]) by the {l}-lane clone.\n\
         define void @{n}_primal(ptr %x, ptr %y, ptr %out) #0 {{\n{lx}{ly}{alloca}{}  ret void\n}}\n",
        call_store(&c.clone_name(), &xy, "v", "out")
    );
    let seed_x: Vec<String> = x.iter().chain(&ones).chain(&y).chain(&zeros).cloned().collect();
    let seed_y: Vec<String> = x.iter().chain(&zeros).chain(&y).chain(&ones).cloned().collect();
    let _ = write!(
        s,
        "\n; fx[k] = d/dx, fy[k] = d/dy at (x[k], y[k]): two calls of the {l}-lane clone of Enzyme's\n\
         ; forward derivative, seeds (1, 0) and (0, 1).\n\
         define void @{n}_bf_fwd(ptr %x, ptr %y, ptr %fx, ptr %fy) #0 {{\n{lx}{ly}{alloca}{}{}  ret void\n}}\n",
        call_store(&c.fwd_clone(), &seed_x, "dx", "fx"),
        call_store(&c.fwd_clone(), &seed_y, "dy", "fy")
    );
    let rev_args: Vec<String> = x.iter().chain(&y).chain(&ones).cloned().collect();
    let _ = write!(
        s,
        "\n; gx[k], gy[k] = gradient at (x[k], y[k]): one call of the {l}-lane clone of Enzyme's reverse\n\
         ; derivative, dret = 1.\n\
         define void @{n}_bf_rev(ptr %x, ptr %y, ptr %gx, ptr %gy) #0 {{\n{lx}{ly}  %g = call {pair} @{}({})\n  \
         %dx = extractvalue {pair} %g, 0\n  store {whole} %dx, ptr %gx, align 8\n  \
         %dy = extractvalue {pair} %g, 1\n  store {whole} %dy, ptr %gy, align 8\n  ret void\n}}\n",
        c.rev_clone(),
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

/// Builds the benchmark of `configs` in `dir`; returns the executable.
fn build(t: &Tools, configs: &[Config], dir: &Path) -> Result<PathBuf, String> {
    let root = util::root();
    let src = root.join("benches/autodiff");
    let f = |name: &str| dir.join(name);
    let write = |name: &str, text: &str| {
        std::fs::write(f(name), text).map_err(|e| format!("cannot write {}: {e}", f(name).display()))
    };
    util::output(
        Command::new(&t.clang)
            .args(BC_FLAGS)
            .args(["-mavx2", "-DAD_DERIVATIVES", "-I"])
            .arg(root.join("tests/autodiff"))
            .args(["-c", "-emit-llvm"])
            .arg(root.join("tests/autodiff/01_smooth_mandel.c"))
            .arg("-o")
            .arg(f("mandel.bc")),
        false,
    )?;
    let mut clones = Command::new(&t.batchify);
    clones.arg(f("mandel.bc")).args(["--for-autodiff", "--no-fallback", "--report"]);
    for c in configs {
        clones.args(["--variant", &c.clone_name()]);
    }
    let report = util::output(clones.arg("-o").arg(f("clones.bc")), false)?;
    write("batchify-report-clones.txt", &String::from_utf8_lossy(&report.stderr))?;
    let mut link = Command::new(&t.llvm_link);
    link.arg(f("clones.bc"));
    for c in configs {
        let bc = f(&format!("enzyme-{}.bc", c.name));
        util::output(
            Command::new(&t.clang)
                .args(BC_FLAGS)
                .arg(c.clang_flag)
                .arg(format!("-DCFG={}", c.name))
                .arg(format!("-DLANES={}", c.lanes))
                .args(["-c", "-emit-llvm"])
                .arg(src.join("enzyme_lanes.c"))
                .arg("-o")
                .arg(&bc),
            false,
        )?;
        let ll = format!("wrappers-{}.ll", c.name);
        write(&ll, &wrappers_ll(c))?;
        link.arg(&bc).arg(f(&ll));
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
    for c in configs {
        kernels.args(["--variant", &c.fwd_clone(), "--variant", &c.rev_clone()]);
    }
    let report = util::output(kernels.arg("-o").arg(f("kernels.bc")), false)?;
    write("batchify-report.txt", &String::from_utf8_lossy(&report.stderr))?;
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
    let list: Vec<String> = configs.iter().map(|c| format!("X({}, {})", c.name, c.lanes)).collect();
    util::output(
        Command::new(&t.clang)
            .args(FINAL_FLAGS)
            .arg(format!("-DCONFIGS={}", list.join(" ")))
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

/// Times of each version.
type Times = BTreeMap<(String, String), Vec<Time>>;
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
            ["TIME", m, v, round, shift, ns] => times.entry((m.to_string(), v.to_string())).or_default().push(Time {
                round: round.parse().unwrap_or(u32::MAX),
                shift: shift.parse().unwrap_or(u32::MAX),
                ns: ns.parse().unwrap_or(f64::NAN),
            }),
            _ => {}
        }
    }
    (checks, times)
}

/// The scalar version of mode `m`.
fn scalar_of(m: &str) -> &'static str {
    if m == "primal" {
        "scalar"
    } else {
        "scalar-enzyme"
    }
}

/// Speed-up of version `v` of mode `m` over the scalar version: the ratio
/// of medians, with the smallest and largest ratio within one round.
fn speedup(times: &Times, m: &str, v: &str) -> Option<(f64, f64, f64)> {
    let get = |v: &str| times.get(&(m.to_string(), v.to_string()));
    let (t, base) = (get(v)?, get(scalar_of(m))?);
    let med = |t: &[Time]| stat(t.iter().map(|x| x.ns).collect()).map(|s| s.median);
    let ratio = med(base)? / med(t)?;
    let per_round: Vec<f64> =
        t.iter().filter_map(|x| base.iter().find(|b| b.round == x.round).map(|b| b.ns / x.ns)).collect();
    let s = stat(per_round)?;
    Some((ratio, s.min, s.max))
}

/// The short table: per configuration, each version's speed-up over the
/// scalar version of its mode (ratio of medians, and the range of the
/// per-round ratios).
fn summary(parsed: &Parsed, configs: &[Config]) -> String {
    let times = &parsed.1;
    let mut t = String::from(
        "| configuration | primal | forward: Enzyme of batchify | forward: batchify of Enzyme | reverse: Enzyme of \
         batchify | reverse: batchify of Enzyme |\n| --- | ---: | ---: | ---: | ---: | ---: |\n",
    );
    for c in configs {
        let n = c.name;
        let cell = |m: &str, v: String| match speedup(times, m, &v) {
            Some((r, lo, hi)) => format!("{r:.2}× ({lo:.2}–{hi:.2})"),
            None => "n/a".into(),
        };
        let _ = writeln!(
            t,
            "| {n} ({} lanes, `_ZGV{}`) | {} | {} | {} | {} | {} |",
            c.lanes,
            c.isa,
            cell("primal", n.to_string()),
            cell("forward", format!("enzyme-of-{n}")),
            cell("forward", format!("{n}-of-enzyme")),
            cell("reverse", format!("enzyme-of-{n}")),
            cell("reverse", format!("{n}-of-enzyme")),
        );
    }
    t.push_str(
        "\nSpeed-up over the scalar version of the same mode (scalar `smooth_mandel` for the primal, scalar Enzyme \
         for the derivatives): ratio of the medians, and in parentheses the smallest and largest ratio within one \
         round.\n",
    );
    t
}

/// The markdown tables: the summary, then per version the median time per
/// point with its min–max, the speed-up over the scalar version of its
/// mode (ratio of medians), and the check against scalar Enzyme.
fn table(parsed: &Parsed, configs: &[Config], points: u64) -> String {
    let (checks, times) = parsed;
    let versions = versions(configs);
    let key = |m: &str, v: &str| (m.to_string(), v.to_string());
    let all =
        |m: &str, v: &str| stat(times.get(&key(m, v)).map(|t| t.iter().map(|x| x.ns).collect()).unwrap_or_default());
    let mut t = summary(parsed, configs);
    t.push_str(
        "\n| mode | version | what is called | ns per point: median (min–max) | speed-up | checked against scalar |\n\
         | --- | --- | --- | ---: | ---: | --- |\n",
    );
    for (m, v, what) in &versions {
        let s = all(m, v);
        let scalar = scalar_of(m);
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
            None if v == scalar => "(reference)".into(),
            None => "not checked".into(),
        };
        let _ = writeln!(t, "| {m} | {v} | {what} | {cell} | {speedup} | {check} |");
    }
    let _ = write!(t, "\n{points} points; speed-up: median of the scalar version of the mode / median of this one.\n");
    let shifts: std::collections::BTreeSet<u32> = times.values().flatten().map(|x| x.shift).collect();
    if shifts.len() > 1 {
        t.push_str("\nMedian ns per point by the driver's stack shift (bytes):\n\n| mode | version |");
        for s in &shifts {
            let _ = write!(t, " {s} |");
        }
        let _ = writeln!(t, "\n| --- | --- |{}", " ---: |".repeat(shifts.len()));
        for (m, v, _) in &versions {
            let _ = write!(t, "| {m} | {v} |");
            for s in &shifts {
                let at: Vec<f64> = times
                    .get(&key(m, v))
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
    let (configs, skipped) = select(opts);
    for s in &skipped {
        println!("{}", red(&util::bold(&format!("bench-autodiff: configuration {s}"))));
    }
    if configs.is_empty() {
        return Ok(BenchOutcome::Skipped(format!("no configuration this CPU can run ({})", skipped.join("; "))));
    }
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
    };
    let dir = opts.out.join("build");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;

    let names: Vec<&str> = configs.iter().map(|c| c.name).collect();
    header(&format!("bench-autodiff: build {} (files in {})", names.join(", "), util::rel(&dir).display()));
    let exe = build(&tools, &configs, &dir)?;

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
    let versions = versions(&configs);
    let missing: Vec<String> = versions
        .iter()
        .filter(|(m, v, _)| !parsed.1.contains_key(&(m.to_string(), v.clone())))
        .map(|(m, v, _)| format!("{m} {v}"))
        .collect();
    if !missing.is_empty() || parsed.0.len() != versions.len() - 3 || parsed.0.values().any(|c| c.bad != 0) {
        return Err(format!("the driver's output is incomplete (no time for: {missing:?}):\n{text}"));
    }
    let mut table = table(&parsed, &configs, points);
    for s in &skipped {
        let _ = write!(table, "\n**Configuration {s}.**\n");
    }
    println!("\n{table}");
    let load = format!("{load_before} before, {} after", loadavg().unwrap_or_else(|| "?".into()));
    let mut command = String::from("cargo xtask bench-autodiff");
    if opts.smoke {
        command.push_str(" --smoke");
    }
    if let Some(l) = &opts.lanes {
        let _ = write!(command, " --lanes {}", l.iter().map(|c| c.name).collect::<Vec<_>>().join(","));
    }
    let md = format!(
        "# bench-autodiff\n\n`{command}` ({points} points, {} rounds, configurations {}, driver ran {elapsed:.1}s, \
         load average {load})\n\n{table}",
        opts.reps,
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
        assert!(o.lanes.is_none());
        let o = parse_opts(&[]).unwrap();
        assert!(o.side == 1000 && o.reps >= 7);
        assert!(parse_opts(&["--side".into(), "3".into()]).is_err());
        let o = parse_opts(&["--lanes".into(), "avx512x8,avx2x4".into()]).unwrap();
        let names: Vec<&str> = o.lanes.unwrap().iter().map(|c| c.name).collect();
        assert_eq!(names, ["avx2x4", "avx512x8"]);
        assert!(parse_opts(&["--lanes".into(), "avx2x16".into()]).is_err());
        assert!(parse_opts(&["--lanes".into(), ",".into()]).is_err());
    }

    #[test]
    fn wrappers() {
        let by_name = |n: &str| *CONFIGS.iter().find(|c| c.name == n).unwrap();
        let x4 = wrappers_ll(&by_name("avx2x4"));
        assert!(x4.contains("declare <4 x double> @_ZGVdN4vv_smooth_mandel(<4 x double>, <4 x double>)"), "{x4}");
        assert!(x4.contains("@_ZGVdN4vvv_diffesmooth_mandel(<4 x double> %x0, <4 x double> %y0, <4 x double> splat"));
        let x8 = wrappers_ll(&by_name("avx2x8"));
        assert!(x8.contains(
            "declare void @_ZGVdN8vv_smooth_mandel(ptr sret(<8 x double>) align 32, <4 x double>, <4 x double>, \
             <4 x double>, <4 x double>)"
        ));
        assert!(x8.contains("%x1p = getelementptr inbounds i8, ptr %x, i64 32"), "{x8}");
        let e8 = wrappers_ll(&by_name("avx512x8"));
        assert!(e8.contains(
            "declare { <8 x double>, <8 x double> } @_ZGVeN8vvv_diffesmooth_mandel(<8 x double>, <8 x \
                             double>, <8 x double>)"
        ));
        assert!(e8.contains("\"min-legal-vector-width\"=\"512\"") && e8.contains("+avx512f"), "{e8}");
    }

    #[test]
    fn driver_output_parses() {
        let text = "CHECK primal avx2x8 8 8 0 0 0\nCHECK forward enzyme-of-avx2x8 16 10 4e-16 0 1e-12\n\
                    TIME primal scalar 0 0 10.0\nTIME primal scalar 1 16 12.0\nTIME primal avx2x8 0 0 5.0\n\
                    TIME primal avx2x8 1 16 4.0\n";
        let parsed = parse_driver(text);
        assert_eq!(parsed.0.len(), 2);
        let x8: Vec<Config> = CONFIGS.iter().filter(|c| c.name == "avx2x8").copied().collect();
        let t = table(&parsed, &x8, 8);
        assert!(t.contains("| primal | avx2x8 |"), "{t}");
        assert!(t.contains("2.44×"), "{t}");
        assert!(t.contains("| avx2x8 (8 lanes, `_ZGVd`) | 2.44× (2.00–3.00) |"), "{t}");
        assert!(t.contains("10 of 16 bit for bit, max rel. diff. 4e-16 (bound 1e-12)"), "{t}");
        assert!(t.contains("| primal | scalar | 10.0 | 12.0 |"), "{t}");
    }

    /// `cargo xtask bench-autodiff --smoke` with the batchify binary that
    /// `cargo build` made: 64×64 points, every version of every
    /// configuration the CPU can run checked against scalar Enzyme. Skips
    /// loudly without clang-22, opt-22, llvm-link-22, the Enzyme plugin,
    /// AVX2 or a built batchify (fails instead under
    /// `BATCHIFY_REQUIRE_TOOLS=1`), and skips the AVX-512 configuration
    /// loudly without avx512f (fails instead where `BATCHIFY_REQUIRE_CPU`
    /// lists avx512f).
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
                    for v in [format!("| {}-of-enzyme |", c.name), format!("| enzyme-of-{} |", c.name)] {
                        assert!(table.contains(&v), "{v} missing:\n{table}");
                    }
                }
            }
            Ok(BenchOutcome::Skipped(why)) => skip(&why),
            Err(e) => panic!("bench-autodiff --smoke failed: {e}"),
        }
    }
}
