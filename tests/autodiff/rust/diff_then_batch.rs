//! Enzyme, then batchify: the scalar gradient of `smooth`, batched.
include!("smooth.rs");

/// The scalar function Enzyme differentiates (named apart from
/// `batch_then_diff.rs`'s `smooth`: both kernels link into one program).
#[no_mangle]
pub extern "C" fn smooth_b(cx: f64, cy: f64) -> f64 {
    smooth_measure(cx, cy)
}

/// The gradient (d/dcx, d/dcy) that Enzyme returns for two active `f64`s.
#[repr(C)]
pub struct Pair(f64, f64);

extern "C" {
    /// Enzyme's reverse mode (any function named `__enzyme_autodiff*`).
    fn __enzyme_autodiff(f: *const (), x: f64, y: f64) -> Pair;
}

/// The gradient of `smooth_b` at one point (Enzyme's reverse mode), in `g[0..2]`.
#[no_mangle]
pub unsafe extern "C" fn smooth_gradient(x: f64, y: f64, g: *mut f64) {
    let p = unsafe { __enzyme_autodiff(smooth_b as *const (), x, y) };
    unsafe {
        g.write(p.0);
        g.add(1).write(p.1)
    };
}

/// Asks batchify for `_ZGVdN4vvl16_smooth_gradient`: 4 points, lane k's
/// gradient at `g + 2k`.
#[inline(never)]
#[export_name = "__batchify_array__ZGVdN4vvl16_smooth_gradient"]
pub unsafe extern "C" fn smooth_gradient_x4(x: *const f64, y: *const f64, g: *mut f64) {
    for k in 0..4 {
        unsafe { smooth_gradient(*x.add(k), *y.add(k), g.add(2 * k)) };
    }
}
