//! Divergent-control-flow corpus (Rust): loops whose trip counts or exits
//! differ between lanes.
//!
//! The harness compiles this file with
//! `rustc --edition 2021 --crate-type=lib -C opt-level=2 --emit=llvm-bc`
//! (and at `-C opt-level=1`). Every function is `#[no_mangle] pub extern "C"`
//! with scalar parameters; there are no helper functions. Arithmetic that can
//! overflow uses `wrapping_*`, division uses `checked_*().unwrap_or(..)`, and
//! every loop has an explicit cap, so no input panics or runs long.

/// Escape-time Mandelbrot iteration count, at most 256 iterations.
#[no_mangle]
pub extern "C" fn mandel_rs(cx: f32, cy: f32) -> i32 {
    let mut x = 0.0f32;
    let mut y = 0.0f32;
    let mut it = 0i32;
    while it < 256 {
        let x2 = x * x;
        let y2 = y * y;
        if x2 + y2 > 4.0 {
            break;
        }
        y = 2.0 * x * y + cy;
        x = x2 - y2 + cx;
        it += 1;
    }
    it
}

/// Collatz step count on u64 (3n+1 wraps), capped at 600 steps.
#[no_mangle]
pub extern "C" fn collatz_rs(n: u64) -> u32 {
    let mut n = n;
    let mut steps = 0u32;
    while n > 1 && steps < 600 {
        n = if n & 1 == 1 { n.wrapping_mul(3).wrapping_add(1) } else { n >> 1 };
        steps += 1;
    }
    steps
}

/// Newton iteration for sqrt on f64 with a convergence exit and a cap.
#[no_mangle]
pub extern "C" fn newton_sqrt_rs(a: f64) -> f64 {
    if !(a > 0.0) || a == f64::INFINITY {
        return a;
    }
    let mut x0 = if a > 1.0 { a } else { 1.0 };
    for _ in 0..1100 {
        let x1 = 0.5 * (x0 + a / x0);
        if (x1 - x0).abs() < 1e-12 {
            return x1;
        }
        x0 = x1;
    }
    x0
}

/// Newton iteration for the cube root on f32 with a convergence exit.
#[no_mangle]
pub extern "C" fn newton_cbrt_rs(a: f32) -> f32 {
    if a.is_nan() || a.is_infinite() || a == 0.0 {
        return a;
    }
    let t = a.abs();
    let mut x0 = if t > 1.0 { t } else { 1.0 };
    let mut it = 0;
    loop {
        let x1 = (2.0 * x0 + t / (x0 * x0)) / 3.0;
        it += 1;
        if (x1 - x0).abs() < 1e-6 || it >= 200 {
            x0 = x1;
            break;
        }
        x0 = x1;
    }
    if a < 0.0 {
        -x0
    } else {
        x0
    }
}

/// Euclid's gcd on u32, capped at 64 steps.
#[no_mangle]
pub extern "C" fn gcd_rs(a: u32, b: u32) -> u32 {
    let (mut a, mut b) = (a, b);
    let mut it = 0;
    while b != 0 && it < 64 {
        let t = a.checked_rem(b).unwrap_or(0);
        a = b;
        b = t;
        it += 1;
    }
    a
}

/// Loop with `continue` and `break`; the trip count x & 63 is varying.
#[no_mangle]
pub extern "C" fn break_continue_rs(x: u32, y: u32) -> u32 {
    let mut acc = 0u32;
    for i in 0..(x & 63) {
        if (y >> (i & 31)) & 1 == 1 {
            continue;
        }
        acc = acc.wrapping_mul(31).wrapping_add(i);
        if acc > y && i > 5 {
            break;
        }
    }
    acc
}

/// Nested loops; the inner bound depends on the outer counter and a varying
/// parameter.
#[no_mangle]
pub extern "C" fn nested_varying_rs(a: i32, b: i32) -> i64 {
    let mut acc = 1i64;
    let n = a & 15;
    let mut i = 0;
    while i < n {
        let m = i + (b & 7);
        let mut j = 0;
        while j < m {
            acc = acc.wrapping_mul(3).wrapping_add((i ^ j) as i64);
            j += 1;
        }
        i += 1;
    }
    acc
}

