//! Exact math as vector code (issue 8, items 5 and 7), checked bit for bit
//! against glibc and against Rust's integer division on millions of inputs:
//! `frem`/`fmodf`/`fmod` (random bit patterns, exhaustive slices of one
//! operand against special values of the other, every pair of a special
//! set), the other exact libm calls (`fminf`, `fmax`, `fdimf`, `floorf`,
//! `ldexpf`, ...), and `i32`/`i16`/`i8` division and remainder (edge values
//! crossed with each other, random values). NaN results must match to the
//! payload.
//!
//! Each scalar function is batched to an 8-lane clone; a driver function in
//! the same module runs the clone over arrays, JIT-compiled for the host.
//! The masked forms are checked by the oracle on the corpus
//! (`tests/corpus/divergent/math.c`, `rust_math.rs`) and on
//! `tests/corpus/real/libm_calls.ll`.

use batchify_core::vfabi::VariantName;
use batchify_core::CloneSpec;
use batchify_testkit::corpus::parse_module;
use batchify_testkit::jit::Jit;
use inkwell::context::Context;
use inkwell::values::AnyValue;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

type F32x2 = unsafe extern "C" fn(f32, f32) -> f32;
type F64x2 = unsafe extern "C" fn(f64, f64) -> f64;

/// A function of glibc's `libm.so.6` itself (not a symbol of the same name
/// that Rust's runtime may define, such as compiler-builtins' `fminf`).
fn glibc<T: Copy>(name: &str) -> T {
    assert_eq!(std::mem::size_of::<T>(), std::mem::size_of::<usize>());
    let lib = unsafe { libc::dlopen(c"libm.so.6".as_ptr(), libc::RTLD_NOW) };
    assert!(!lib.is_null(), "libm.so.6 not found");
    let cname = std::ffi::CString::new(name).unwrap();
    let sym = unsafe { libc::dlsym(lib, cname.as_ptr()) };
    assert!(!sym.is_null(), "{name} not in libm.so.6");
    unsafe { std::mem::transmute_copy(&sym) }
}

const W: usize = 8;

/// A module with scalar function `@f` of type `ret (a, b)` (body `body`),
/// batched to 8 lanes, and `@drive(ptr x, ptr y, ptr out, i64 n)` that runs
/// the clone over `n` (a multiple of 8) elements.
fn compile(decls: &str, body: &str, ret: &str, a: &str, b: &str) -> Jit {
    compile_for(decls, body, ret, a, b, "")
}

/// [`compile`] with function attributes on `@f` (which the clone copies),
/// such as a `target-cpu`.
fn compile_for(decls: &str, body: &str, ret: &str, a: &str, b: &str, fn_attrs: &str) -> Jit {
    let vr = format!("<{W} x {ret}>");
    let (va, vb) = (format!("<{W} x {a}>"), format!("<{W} x {b}>"));
    let ir = format!(
        r#"
define {ret} @f({a} %x, {b} %y) {fn_attrs} {{
{body}
}}
{decls}
declare {vr} @_ZGV_LLVM_N{W}vv_f({va}, {vb})
define void @drive(ptr %xs, ptr %ys, ptr %os, i64 %n) {{
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i2, %loop ]
  %px = getelementptr {a}, ptr %xs, i64 %i
  %py = getelementptr {b}, ptr %ys, i64 %i
  %po = getelementptr {ret}, ptr %os, i64 %i
  %vx = load {va}, ptr %px, align 1
  %vy = load {vb}, ptr %py, align 1
  %r = call {vr} @_ZGV_LLVM_N{W}vv_f({va} %vx, {vb} %vy)
  store {vr} %r, ptr %po, align 1
  %i2 = add i64 %i, {W}
  %c = icmp ult i64 %i2, %n
  br i1 %c, label %loop, label %done
done:
  ret void
}}
"#
    );
    let ctx = Context::create();
    let module = parse_module(&ctx, ir.as_bytes(), "exact_math").unwrap();
    let spec = CloneSpec::from_variant(&VariantName::parse(&format!("_ZGV_LLVM_N{W}vv_f")).unwrap()).unwrap();
    let reports = batchify_core::batchify_inkwell(&module, &[spec], &Default::default()).unwrap();
    let r = &reports[0];
    assert!(r.fallback.is_none() && r.stats.serialized == 0, "not vector code: {:?}", r.lines());
    let clone = module.get_function(&format!("_ZGV_LLVM_N{W}vv_f")).unwrap();
    let text = clone.print_to_string().to_string();
    assert!(!text.contains("frem") && !text.contains("call float @") && !text.contains("call double @"), "{text}");
    Jit::new(module.write_bitcode_to_memory().as_slice(), &[]).unwrap()
}

