//! Divergent-control-flow corpus (Rust): floating-point remainders,
//! rounding, min/max, sqrt and integer division under divergent control flow
//! (issue 8, items 5 and 7).
//!
//! The harness compiles this file with
//! `rustc --edition 2021 --crate-type=lib -C opt-level=2 --emit=llvm-bc`
//! (and at `-C opt-level=1`). `%` on floats is `frem`; `floor`, `ceil`,
//! `round`, `trunc`, `abs`, `copysign`, `min`, `max` and `sqrt` are
//! `@llvm.*` intrinsics. Division uses `checked_*().unwrap_or(..)`.

/// `%` on f32 in a loop whose trip count differs between lanes.
#[no_mangle]
pub extern "C" fn fmod_loop_rs(x: f32, y: f32) -> f32 {
    let mut r = x;
    let mut n = 0;
    while r.abs() > 1.0 && n < 12 {
        r = (r * 3.5 + 1.0) % y;
        n += 1;
    }
    r + n as f32
}

/// `%` on f64 on some lanes only.
#[no_mangle]
pub extern "C" fn fmod_branch_rs(x: f64, y: f64) -> f64 {
    if x > y {
        x % y
    } else if x.is_nan() {
        y % 7.5
    } else {
        y
    }
}

/// A rounding function per lane, chosen by a varying `match`.
#[no_mangle]
pub extern "C" fn round_mix_rs(x: f64, k: i32) -> f64 {
    match k & 7 {
        0 => x.floor(),
        1 => x.ceil(),
        2 => x.round(),
        3 => x.trunc(),
        4 => x.abs().copysign(-x),
        _ => x.sqrt(),
    }
}

/// `min`/`max` with NaNs and signed zeros, in branches.
#[no_mangle]
pub extern "C" fn minmax_rs(x: f32, y: f32) -> f32 {
    if x.is_nan() {
        y.max(x)
    } else if x < y {
        x.min(y * 0.5)
    } else {
        x.max(-y).sqrt()
    }
}

/// Signed division and remainder in a divergent loop.
#[no_mangle]
pub extern "C" fn idiv_loop_rs(a: i32, b: i32) -> i32 {
    if b == 0 || b == 1 || b == -1 {
        return a & 255;
    }
    let mut a = a;
    let mut s = 0i32;
    let mut n = 0;
    while a != 0 && n < 40 {
        s = s.wrapping_add(a.checked_rem(b).unwrap_or(0));
        a = a.checked_div(b).unwrap_or(0);
        n += 1;
    }
    s
}

/// Unsigned 16-bit division by a varying divisor, guarded.
#[no_mangle]
pub extern "C" fn u16_div_rs(a: u16, b: u16) -> u16 {
    if a > b {
        a.checked_div(b).unwrap_or(1).wrapping_add(a.checked_rem(b | 1).unwrap_or(0))
    } else {
        b.wrapping_sub(a)
    }
}
