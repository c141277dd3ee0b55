//! The inputs on which glibc's math functions set `errno` lie in the sets
//! that `--for-autodiff` clones give the real call
//! (`analysis::calls::errno_inputs`, `emit::libm`'s `autodiff_math_call`):
//! every other lane computes the function with the vector intrinsic, which
//! sets no `errno`, so a set that missed an input would lose an `errno`
//! that the scalar code sets. Checked against the host's libm (glibc 2.36
//! on the reference machine) on special values, a fine sweep across the
//! overflow and underflow thresholds and random bit patterns, for the
//! `double` and `float` function of every family.

use batchify_core::analysis::calls::errno_inputs;

mod libm {
    extern "C" {
        pub fn __errno_location() -> *mut i32;
        pub fn log(x: f64) -> f64;
        pub fn log2(x: f64) -> f64;
        pub fn log10(x: f64) -> f64;
        pub fn exp(x: f64) -> f64;
        pub fn exp2(x: f64) -> f64;
        pub fn sin(x: f64) -> f64;
        pub fn cos(x: f64) -> f64;
        pub fn sinh(x: f64) -> f64;
        pub fn cosh(x: f64) -> f64;
        pub fn tanh(x: f64) -> f64;
        pub fn asin(x: f64) -> f64;
        pub fn acos(x: f64) -> f64;
        pub fn atan(x: f64) -> f64;
        pub fn logf(x: f32) -> f32;
        pub fn log2f(x: f32) -> f32;
        pub fn log10f(x: f32) -> f32;
        pub fn expf(x: f32) -> f32;
        pub fn exp2f(x: f32) -> f32;
        pub fn sinf(x: f32) -> f32;
        pub fn cosf(x: f32) -> f32;
        pub fn sinhf(x: f32) -> f32;
        pub fn coshf(x: f32) -> f32;
        pub fn tanhf(x: f32) -> f32;
        pub fn asinf(x: f32) -> f32;
        pub fn acosf(x: f32) -> f32;
        pub fn atanf(x: f32) -> f32;
    }
}

type F64 = unsafe extern "C" fn(f64) -> f64;
type F32 = unsafe extern "C" fn(f32) -> f32;

const DOUBLES: &[(&str, F64)] = &[
    ("log", libm::log),
    ("log2", libm::log2),
    ("log10", libm::log10),
    ("exp", libm::exp),
    ("exp2", libm::exp2),
    ("sin", libm::sin),
    ("cos", libm::cos),
    ("sinh", libm::sinh),
    ("cosh", libm::cosh),
    ("tanh", libm::tanh),
    ("asin", libm::asin),
    ("acos", libm::acos),
    ("atan", libm::atan),
];

const FLOATS: &[(&str, F32)] = &[
    ("logf", libm::logf),
    ("log2f", libm::log2f),
    ("log10f", libm::log10f),
    ("expf", libm::expf),
    ("exp2f", libm::exp2f),
    ("sinf", libm::sinf),
    ("cosf", libm::cosf),
    ("sinhf", libm::sinhf),
    ("coshf", libm::coshf),
    ("tanhf", libm::tanhf),
    ("asinf", libm::asinf),
    ("acosf", libm::acosf),
    ("atanf", libm::atanf),
];

/// Whether `f(x)` sets `errno`.
fn sets_errno<T>(f: impl Fn(T) -> T, x: T) -> bool {
    unsafe {
        *libm::__errno_location() = 0;
        std::hint::black_box(f(std::hint::black_box(x)));
        *libm::__errno_location() != 0
    }
}

/// Inputs: special values, every quarter from -1100 to 1100 and around
/// the thresholds in small steps, and random bit patterns.
fn inputs() -> Vec<f64> {
    let mut xs = vec![
        0.0,
        -0.0,
        1.0,
        -1.0,
        f64::MIN_POSITIVE,
        -f64::MIN_POSITIVE,
        f64::from_bits(1),
        -f64::from_bits(1),
        f64::MAX,
        f64::MIN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        -f64::NAN,
        1.0 + f64::EPSILON,
        -1.0 - f64::EPSILON,
        f32::MIN_POSITIVE as f64,
        f32::from_bits(1) as f64,
    ];
    for k in -4400..=4400 {
        xs.push(k as f64 * 0.25);
    }
    for t in [
        87.0, 88.0, 89.0, 103.0, 125.0, 126.0, 128.0, 150.0, 708.0, 709.0, 710.0, 745.0, 1021.0, 1022.0, 1024.0, 1075.0,
    ] {
        for k in -400..=400 {
            xs.push(t + k as f64 * 1.0 / 256.0);
            xs.push(-(t + k as f64 * 1.0 / 256.0));
        }
    }
    let mut s = 0x9E37_79B9_7F4A_7C15u64;
    for _ in 0..200_000 {
        s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        xs.push(f64::from_bits(s));
        xs.push(f32::from_bits((s >> 32) as u32) as f64);
    }
    xs
}

#[test]
fn glibc_sets_errno_only_inside_the_sets() {
    let xs = inputs();
    let mut wrong = Vec::new();
    let mut set_count = 0usize;
    for &(name, f) in DOUBLES {
        let set = errno_inputs(name).unwrap_or_else(|| panic!("no errno set for {name}"));
        for &x in &xs {
            if sets_errno(|v| unsafe { f(v) }, x) {
                set_count += 1;
                if !set.contains(x) {
                    wrong.push(format!("{name}({x:e}) sets errno, outside {set:?}"));
                }
            }
        }
    }
    for &(name, f) in FLOATS {
        let set = errno_inputs(name).unwrap_or_else(|| panic!("no errno set for {name}"));
        for &x in &xs {
            let x = x as f32;
            if sets_errno(|v| unsafe { f(v) }, x) {
                set_count += 1;
                // The clone compares the `float` against the threshold
                // rounded to `float` (the thresholds are integers).
                if !set.contains(x as f64) {
                    wrong.push(format!("{name}({x:e}) sets errno, outside {set:?}"));
                }
            }
        }
    }
    wrong.truncate(20);
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    // The check saw errno being set (the sets are not vacuous).
    assert!(set_count > 1000, "errno was set only {set_count} times");
    eprintln!("errno_sets: {} inputs per function, errno set {set_count} times, always inside the set", xs.len());
}

#[test]
fn pow_has_no_set() {
    // pow's errno inputs depend on both arguments: a `pow` call that may
    // write errno stays per lane in --for-autodiff clones.
    assert_eq!(errno_inputs("pow"), None);
    assert_eq!(errno_inputs("powf"), None);
    assert_eq!(errno_inputs("tan"), None);
}
