//! Divergent-control-flow corpus (Rust): calls of functions defined in the
//! crate.
//!
//! Every `#[no_mangle] pub extern "C"` function is a test target; its
//! helpers are private and `#[inline(never)]`, so that they stay separate
//! (internal) functions and batchify calls their clones instead of calling
//! them once per lane. Arithmetic that can overflow uses `wrapping_*`,
//! recursion depths come from masked parameters, and nothing panics.

/// A helper with a divergent `match`.
#[inline(never)]
fn classify_rs(x: i32) -> i32 {
    match x {
        i32::MIN..=-101 => -1,
        -100..=-1 => x.wrapping_mul(3),
        0..=999 => x / 7,
        _ => 5,
    }
}

/// A noinline helper with a divergent branch, called by every lane.
#[no_mangle]
pub extern "C" fn call_branchy_rs(x: i32) -> i32 {
    classify_rs(x).wrapping_add(classify_rs(x ^ 0x55))
}

/// A helper with a loop of lane-varying length.
#[inline(never)]
fn poly_steps_rs(x: f64, n: u32) -> f64 {
    let mut acc = 0.0f64;
    for _ in 0..(n & 15) {
        acc = acc * 0.5 + x;
    }
    acc
}

/// Only lanes that take the branch call the helper (partial mask).
#[no_mangle]
pub extern "C" fn call_under_branch_rs(x: f64, n: u32) -> f64 {
    if n > 3 && x < 1e6 {
        poly_steps_rs(x, n)
    } else {
        -1.0
    }
}

/// Recursive gcd with a depth cap.
#[inline(never)]
fn gcd_rec_rs(a: u64, b: u64, depth: u32) -> u64 {
    if b == 0 || depth == 0 {
        a
    } else {
        gcd_rec_rs(b, a % b, depth - 1)
    }
}

/// Recursive gcd, depth differing between lanes.
#[no_mangle]
pub extern "C" fn call_gcd_rs(a: u64, b: u64) -> u64 {
    gcd_rec_rs(a, b, 90).wrapping_add(1)
}

/// Doubly recursive Fibonacci.
#[inline(never)]
fn fib_rec_rs(n: u32) -> u32 {
    if n < 2 {
        n
    } else {
        fib_rec_rs(n - 1).wrapping_add(fib_rec_rs(n - 2))
    }
}

/// Fibonacci below 15.
#[no_mangle]
pub extern "C" fn call_fib_rs(n: u32) -> u32 {
    fib_rec_rs(n % 15)
}

/// Mutual recursion: parity by descent.
#[inline(never)]
fn is_even_rs(n: u32) -> bool {
    if n == 0 {
        true
    } else {
        is_odd_rs(n - 1)
    }
}

/// The other half of [`is_even_rs`].
#[inline(never)]
fn is_odd_rs(n: u32) -> bool {
    if n == 0 {
        false
    } else {
        is_even_rs(n - 1)
    }
}

/// Parity through mutual recursion, depth below 64.
#[no_mangle]
pub extern "C" fn call_parity_rs(n: u32) -> i32 {
    if is_even_rs(n & 63) {
        10
    } else {
        -3
    }
}

/// A helper with a uniform parameter (`k`).
#[inline(never)]
fn scale_rs(x: i64, k: i32) -> i64 {
    if k & 3 == 0 {
        x
    } else if x > 0 {
        x.wrapping_mul((k & 255) as i64)
    } else {
        x.wrapping_sub(k as i64)
    }
}

// VARIANT-PARAMS: call_uniform_arg_rs vu
/// The helper gets the uniform `k` as it is.
#[no_mangle]
pub extern "C" fn call_uniform_arg_rs(x: i64, k: i32) -> i64 {
    if x != 0 {
        scale_rs(x, k)
    } else {
        7
    }
}
