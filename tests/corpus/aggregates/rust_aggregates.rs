//! Aggregates corpus (Rust): tuples and small structs returned by value
//! (Rust ABI: `{float, float}`, `{i32, i1}`), built under divergent
//! branches, returned by helpers that become batched callees, and checked
//! arithmetic (`{iN, i1}` overflow intrinsics). See README.md. Nothing
//! panics.

#[inline(never)]
fn pair(x: f32, y: f32) -> (f32, f32) {
    if x > y {
        (x - y, x * y)
    } else {
        (y, x + 1.0)
    }
}

/// A tuple from a helper called per element: the helper's clone returns
/// `{<N x float>, <N x float>}`.
#[no_mangle]
pub fn use_pair_rs(x: f32, y: f32) -> f32 {
    let (a, b) = pair(x, y);
    a * b - x
}

/// A tuple result (Rust ABI `{float, float}`).
#[no_mangle]
pub fn minmax_rs(a: f32, b: f32, c: f32) -> (f32, f32) {
    let lo = if a < b { a } else { b };
    let hi = if a < b { b } else { a };
    if c < lo {
        (c, hi)
    } else if c > hi {
        (lo, c)
    } else {
        (lo, hi)
    }
}

/// `overflowing_add`: an `{i32, i1}` result.
#[no_mangle]
pub fn add_flag_rs(x: u32, y: u32) -> (u32, bool) {
    x.overflowing_add(y)
}

/// Checked arithmetic chains (`llvm.smul.with.overflow`, `llvm.sadd.with.overflow`).
#[no_mangle]
pub fn poly_checked_rs(x: i32, y: i32) -> i32 {
    x.checked_mul(x)
        .and_then(|s| s.checked_add(y))
        .and_then(|s| s.checked_mul(3))
        .unwrap_or(-1)
}

/// Checked multiplication in a loop with a varying trip count.
#[no_mangle]
pub fn pow_checked_rs(b: u64, e: u32) -> u64 {
    let mut r: u64 = 1;
    for _ in 0..(e & 31) {
        match r.checked_mul(b) {
            Some(v) => r = v,
            None => return u64::MAX,
        }
    }
    r
}

#[derive(Clone, Copy)]
pub struct Acc {
    pub sum: u32,
    pub steps: u32,
}

#[inline(never)]
fn collatz(mut x: u32) -> Acc {
    let mut acc = Acc { sum: 0, steps: 0 };
    while x > 1 && acc.steps < 100 {
        x = if x % 2 == 0 { x / 2 } else { x.wrapping_mul(3).wrapping_add(1) };
        acc.sum = acc.sum.wrapping_add(x);
        acc.steps += 1;
    }
    acc
}

/// A struct from a helper with a divergent loop.
#[no_mangle]
pub fn collatz_rs(x: u32) -> u32 {
    let a = collatz(x & 1023);
    a.sum ^ (a.steps << 20)
}

/// A struct result (`{i32, i32}`) with checked subtraction.
#[no_mangle]
pub fn diff_rs(a: i32, b: i32) -> Acc {
    match a.checked_sub(b) {
        Some(d) if d >= 0 => Acc { sum: d as u32, steps: 1 },
        _ => Acc { sum: b.wrapping_sub(a) as u32, steps: 0 },
    }
}
