//! batchify, then Enzyme: the 4-lane clone of `smooth`, differentiated.
use std::ffi::c_int;
include!("smooth.rs");

/// The scalar function batchify batches.
#[no_mangle]
pub extern "C" fn smooth(cx: f64, cy: f64) -> f64 {
    smooth_measure(cx, cy)
}

extern "C" {
    static enzyme_dup: c_int;
    static enzyme_dupnoneed: c_int;
    fn __enzyme_autodiff(f: *const (), ...);
}

/// Asks batchify for `_ZGVdN4vv_smooth` (AVX2, 4 lanes) as a function on arrays.
#[inline(never)]
#[export_name = "__batchify_array__ZGVdN4vv_smooth"]
pub unsafe extern "C" fn smooth_x4(out: *mut f64, x: *const f64, y: *const f64) {
    for k in 0..4 {
        unsafe { *out.add(k) = smooth(*x.add(k), *y.add(k)) };
    }
}

/// The gradient of `smooth` at 4 points (d/dcx in `dx`, d/dcy in `dy`),
/// by Enzyme's reverse mode on the clone that `smooth_x4` calls.
#[no_mangle]
pub unsafe extern "C" fn smooth_x4_gradient(x: *const f64, y: *const f64, dx: *mut f64, dy: *mut f64) {
    let mut out = [0.0f64; 4];
    let mut dout = [1.0f64; 4];
    unsafe {
        __enzyme_autodiff(
            smooth_x4 as *const (),
            enzyme_dupnoneed,
            out.as_mut_ptr(),
            dout.as_mut_ptr(),
            enzyme_dup,
            x,
            dx,
            enzyme_dup,
            y,
            dy,
        );
    }
}