/// A loop inside a branch that some lanes skip.
#[no_mangle]
pub extern "C" fn loop_in_branch_rs(x: i32, y: u32) -> u32 {
    let mut r = y;
    if x > 0 {
        let mut k = 0u32;
        while k < (x as u32 & 31) {
            r = r.wrapping_mul(5).wrapping_add(k);
            k += 1;
        }
    } else {
        r ^= 0xdead_beef;
    }
    r
}

/// Loop with multiple exits (two returns from inside the loop).
#[no_mangle]
pub extern "C" fn multi_exit_rs(x: u64, y: u64) -> i32 {
    let mut i = 0u32;
    while i < 64 {
        if (x >> i) & 1 == 1 && (y >> i) & 1 == 1 {
            return i as i32;
        }
        if (x ^ y) >> i == 0 {
            return -1 - i as i32;
        }
        i += 1;
    }
    99
}

/// Early return from inside a nested loop with a lane-varying inner bound.
/// The running hash h keeps the inner loop from being vectorized at -O2.
#[no_mangle]
pub extern "C" fn nested_find_rs(x: u32, y: u32) -> i32 {
    let mut h = y;
    for i in 0..8u32 {
        let m = (y & 7) + 1;
        for j in 0..m {
            h = h.wrapping_mul(5).wrapping_add(j);
            if i != j && (x >> (i * 4)) & 15 == h & 15 {
                return (i * 8 + j) as i32;
            }
        }
    }
    -1
}

/// f64 sum with a lane-varying trip count (order of the sum matters).
#[no_mangle]
pub extern "C" fn varying_sum_rs(x: f64, n: u32) -> f64 {
    let mut s = 0.0f64;
    let m = n & 63;
    let mut i = 0u32;
    while i < m {
        s += x / (i + 1) as f64;
        i += 1;
    }
    s
}

/// `while` whose condition mixes a uniform part (i < (n & 31)) and a varying
/// part (v > 10).
// VARIANT-PARAMS: while_mixed_rs vu
#[no_mangle]
pub extern "C" fn while_mixed_rs(x: u32, n: u32) -> u32 {
    let mut i = 0u32;
    let mut v = x;
    while i < (n & 31) && v > 10 {
        v = v / 3 + i;
        i += 1;
    }
    v.wrapping_mul(64).wrapping_add(i)
}

/// A uniform loop with a divergent `if` inside.
// VARIANT-PARAMS: uniform_loop_div_if_rs vu
#[no_mangle]
pub extern "C" fn uniform_loop_div_if_rs(x: f32, n: u32) -> f32 {
    let mut acc = 0.0f32;
    for i in 0..(n & 31) {
        let fi = i as f32;
        if x > fi {
            acc += (x - fi).sqrt();
        } else {
            acc = acc * 0.5 - 1.0;
        }
    }
    acc
}

/// A divergent loop with a uniform `if` inside.
// VARIANT-PARAMS: div_loop_uniform_if_rs vu
#[no_mangle]
pub extern "C" fn div_loop_uniform_if_rs(x: u32, mode: u32) -> u32 {
    let mut x = x;
    let mut steps = 0u32;
    while x > 1 && steps < 64 {
        if mode & 1 == 1 {
            x >>= 1;
        } else {
            x = x - (x >> 2) - 1;
        }
        steps += 1;
    }
    steps * 1000 + (x & 0xff)
}

/// do-while (`loop` with the test at the end): decimal digit count.
#[no_mangle]
pub extern "C" fn do_while_digits_rs(x: u64) -> u32 {
    let mut x = x;
    let mut n = 0u32;
    loop {
        x /= 10;
        n += 1;
        if x == 0 || n >= 24 {
            break;
        }
    }
    n
}

/// Bisection for the real root of x^3 + x - c with a fixed cap of 60 steps
/// and a divergent early exit.
#[no_mangle]
pub extern "C" fn bisect_cubic_rs(c: f64) -> f64 {
    if !(c.abs() <= 1.0e6) {
        return c;
    }
    let mut lo = -101.0f64;
    let mut hi = 101.0f64;
    for _ in 0..60 {
        let mid = 0.5 * (lo + hi);
        let fm = mid * mid * mid + mid - c;
        if fm == 0.0 || mid == lo || mid == hi {
            return mid;
        }
        if fm < 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}
