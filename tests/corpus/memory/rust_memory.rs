//! Memory-access corpus (Rust): array references and slices read and
//! written at contiguous, strided and random indices, with bounds checks.
//! See README.md. Every function is `#[no_mangle] pub extern "C"`; nothing
//! panics (indices are checked with `get` or masked into range).

/// Contiguous read through a linear `u8` index (wraps at 256).
// VARIANT-PARAMS: arr_read_rs ul
#[no_mangle]
pub extern "C" fn arr_read_rs(t: &[f32; 256], i: u8) -> f32 {
    t[i as usize] * 0.5 + 1.0
}

/// Bounds-checked read of a 64-element array by a linear `u32` index: the
/// check is a divergent branch, the read a masked vector access.
// VARIANT-PARAMS: checked_get_rs ul
#[no_mangle]
pub extern "C" fn checked_get_rs(t: &[i32; 64], i: u32) -> i32 {
    match t.get(i as usize) {
        Some(v) => v.wrapping_mul(3),
        None => -1,
    }
}

/// Masked write through a mutable array reference.
// VARIANT-PARAMS: arr_write_rs ulv
#[no_mangle]
pub extern "C" fn arr_write_rs(t: &mut [f64; 256], i: u8, x: f64) {
    if x > 0.0 {
        t[i as usize] = x.sqrt();
    }
}

/// Array of pairs: one field read with a 16-byte stride.
// VARIANT-PARAMS: pairs_rs ul
#[no_mangle]
pub extern "C" fn pairs_rs(t: &[(f64, f64); 256], i: u8) -> f64 {
    let (a, b) = t[i as usize];
    a * b
}

/// Random index into a table: a gather.
// VARIANT-PARAMS: table_rs uv
#[no_mangle]
pub extern "C" fn table_rs(t: &[u16; 128], x: u32) -> u32 {
    t[(x.wrapping_mul(2654435761) >> 25) as usize] as u32
}

/// A divergent search over a uniform table.
// VARIANT-PARAMS: search_rs uv
#[no_mangle]
pub extern "C" fn search_rs(t: &[i32; 32], key: i32) -> u32 {
    let mut k = 0u32;
    while (k as usize) < 32 && t[k as usize] < key {
        k += 1;
    }
    k
}

/// A small constant table at a varying index (a bounds-checked slice
/// index that cannot fail): a register permute on AVX2 and AVX-512.
static GAINS: [f32; 8] = [0.5, -1.25, 3.0, 7.5, -0.0, 1e-3, 42.0, -9.75];

#[no_mangle]
pub extern "C" fn gain_rs(k: u32, x: f32) -> f32 {
    x * GAINS[(k % 8) as usize]
}
