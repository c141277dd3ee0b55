//! Divergent-control-flow corpus (Rust): branches and matches.
//!
//! if / else-if chains, nested ifs with early returns, `match` with ranges,
//! or-patterns and a catch-all arm, guarded division (signed and unsigned),
//! NaN tests, and i8/i16/i64/f64/bool variants. All conditions depend on
//! varying parameters. Same compilation and no-panic rules as rust_loops.rs.

/// if / else-if chain joining into one value.
#[no_mangle]
pub extern "C" fn ifelse_chain_rs(x: i32, y: i32) -> i32 {
    let r = if x < -100 {
        y.wrapping_mul(3)
    } else if x < 0 {
        y ^ 0x55
    } else if x == 0 {
        y >> 3
    } else if x < 100 {
        x.wrapping_mul(y)
    } else {
        y.wrapping_sub(x)
    };
    r.wrapping_add(1)
}

/// Nested ifs with early returns at several depths.
#[no_mangle]
pub extern "C" fn nested_early_rs(a: i32, b: i32, c: i32) -> i32 {
    if a > 0 {
        if b > 0 {
            if c > 0 {
                return 1;
            }
            if c == 0 {
                return 2;
            }
            return 3;
        } else if b < -50 {
            return a.wrapping_add(b);
        }
        if c & 1 == 1 {
            return 4;
        }
    } else {
        if b == a {
            return 5;
        }
        if c < a {
            if c < b {
                return 6;
            }
            return 7;
        }
    }
    (a ^ b) & 0xff
}

/// `match` on a varying selector with or-patterns, a range and a catch-all.
/// Every arm computes from the inputs, so it cannot become a lookup table.
#[no_mangle]
pub extern "C" fn match_rs(x: u32, y: u32) -> u32 {
    match x & 15 {
        0 => y.wrapping_add(x),
        1 | 2 => (y ^ (y << 3)).wrapping_mul(2_654_435_761),
        3..=6 => !y.wrapping_sub(x >> 2),
        7 => y.rotate_left(x >> 4),
        _ => y ^ (y >> 7),
    }
}

/// i8 in and out: `match` on value ranges of a signed byte.
#[no_mangle]
pub extern "C" fn match_i8_rs(x: i8, y: i8) -> i8 {
    match x {
        i8::MIN..=-64 => y.wrapping_sub(x),
        -63..=-1 => y.wrapping_neg(),
        0 => y,
        1..=63 => x.wrapping_mul(y),
        _ => (x >> 2) ^ y,
    }
}

/// Guarded signed division and remainder (no /0, no MIN / -1).
#[no_mangle]
pub extern "C" fn div_guard_s_rs(n: i32, d: i32) -> i32 {
    let q = if d != 0 && !(n == i32::MIN && d == -1) { n.wrapping_div(d) } else { 0 };
    let r = n.checked_rem(d).unwrap_or(0);
    q.wrapping_mul(31).wrapping_add(r)
}

/// Guarded unsigned division and remainder on u64.
#[no_mangle]
pub extern "C" fn div_guard_u_rs(n: u64, d: u64) -> u64 {
    let q = if d != 0 { n / d } else { 0 };
    let r = n.checked_rem(d).unwrap_or(n);
    q ^ (r << 16)
}

/// Divergent branches on NaN tests (x != x).
#[no_mangle]
#[allow(clippy::eq_op)]
pub extern "C" fn nan_select_rs(x: f32, y: f32) -> f32 {
    if x != x {
        y
    } else if y.is_nan() {
        x
    } else if x < y {
        x * 2.0
    } else {
        y - x
    }
}

/// bool result with early returns on f64 tests.
#[no_mangle]
pub extern "C" fn in_annulus_rs(x: f64, y: f64, r0: f64) -> bool {
    if !(r0 >= 0.0) {
        return false;
    }
    let d = x * x + y * y;
    if d.is_nan() {
        return false;
    }
    if d < r0 * r0 {
        return false;
    }
    d <= (r0 + 1.0) * (r0 + 1.0)
}

/// i16 in and out with nested branches.
#[no_mangle]
pub extern "C" fn i16_branches_rs(a: i16, b: i16) -> i16 {
    if a > b {
        if (a as i32) - (b as i32) > 1000 {
            return a.wrapping_sub(1000);
        }
        return b;
    }
    if a == b {
        return 0;
    }
    ((a as i32 + b as i32) / 2) as i16
}

/// A varying bool parameter picks the branch; i64 in and out.
#[no_mangle]
pub extern "C" fn bool_param_rs(flag: bool, x: i64) -> i64 {
    if flag {
        x.wrapping_mul(0x5851_f42d_4c95_7f2d).wrapping_add(1)
    } else if x < 0 {
        x.wrapping_neg() >> 3
    } else {
        x ^ (x >> 31)
    }
}

/// A divergent join with a phi of 4-5 incoming values.
#[no_mangle]
pub extern "C" fn phi_join_rs(x: i32, y: i32) -> i32 {
    let r: u32 = if x > y {
        let mut r = (x as u32).wrapping_mul(7);
        if r & 1 == 1 {
            r ^= 0xff;
        }
        r
    } else if x == y {
        12345
    } else if y & 3 == 0 {
        (y as u32) >> 1
    } else {
        (x as u32).wrapping_sub(y as u32)
    };
    (r ^ (r >> 5)) as i32
}

/// Range-checked float->int conversion (NaN rejected), then a branch.
#[no_mangle]
pub extern "C" fn float_to_int_rs(x: f32, round_up: bool) -> i32 {
    if !(-1e9..=1e9).contains(&x) {
        return -1;
    }
    if round_up {
        x.ceil() as i32
    } else {
        x as i32
    }
}
