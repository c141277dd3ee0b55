//! Already-vectorized input (Rust): iterator code that rustc's LLVM
//! vectorizes before batchify sees it. See README.md. Every function is
//! `#[no_mangle] pub extern "C"`; nothing panics.

/// A wrapping sum over a uniform array with a varying key (reduce.add).
// VARIANT-PARAMS: keyed_sum_rs uv
#[no_mangle]
pub extern "C" fn keyed_sum_rs(t: &[u32; 64], key: u32) -> u32 {
    t.iter().fold(0u32, |s, &v| s.wrapping_add((v ^ key).wrapping_mul(5)))
}

/// How many entries are below a varying key (compare, zext, reduce).
// VARIANT-PARAMS: rank_rs uv
#[no_mangle]
pub extern "C" fn rank_rs(t: &[i32; 32], key: i32) -> usize {
    t.iter().filter(|&&v| v < key).count()
}

/// The largest of a uniform array's entries after a varying shift (smax).
// VARIANT-PARAMS: max_shifted_rs uv
#[no_mangle]
pub extern "C" fn max_shifted_rs(t: &[i32; 16], s: u32) -> i32 {
    let mut m = i32::MIN;
    for &v in t {
        m = m.max(v.wrapping_shr(s & 7));
    }
    m
}

/// A position search with an early exit.
// VARIANT-PARAMS: position_rs uv
#[no_mangle]
pub extern "C" fn position_rs(t: &[u16; 64], key: u16) -> i64 {
    match t.iter().position(|&v| v == key) {
        Some(p) => p as i64,
        None => -1,
    }
}