/// Runs the clone on `xs`, `ys` (padded to a multiple of 8).
fn run<A: Copy + Default, B: Copy + Default, R: Copy + Default>(jit: &Jit, xs: &[A], ys: &[B]) -> Vec<R> {
    let n = xs.len().div_ceil(W) * W;
    let (mut x, mut y) = (xs.to_vec(), ys.to_vec());
    x.resize(n, A::default());
    y.resize(n, B::default());
    let mut out = vec![R::default(); n];
    let addr = jit.lookup("drive").unwrap();
    let drive: extern "C" fn(*const A, *const B, *mut R, u64) = unsafe { std::mem::transmute(addr as usize) };
    drive(x.as_ptr(), y.as_ptr(), out.as_mut_ptr(), n as u64);
    out.truncate(xs.len());
    out
}

/// Special `f32` bit patterns: zeros, subnormals, normals at the edges,
/// infinities, quiet and signalling NaNs with payloads, both signs.
fn special_f32() -> Vec<u32> {
    let pos = [
        0u32,
        1,
        2,
        3,
        0x7f_ffff,
        0x40_0000,
        0x80_0000,
        0x80_0001,
        0xff_ffff,
        0x3f80_0000,
        0x3f80_0001,
        0x3fc0_0000,
        0x4049_0fdb,
        0x4000_0000,
        0x4b80_0000,
        0x7f7f_ffff,
        0x7f00_0000,
        0x7f80_0000,
        0x7fc0_0000,
        0x7fc0_0001,
        0x7f80_0001,
        0x7fbf_ffff,
        0x3380_0000,
        0x0c00_0000,
        0x1,
        0x3eaa_aaab,
    ];
    pos.iter().flat_map(|&p| [p, p | 0x8000_0000]).collect()
}

fn special_f64() -> Vec<u64> {
    let pos = [
        0u64,
        1,
        2,
        0xf_ffff_ffff_ffff,
        0x10_0000_0000_0000,
        0x10_0000_0000_0001,
        0x3ff0_0000_0000_0000,
        0x3ff0_0000_0000_0001,
        0x3ff8_0000_0000_0000,
        0x4009_21fb_5444_2d18,
        0x4340_0000_0000_0000,
        0x7fef_ffff_ffff_ffff,
        0x7ff0_0000_0000_0000,
        0x7ff8_0000_0000_0000,
        0x7ff8_0000_0000_0001,
        0x7ff0_0000_0000_0001,
        0x3e50_0000_0000_0000,
        0x0010_0000_0000_0000,
    ];
    pos.iter().flat_map(|&p| [p, p | (1 << 63)]).collect()
}

/// Checks a binary f32 clone against `reference` on `xs` × `ys` pairs.
fn check_f32(jit: &Jit, xs: &[u32], ys: &[u32], reference: F32x2, what: &str) {
    let xf: Vec<f32> = xs.iter().map(|&b| f32::from_bits(b)).collect();
    let yf: Vec<f32> = ys.iter().map(|&b| f32::from_bits(b)).collect();
    let got: Vec<f32> = run(jit, &xf, &yf);
    for k in 0..xs.len() {
        let want = unsafe { reference(xf[k], yf[k]) };
        assert_eq!(
            got[k].to_bits(),
            want.to_bits(),
            "{what}({:#010x}, {:#010x}) = {:#010x}, glibc says {:#010x}",
            xs[k],
            ys[k],
            got[k].to_bits(),
            want.to_bits()
        );
    }
}

