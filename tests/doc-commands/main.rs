//! An array-form request (docs/plugin.md): `steps_x8` asks for the AVX2
//! variant `_ZGVdN8vu_steps`, which the plugin builds and calls.

#[unsafe(no_mangle)]
pub extern "C" fn steps(x: f32, lo: f32) -> u32 {
    let mut x = x;
    let mut n = 0;
    while x > lo {
        x *= 0.5;
        n += 1;
    }
    n
}

/// Asks for `_ZGVdN8vu_steps` (AVX2, unmasked, 8 lanes, `x` varying, `lo` uniform).
#[inline(never)]
#[unsafe(export_name = "__batchify_array__ZGVdN8vu_steps")]
pub unsafe extern "C" fn steps_x8(out: *mut u32, x: *const f32, lo: f32) {
    for k in 0..8 {
        unsafe { *out.add(k) = steps(*x.add(k), lo) };
    }
}

fn main() {
    let x: [f32; 8] = std::array::from_fn(|k| (k * k) as f32 + 0.5);
    let mut out = [0u32; 8];
    if std::is_x86_feature_detected!("avx2") {
        unsafe { steps_x8(out.as_mut_ptr(), x.as_ptr(), 1.0) };
    } else {
        out = x.map(|x| steps(x, 1.0));
    }
    assert_eq!(out, x.map(|x| steps(x, 1.0)));
    println!("{out:?}");
}
