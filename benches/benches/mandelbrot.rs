//! Mandelbrot escape count (at most 256 iterations) over a 1024×1024 grid:
//! the scalar `mandel` called once per pixel, against batchify's 8-lane AVX2
//! clone (`_ZGVdN8vv_mandel`) and 16-lane AVX-512 clone (`_ZGVeN16vv_mandel`).
//!
//! Everything is built when the benchmark starts, not when it is compiled
//! (building the workspace needs no clang):
//! 1. `clang-22 -O2 -c -emit-llvm c/mandel.c` (clang's default `fmuladd`s);
//! 2. batchify's library API builds both clones into that module;
//! 3. `c/grid.c` is compiled three times (scalar, `-mavx2`, `-mavx512f`), and the
//!    scalar driver's assembly is checked to call `mandel` once per pixel;
//! 4. all of it is linked into one shared object, which is loaded with dlopen;
//! 5. the drivers' grids are compared pixel by pixel before anything is timed.
//!
//! Run with `cargo bench -p batchify-bench`. See `benches/README.md`.

// Links libLLVM-22 into the benchmark binary (batchify-core needs it).
use batchify_llvm_link as _;

use batchify_core::vfabi::VariantName;
use batchify_core::{CloneSpec, Options};
use criterion::measurement::{Measurement, ValueFormatter, WallTime};
use criterion::{criterion_group, criterion_main, Criterion, SamplingMode, Throughput};
use inkwell::context::Context;
use inkwell::module::Module;
use libloading::Library;
use std::cell::Cell;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant, SystemTime};

/// Grid width and height in pixels.
const SIDE: i32 = 1024;
const PIXELS: usize = (SIDE as usize) * (SIDE as usize);
/// The two clones, named in the Vector Function ABI: AVX2 (`d`) 8 lanes and
/// AVX-512 (`e`) 16 lanes, unmasked, both parameters varying.
const VARIANTS: [&str; 2] = ["_ZGVdN8vv_mandel", "_ZGVeN16vv_mandel"];
/// Flags of the scalar kernel: clang's defaults, so `x*x + y*y` becomes
/// `llvm.fmuladd`. The baseline x86-64 scalar code computes that unfused;
/// batchify keeps it unfused in the AVX-512 clone too (avx512f implies FMA,
/// see `calls::isa_adds_fma`), so every pixel's count matches.
const KERNEL_CFLAGS: [&str; 1] = ["-O2"];
/// Flags of the drivers and the link step. `-ffp-contract=off` keeps the
/// pixel coordinates identical in the scalar and vector drivers.
const CFLAGS: [&str; 2] = ["-O2", "-ffp-contract=off"];
const GROUP: &str = "mandelbrot_1024x1024";

/// `void grid_*(unsigned *out, int w, int h)`.
type GridFn = unsafe extern "C" fn(*mut u32, i32, i32);

/// The loaded shared object and its drivers; `None` where the CPU lacks the ISA.
struct Grids {
    scalar: GridFn,
    x8: Option<GridFn>,
    x16: Option<GridFn>,
    /// Keeps the drivers' code mapped.
    _lib: Library,
}

impl Grids {
    /// Runs one driver over the whole grid.
    fn run(f: GridFn, out: &mut [u32]) {
        assert_eq!(out.len(), PIXELS);
        // SAFETY: `out` holds SIDE*SIDE elements, as the drivers write.
        unsafe { f(out.as_mut_ptr(), SIDE, SIDE) }
    }
}

fn c_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("c")
}

/// Where the build steps write: `target/tmp/batchify-bench-mandelbrot/`.
fn work_dir() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("batchify-bench-mandelbrot")
}

/// Criterion's output folder, fixed so the summary can read its estimates:
/// `$CRITERION_HOME`, else `target/criterion` (criterion's own default).
fn criterion_dir() -> PathBuf {
    match std::env::var_os("CRITERION_HOME") {
        Some(d) => PathBuf::from(d),
        None => Path::new(env!("CARGO_TARGET_TMPDIR")).parent().unwrap_or(Path::new("target")).join("criterion"),
    }
}

/// `$BATCHIFY_CLANG`, else `clang-22` from the LLVM prefix's `bin`
/// (`tools/llvm-prefix.sh` decides the prefix), else from `PATH`.
fn clang() -> PathBuf {
    if let Some(c) = std::env::var_os("BATCHIFY_CLANG") {
        return PathBuf::from(c);
    }
    batchify_llvm_link::llvm_tool("clang-22")
}