fn check_f64(jit: &Jit, xs: &[u64], ys: &[u64], reference: F64x2, what: &str) {
    let xf: Vec<f64> = xs.iter().map(|&b| f64::from_bits(b)).collect();
    let yf: Vec<f64> = ys.iter().map(|&b| f64::from_bits(b)).collect();
    let got: Vec<f64> = run(jit, &xf, &yf);
    for k in 0..xs.len() {
        let want = unsafe { reference(xf[k], yf[k]) };
        assert_eq!(
            got[k].to_bits(),
            want.to_bits(),
            "{what}({:#018x}, {:#018x}) = {:#018x}, glibc says {:#018x}",
            xs[k],
            ys[k],
            got[k].to_bits(),
            want.to_bits()
        );
    }
}

/// Every pair of two sets.
fn cross<T: Copy>(a: &[T], b: &[T]) -> (Vec<T>, Vec<T>) {
    let xs = a.iter().flat_map(|&x| b.iter().map(move |_| x)).collect();
    let ys = a.iter().flat_map(|_| b.iter().copied()).collect();
    (xs, ys)
}

/// Random f32 pairs whose exponents are close (small quotients), random bit
/// patterns (any exponent gap), and random values near the special ones.
fn random_f32_pairs(rng: &mut SmallRng, n: usize) -> (Vec<u32>, Vec<u32>) {
    let mut xs = Vec::with_capacity(n);
    let mut ys = Vec::with_capacity(n);
    for k in 0..n {
        let x: u32 = rng.gen();
        let y: u32 = match k % 3 {
            0 => rng.gen(),
            1 => (x & 0xff80_0000).wrapping_sub(rng.gen_range(0..12u32) << 23) | (rng.gen::<u32>() & 0x7f_ffff),
            _ => rng.gen::<u32>() >> rng.gen_range(1..32),
        };
        xs.push(x);
        ys.push(y);
    }
    (xs, ys)
}

#[test]
fn frem_float_is_glibc_fmodf() {
    let jit = compile("", "  %r = frem float %x, %y\n  ret float %r", "float", "float", "float");
    let sp = special_f32();
    let (xs, ys) = cross(&sp, &sp);
    check_f32(&jit, &xs, &ys, glibc("fmodf"), "fmodf");
    let mut rng = SmallRng::seed_from_u64(0xf30d);
    let (xs, ys) = random_f32_pairs(&mut rng, 2_000_000);
    check_f32(&jit, &xs, &ys, glibc("fmodf"), "fmodf");
    // Exhaustive slices: 2^16 consecutive bit patterns of one operand
    // (subnormals, around 1, the top of the range) against each special
    // value of the other.
    for start in [0u32, 0x3f7e_0000, 0x7f7c_0000, 0x8080_0000] {
        let slice: Vec<u32> = (start..start + (1 << 16)).collect();
        for &s in sp.iter().step_by(3) {
            let other = vec![s; slice.len()];
            check_f32(&jit, &slice, &other, glibc("fmodf"), "fmodf");
            check_f32(&jit, &other, &slice, glibc("fmodf"), "fmodf");
        }
    }
}

#[test]
fn fmodf_and_fmod_calls_are_glibc() {
    let attrs = "attributes #0 = { memory(none) }";
    let jit = compile(
        &format!("declare float @fmodf(float, float) #0\n{attrs}"),
        "  %r = call float @fmodf(float %x, float %y) #0\n  ret float %r",
        "float",
        "float",
        "float",
    );
    let mut rng = SmallRng::seed_from_u64(0xf30e);
    let (xs, ys) = random_f32_pairs(&mut rng, 200_000);
    check_f32(&jit, &xs, &ys, glibc("fmodf"), "fmodf");
    let jit = compile(
        &format!("declare double @fmod(double, double) #0\n{attrs}"),
        "  %r = call double @fmod(double %x, double %y) #0\n  ret double %r",
        "double",
        "double",
        "double",
    );
    let sp = special_f64();
    let (xs, ys) = cross(&sp, &sp);
    check_f64(&jit, &xs, &ys, glibc("fmod"), "fmod");
    let mut xs = Vec::new();
    let mut ys = Vec::new();
    for k in 0..400_000u64 {
        let x: u64 = rng.gen();
        let y: u64 = match k % 4 {
            0 => rng.gen(),
            1 => (x & 0xfff0_0000_0000_0000).wrapping_sub(rng.gen_range(0..60u64) << 52) | (rng.gen::<u64>() >> 12),
            2 => (x & 0xfff0_0000_0000_0000).wrapping_sub(rng.gen_range(0..2047u64) << 52) | (rng.gen::<u64>() >> 12),
            _ => rng.gen::<u64>() >> rng.gen_range(1..64),
        };
        xs.push(x);
        ys.push(y);
    }
    check_f64(&jit, &xs, &ys, glibc("fmod"), "fmod");
}

/// The other exact libm calls, on every pair of specials and random pairs.
#[test]
fn exact_libm_calls_are_glibc() {
    let attrs = "attributes #0 = { memory(none) }";
    let f32_binary = ["fminf", "fmaxf", "fdimf", "copysignf"];
    let mut rng = SmallRng::seed_from_u64(0x11b);
    let sp = special_f32();
    let (sx, sy) = cross(&sp, &sp);
    let (rx, ry) = random_f32_pairs(&mut rng, 100_000);
    for name in f32_binary {
        let reference: F32x2 = glibc(name);
        let jit = compile(
            &format!("declare float @{name}(float, float) #0\n{attrs}"),
            &format!("  %r = call float @{name}(float %x, float %y) #0\n  ret float %r"),
            "float",
            "float",
            "float",
        );
        check_f32(&jit, &sx, &sy, reference, name);
        check_f32(&jit, &rx, &ry, reference, name);
    }
    let f64_binary = ["fmin", "fmax", "fdim"];
    let sp = special_f64();
    let (sx, sy) = cross(&sp, &sp);
    for name in f64_binary {
        let reference: F64x2 = glibc(name);
        let jit = compile(
            &format!("declare double @{name}(double, double) #0\n{attrs}"),
            &format!("  %r = call double @{name}(double %x, double %y) #0\n  ret double %r"),
            "double",
            "double",
            "double",
        );
        check_f64(&jit, &sx, &sy, reference, name);
    }
    // Unary calls (the clone's second parameter is unused).
    for name in ["floorf", "roundf", "sqrtf", "nearbyintf", "truncf"] {
        let reference: unsafe extern "C" fn(f32) -> f32 = glibc(name);
        let jit = compile(
            &format!("declare float @{name}(float) #0\n{attrs}"),
            &format!("  %r = call float @{name}(float %x) #0\n  ret float %r"),
            "float",
            "float",
            "float",
        );
        let mut xs: Vec<f32> = (0..1u32 << 20).map(|k| f32::from_bits(k.wrapping_mul(4093))).collect();
        xs.extend(special_f32().into_iter().map(f32::from_bits));
        let got: Vec<f32> = run(&jit, &xs, &xs);
        for (x, g) in xs.iter().zip(&got) {
            let want = unsafe { reference(*x) };
            assert_eq!(g.to_bits(), want.to_bits(), "{name}({:#x})", x.to_bits());
        }
    }
}

#[test]
fn ldexp_calls_are_glibc() {
    let attrs = "attributes #0 = { memory(none) }";
    let jit = compile(
        &format!("declare float @ldexpf(float, i32) #0\n{attrs}"),
        "  %r = call float @ldexpf(float %x, i32 %y) #0\n  ret float %r",
        "float",
        "float",
        "i32",
    );
    let mut rng = SmallRng::seed_from_u64(0x1de);
    let sp = special_f32();
    let exps = [0i32, 1, -1, 126, 127, 128, -126, -127, -149, -150, 200, -300, 300, i32::MAX, i32::MIN, 23, -24];
    let mut xs = Vec::new();
    let mut ns = Vec::new();
    for &x in &sp {
        for &e in &exps {
            xs.push(f32::from_bits(x));
            ns.push(e);
        }
    }
    for _ in 0..200_000 {
        xs.push(f32::from_bits(rng.gen()));
        ns.push(rng.gen_range(-300..300));
    }
    let got: Vec<f32> = run(&jit, &xs, &ns);
    let ldexpf_glibc: unsafe extern "C" fn(f32, i32) -> f32 = glibc("ldexpf");
    for k in 0..xs.len() {
        let want = unsafe { ldexpf_glibc(xs[k], ns[k]) };
        assert_eq!(got[k].to_bits(), want.to_bits(), "ldexpf({:#x}, {})", xs[k].to_bits(), ns[k]);
    }
    let jit = compile(
        &format!("declare double @ldexp(double, i32) #0\n{attrs}"),
        "  %r = call double @ldexp(double %x, i32 %y) #0\n  ret double %r",
        "double",
        "double",
        "i32",
    );
    let xs: Vec<f64> = (0..100_000).map(|_| f64::from_bits(rng.gen())).collect();
    let ns: Vec<i32> = (0..100_000).map(|_| rng.gen_range(-2200..2200)).collect();
    let got: Vec<f64> = run(&jit, &xs, &ns);
    let ldexp_glibc: unsafe extern "C" fn(f64, i32) -> f64 = glibc("ldexp");
    for k in 0..xs.len() {
        let want = unsafe { ldexp_glibc(xs[k], ns[k]) };
        assert_eq!(got[k].to_bits(), want.to_bits(), "ldexp({:#x}, {})", xs[k].to_bits(), ns[k]);
    }
}