/// Runs clang with `args`; one line of error with its stderr on failure.
fn run_clang(args: &[&str], paths: &[&Path]) -> Result<(), String> {
    let clang = clang();
    let out = Command::new(&clang).args(args).args(paths).output().map_err(|e| {
        format!(
            "cannot run `{}`: {e}. The benchmark needs LLVM 22's clang at run time: run `cargo xtask setup` \
             (or `apt-get install clang-22`), or set BATCHIFY_CLANG",
            clang.display()
        )
    })?;
    if !out.status.success() {
        return Err(format!(
            "`{} {} {}` failed:\n{}",
            clang.display(),
            args.join(" "),
            paths.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(" "),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(())
}

/// The options the clones are built with: the default, or as chosen by
/// `BATCHIFY_BENCH_MODE`: `autodiff` (`Options::for_autodiff`) or `hold`
/// (`Options::hold_finished_lanes`), to measure what those modes cost.
fn bench_options() -> Options {
    match std::env::var("BATCHIFY_BENCH_MODE").as_deref() {
        Ok("autodiff") => Options { for_autodiff: true, ..Options::default() },
        Ok("hold") => Options { hold_finished_lanes: true, ..Options::default() },
        _ => Options::default(),
    }
}

/// Builds the clones into `bc` with batchify's library API; writes `out`.
fn batchify(bc: &Path, out: &Path) -> Result<(), String> {
    let ctx = Context::create();
    let module = Module::parse_bitcode_from_path(bc, &ctx).map_err(|e| format!("cannot read {}: {e}", bc.display()))?;
    let specs = VARIANTS
        .iter()
        .map(|v| {
            let name = VariantName::parse(v).map_err(|e| e.to_string())?;
            CloneSpec::from_variant(&name).map_err(|e| e.to_string())
        })
        .collect::<Result<Vec<_>, _>>()?;
    let reports = batchify_core::batchify_inkwell(&module, &specs, &bench_options()).map_err(|e| e.to_string())?;
    for r in &reports {
        for line in r.lines() {
            eprintln!("batchify: {line}");
        }
        if let Some(why) = &r.fallback {
            return Err(format!("{} is a per-lane loop, not a vector clone: {why}", r.spec.vector_name));
        }
    }
    if !module.write_bitcode_to_path(out) {
        return Err(format!("cannot write {}", out.display()));
    }
    Ok(())
}

/// The body of `fn` in clang's assembly output, from its label to `.size`.
fn asm_body<'a>(asm: &'a str, func: &str) -> Option<&'a str> {
    let start = asm.find(&format!("\n{func}:"))?;
    let rest = &asm[start..];
    let end = rest.find(&format!(".size\t{func},")).unwrap_or(rest.len());
    Some(&rest[..end])
}

/// The scalar driver must really call `mandel` per pixel: not inline it (it
/// cannot, `mandel` is in another object without LTO) and not call anything
/// else in its place. Checked on the assembly that is then linked.
fn check_scalar_asm(asm: &Path) -> Result<(), String> {
    let text = std::fs::read_to_string(asm).map_err(|e| format!("cannot read {}: {e}", asm.display()))?;
    let body = asm_body(&text, "grid_scalar").ok_or_else(|| format!("no grid_scalar in {}", asm.display()))?;
    let calls: Vec<&str> = body.lines().map(str::trim).filter(|l| l.starts_with("call")).collect();
    if calls.len() != 1 || !calls[0].contains("mandel") || calls[0].contains("_ZGV") {
        return Err(format!("grid_scalar should hold exactly one call, to `mandel`; found {calls:?}"));
    }
    Ok(())
}

/// Steps 1–4 of the module docs; returns the shared object's path.
fn build() -> Result<PathBuf, String> {
    let dir = work_dir();
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let c = c_dir();
    let (mandel_bc, batched_bc) = (dir.join("mandel.bc"), dir.join("mandel.batched.bc"));
    run_clang(&[&KERNEL_CFLAGS[..], &["-c", "-emit-llvm", "-o"]].concat(), &[&mandel_bc, &c.join("mandel.c")])?;
    batchify(&mandel_bc, &batched_bc)?;
    let mut objects = vec![batched_bc];
    for (name, flags) in
        [("scalar", &["-DGRID_SCALAR"][..]), ("x8", &["-DGRID_X8", "-mavx2"]), ("x16", &["-DGRID_X16", "-mavx512f"])]
    {
        let (asm, obj) = (dir.join(format!("grid_{name}.s")), dir.join(format!("grid_{name}.o")));
        let args = [&CFLAGS[..], &["-fPIC"], flags].concat();
        run_clang(&[&args[..], &["-S", "-o"]].concat(), &[&asm, &c.join("grid.c")])?;
        if name == "scalar" {
            check_scalar_asm(&asm)?;
        }
        run_clang(&[&args[..], &["-c", "-o"]].concat(), &[&obj, &asm])?;
        objects.push(obj);
    }
    // -Bsymbolic: the drivers call `mandel` and the clones directly, not through the PLT.
    let so = dir.join("libmandelbrot_bench.so");
    let mut paths: Vec<&Path> = vec![&so];
    paths.extend(objects.iter().map(PathBuf::as_path));
    run_clang(&[&CFLAGS[..], &["-shared", "-fPIC", "-Wl,-Bsymbolic", "-o"]].concat(), &paths)?;
    Ok(so)
}

/// Whether this CPU can run code built with `-mavx2` (`avx2`) or `-mavx512f` (`avx512f`).
fn cpu_has(feature: &str) -> bool {
    #[cfg(target_arch = "x86_64")]
    match feature {
        "avx2" => return is_x86_feature_detected!("avx2"),
        "avx512f" => return is_x86_feature_detected!("avx512f"),
        _ => {}
    }
    let _ = feature;
    false
}

/// Builds and loads the drivers, and checks that they agree on every pixel.
fn setup() -> Result<Grids, String> {
    let so = build()?;
    eprintln!("mandelbrot: built {}", so.display());
    // SAFETY: our own shared object; its initialisers are clang's defaults.
    let lib = unsafe { Library::new(&so) }.map_err(|e| format!("cannot load {}: {e}", so.display()))?;
    let get = |name: &str| -> Result<GridFn, String> {
        // SAFETY: the symbol is defined in grid.c with exactly this signature.
        unsafe { lib.get::<GridFn>(name.as_bytes()).map(|s| *s) }.map_err(|e| format!("{name}: {e}"))
    };
    let scalar = get("grid_scalar")?;
    let x8 = if cpu_has("avx2") {
        Some(get("grid_x8")?)
    } else {
        eprintln!("mandelbrot: this CPU has no AVX2; skipping the 8-lane clone");
        None
    };
    let x16 = if cpu_has("avx512f") {
        Some(get("grid_x16")?)
    } else {
        eprintln!("mandelbrot: this CPU has no AVX-512F; skipping the 16-lane clone");
        None
    };
    let grids = Grids { scalar, x8, x16, _lib: lib };

    let mut want = vec![0u32; PIXELS];
    Grids::run(grids.scalar, &mut want);
    let (total, inside) = (want.iter().map(|&n| u64::from(n)).sum::<u64>(), want.iter().filter(|&&n| n == 256).count());
    eprintln!(
        "mandelbrot: {PIXELS} pixels, {:.2} iterations per pixel on average, {inside} reach the limit of 256",
        total as f64 / PIXELS as f64
    );
    for (name, f) in [("grid_x8", grids.x8), ("grid_x16", grids.x16)] {
        let Some(f) = f else { continue };
        let mut got = vec![u32::MAX; PIXELS];
        Grids::run(f, &mut got);
        let bad: Vec<usize> = (0..PIXELS).filter(|&i| got[i] != want[i]).collect();
        if let Some(&i) = bad.first() {
            let (x, y) = (i % SIDE as usize, i / SIDE as usize);
            return Err(format!(
                "{name} differs from grid_scalar at {} pixel(s); first at ({x}, {y}): {} instead of {}",
                bad.len(),
                got[i],
                want[i]
            ));
        }
        eprintln!("mandelbrot: {name} matches grid_scalar on all {PIXELS} pixels");
    }
    Ok(grids)
}

/// What is timed: the benchmark thread's CPU time (the default), or wall-clock
/// time with `BATCHIFY_BENCH_CLOCK=wall`. On a shared machine, CPU time leaves
/// out the time other processes hold the core, which wall-clock time counts;
/// on an idle machine the two agree for this single-threaded, compute-bound loop.
struct Clock {
    cpu: bool,
    /// Lends its time formatting (ns, µs, ms, elements per second).
    wall: WallTime,
}

impl Clock {
    fn from_env() -> Clock {
        let wall = std::env::var("BATCHIFY_BENCH_CLOCK").is_ok_and(|v| v == "wall");
        let cpu = !wall && thread_cpu_time().is_some();
        eprintln!("mandelbrot: timing {}", if cpu { "thread CPU time" } else { "wall-clock time" });
        Clock { cpu, wall: WallTime }
    }
}

impl Measurement for Clock {
    type Intermediate = (Instant, Duration);
    type Value = Duration;

    fn start(&self) -> (Instant, Duration) {
        let cpu = if self.cpu { thread_cpu_time().unwrap_or_default() } else { Duration::ZERO };
        (Instant::now(), cpu)
    }
    fn end(&self, (wall, cpu): (Instant, Duration)) -> Duration {
        if self.cpu {
            thread_cpu_time().unwrap_or_default().saturating_sub(cpu)
        } else {
            wall.elapsed()
        }
    }
    fn add(&self, a: &Duration, b: &Duration) -> Duration {
        *a + *b
    }
    fn zero(&self) -> Duration {
        Duration::ZERO
    }
    fn to_f64(&self, v: &Duration) -> f64 {
        v.as_nanos() as f64
    }
    fn formatter(&self) -> &dyn ValueFormatter {
        self.wall.formatter()
    }
}

/// CPU time used by the calling thread so far (Linux `CLOCK_THREAD_CPUTIME_ID`).
#[cfg(target_os = "linux")]
fn thread_cpu_time() -> Option<Duration> {
    #[repr(C)]
    struct Timespec {
        tv_sec: i64,
        tv_nsec: i64,
    }
    extern "C" {
        fn clock_gettime(clock: i32, ts: *mut Timespec) -> i32;
    }
    const CLOCK_THREAD_CPUTIME_ID: i32 = 3;
    let mut ts = Timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: glibc's clock_gettime writes one `struct timespec` (two 64-bit fields on 64-bit Linux).
    let rc = unsafe { clock_gettime(CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    (rc == 0).then(|| Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32))
}

#[cfg(not(target_os = "linux"))]
fn thread_cpu_time() -> Option<Duration> {
    None
}

/// Criterion's typical-time estimate (slope, else mean) in ns, from the
/// `estimates.json` it wrote for `bench`, if written since `since`.
fn estimate_ns(bench: &str, since: SystemTime) -> Option<f64> {
    let path = criterion_dir().join(GROUP).join(bench).join("new").join("estimates.json");
    if std::fs::metadata(&path).ok()?.modified().ok()? < since {
        return None;
    }
    let json = std::fs::read_to_string(path).ok()?;
    let point = |key: &str| -> Option<f64> {
        let rest = &json[json.find(&format!("\"{key}\":{{"))?..];
        let rest = &rest[rest.find("\"point_estimate\":")? + "\"point_estimate\":".len()..];
        rest[..rest.find([',', '}'])?].trim().parse().ok()
    };
    point("slope").or_else(|| point("mean"))
}

fn mandelbrot(c: &mut Criterion<Clock>) {
    let grids = setup().unwrap_or_else(|e| panic!("mandelbrot benchmark set-up failed: {e}"));
    let started = SystemTime::now();
    let mut group = c.benchmark_group(GROUP);
    group.sampling_mode(SamplingMode::Flat).throughput(Throughput::Elements(PIXELS as u64));
    let mut out = vec![0u32; PIXELS];
    let ran: Vec<(&str, Cell<bool>)> = ["scalar", "x8", "x16"].iter().map(|&n| (n, Cell::new(false))).collect();
    for ((name, flag), f) in ran.iter().zip([Some(grids.scalar), grids.x8, grids.x16]) {
        let Some(f) = f else { continue };
        group.bench_function(*name, |b| {
            flag.set(true);
            b.iter(|| Grids::run(f, &mut out));
        });
    }
    group.finish();

    // One summary line with the speed-ups, from criterion's own estimates.
    let times: Vec<(&str, f64)> =
        ran.iter().filter(|(_, flag)| flag.get()).filter_map(|(n, _)| Some((*n, estimate_ns(n, started)?))).collect();
    if let Some(&("scalar", scalar)) = times.first() {
        let mut line = format!("mandelbrot: scalar {:.2} ms", scalar / 1e6);
        for (name, t) in &times[1..] {
            line += &format!("; {name} {:.2} ms, speed-up {:.2}x", t / 1e6, scalar / t);
        }
        eprintln!("{line}");
    }
}

criterion_group! {
    name = benches;
    // Each scalar grid takes a fraction of a second: ten samples and a short
    // measurement keep the whole run well under two minutes on two cores.
    config = Criterion::default()
        .with_measurement(Clock::from_env())
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4))
        .output_directory(&criterion_dir());
    targets = mandelbrot
}
criterion_main!(benches);