/// Edge values of an integer type of `bits` bits, as i64: 0, ±1, ±2,
/// MIN, MAX, powers of two and their neighbours.
fn int_edges(bits: u32) -> Vec<i64> {
    let min = -(1i64 << (bits - 1));
    let max = (1i64 << (bits - 1)) - 1;
    let mut v = vec![0, 1, -1, 2, -2, 3, -3, 7, -7, min, max, min + 1, max - 1];
    for k in 1..bits - 1 {
        for d in [-1, 0, 1] {
            v.push((1i64 << k) + d);
            v.push(-(1i64 << k) + d);
        }
    }
    v
}

macro_rules! check_division {
    ($name:ident, $t:ty, $u:ty, $ir:expr, $bits:expr, $count:expr) => {
        #[test]
        fn $name() {
            let ops = ["sdiv", "udiv", "srem", "urem"];
            let mut rng = SmallRng::seed_from_u64($bits);
            let edges = int_edges($bits);
            let (mut xs, mut ys): (Vec<$t>, Vec<$t>) = (Vec::new(), Vec::new());
            for &a in &edges {
                for &b in &edges {
                    xs.push(a as $t);
                    ys.push(b as $t);
                }
            }
            for k in 0..$count {
                xs.push(rng.gen());
                let shift = k % $bits;
                ys.push(((rng.gen::<$t>() as $u) >> shift) as $t);
            }
            for op in ops {
                let body = format!("  %r = {op} {} %x, %y\n  ret {} %r", $ir, $ir);
                let jit = compile("", &body, $ir, $ir, $ir);
                let got: Vec<$t> = run(&jit, &xs, &ys);
                for k in 0..xs.len() {
                    let (a, b) = (xs[k], ys[k]);
                    let undefined = b == 0 || (op.starts_with('s') && a == <$t>::MIN && b == -1);
                    if undefined {
                        continue; // undefined in the scalar code: only "no trap" is required
                    }
                    let want = match op {
                        "sdiv" => a.wrapping_div(b),
                        "srem" => a.wrapping_rem(b),
                        "udiv" => ((a as $u) / (b as $u)) as $t,
                        _ => ((a as $u) % (b as $u)) as $t,
                    };
                    assert_eq!(got[k], want, "{op} {} {a}, {b}", $ir);
                }
            }
        }
    };
}

check_division!(i32_division_is_exact, i32, u32, "i32", 32, 1_000_000);
check_division!(i16_division_is_exact, i16, u16, "i16", 16, 300_000);
check_division!(i8_division_is_exact, i8, u8, "i8", 8, 100_000);

/// The libm *call* forms under divergent control flow
/// (`tests/corpus/real/libm_calls.ll`), checked by the oracle at 4, 8 and
/// 16 lanes, unmasked and with random masks, target-independent and AVX2:
/// exact calls are vector code, errno-setting calls that may write errno,
/// a user function named like libm and a `nobuiltin` call stay per lane.
#[test]
fn libm_calls_under_divergence_pass_the_oracle() {
    use batchify_testkit::{CheckConfig, Oracle, OracleOptions};
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus/real/libm_calls.ll");
    let bytes = std::fs::read(path).unwrap();
    let functions = [
        ("fmodf_branch", 2, 0),
        ("fmod_loop", 2, 0),
        ("dim_ldexp", 3, 0),
        ("minmax_sqrt", 2, 0),
        ("rounding_calls", 2, 0),
        ("abs_calls", 2, 0),
        ("errno_calls", 2, 0), // vector code; the calls run only in lanes that may set errno
        ("not_libm", 2, 1),    // the nobuiltin call; the module's own my_floorf calls its clone
    ];
    let mut isas = vec![("_LLVM_", vec![4, 8, 16])];
    if batchify_testkit::skip::require_cpu("libm_calls_under_divergence_pass_the_oracle (avx2)", "avx2") {
        isas.push(("d", vec![8]));
    }
    for (isa, widths) in isas {
        for w in widths {
            for mask in ["N", "M"] {
                let ctx = Context::create();
                let module = parse_module(&ctx, &bytes, "libm_calls.ll").unwrap();
                let specs: Vec<CloneSpec> = functions
                    .iter()
                    .map(|(f, params, _)| {
                        let v = format!("_ZGV{isa}{mask}{w}{}_{f}", "v".repeat(*params));
                        CloneSpec::from_variant(&VariantName::parse(&v).unwrap()).unwrap()
                    })
                    .collect();
                let reports = batchify_core::batchify_inkwell(&module, &specs, &Default::default()).unwrap();
                for (r, (f, _, per_lane)) in reports.iter().zip(functions) {
                    assert!(r.fallback.is_none(), "{f}: {:?}", r.lines());
                    assert_eq!(r.stats.serialized, per_lane, "{f}: {:?}", r.lines());
                }
                let oracle = Oracle::with_options(&module, &specs, &OracleOptions::default()).unwrap();
                match oracle.check_all(&CheckConfig { trials: 150, ..Default::default() }) {
                    Ok(stats) => assert!(stats.lanes_compared > 1000, "{stats:?}"),
                    Err(e) => panic!("{isa} {mask}{w}: {e}"),
                }
            }
        }
    }
}

/// The same code compiled for baseline x86-64 (SSE2, no SSE4.1 rounding,
/// no AVX): the vector forms must stay exact there too, and use no
/// `llvm.trunc` (a libm call per lane without SSE4.1).
#[test]
fn baseline_x86_64_forms_are_exact() {
    let cpu = r#""target-cpu"="x86-64""#;
    let mut rng = SmallRng::seed_from_u64(0xba5e);
    let jit = compile_for("", "  %r = frem float %x, %y\n  ret float %r", "float", "float", "float", cpu);
    let (xs, ys) = random_f32_pairs(&mut rng, 300_000);
    check_f32(&jit, &xs, &ys, glibc("fmodf"), "fmodf");
    let sp = special_f32();
    let (xs, ys) = cross(&sp, &sp);
    check_f32(&jit, &xs, &ys, glibc("fmodf"), "fmodf");
    let jit = compile_for("", "  %r = frem double %x, %y\n  ret double %r", "double", "double", "double", cpu);
    let xs: Vec<u64> = (0..100_000).map(|_| rng.gen()).collect();
    let ys: Vec<u64> = xs
        .iter()
        .map(|&x| (x & 0xfff0_0000_0000_0000).wrapping_sub(rng.gen_range(0..200u64) << 52) | (rng.gen::<u64>() >> 12))
        .collect();
    check_f64(&jit, &xs, &ys, glibc("fmod"), "fmod");
    let edges: Vec<u32> = int_edges(32).iter().map(|&e| e as u32).collect();
    let (mut a, mut b) = cross(&edges, &edges);
    a.extend((0..300_000).map(|_| rng.gen::<u32>()));
    b.extend((0..300_000).map(|k| rng.gen::<u32>() >> (k % 32)));
    for op in ["udiv", "urem"] {
        let jit = compile_for("", &format!("  %r = {op} i32 %x, %y\n  ret i32 %r"), "i32", "i32", "i32", cpu);
        let got: Vec<u32> = run(&jit, &a, &b);
        for k in 0..a.len() {
            if b[k] == 0 {
                continue;
            }
            let want = if op == "udiv" { a[k] / b[k] } else { a[k] % b[k] };
            assert_eq!(got[k], want, "{op} {} {}", a[k], b[k]);
        }
    }
}
