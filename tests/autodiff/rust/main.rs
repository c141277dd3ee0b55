//! Both orders against Enzyme's scalar gradient, on 4,096 points around the
//! Mandelbrot set: batchify, then Enzyme (reverse mode on the 4-lane clone,
//! `batch_then_diff.rs`) and Enzyme, then batchify (the scalar gradient
//! batched to 4 lanes, `diff_then_batch.rs`). Prints one `ok:` line, or
//! panics at the first gradient more than 1e-12 (relative) off.

extern "C" {
    fn smooth(x: f64, y: f64) -> f64;
    fn smooth_x4_gradient(x: *const f64, y: *const f64, dx: *mut f64, dy: *mut f64);
    fn smooth_gradient(x: f64, y: f64, g: *mut f64);
    #[link_name = "__batchify_array__ZGVdN4vvl16_smooth_gradient"]
    fn smooth_gradient_x4(x: *const f64, y: *const f64, g: *mut f64);
}

fn main() {
    let n = 4096;
    let points: Vec<(f64, f64)> = (0..n)
        .map(|k| (-2.0 + 2.5 * ((k * 37) % 64) as f64 / 64.0, -1.2 + 2.4 * ((k * 11) % 64) as f64 / 64.0))
        .collect();
    let (mut exact_batch_first, mut exact_diff_first, mut worst) = (0, 0, 0.0f64);
    for c in points.chunks(4) {
        let x: Vec<f64> = c.iter().map(|p| p.0).collect();
        let y: Vec<f64> = c.iter().map(|p| p.1).collect();
        let (mut dx, mut dy, mut g) = ([0.0; 4], [0.0; 4], [0.0; 8]);
        unsafe {
            smooth_x4_gradient(x.as_ptr(), y.as_ptr(), dx.as_mut_ptr(), dy.as_mut_ptr());
            smooth_gradient_x4(x.as_ptr(), y.as_ptr(), g.as_mut_ptr());
        }
        for k in 0..4 {
            let mut want = [0.0; 2];
            unsafe { smooth_gradient(x[k], y[k], want.as_mut_ptr()) };
            let got = [
                (dx[k], want[0], true),
                (dy[k], want[1], true),
                (g[2 * k], want[0], false),
                (g[2 * k + 1], want[1], false),
            ];
            for (got, want, batch_first) in got {
                if got.to_bits() == want.to_bits() {
                    if batch_first {
                        exact_batch_first += 1
                    } else {
                        exact_diff_first += 1
                    }
                }
                let rel = (got - want).abs() / want.abs().max(1e-300);
                worst = worst.max(rel);
                assert!(rel <= 1e-12, "({}, {}): gradient {got} against Enzyme's scalar {want}", x[k], y[k]);
            }
        }
    }
    println!(
        "ok: {} gradient components per order; bit for bit: batchify then Enzyme {exact_batch_first}, \
         Enzyme then batchify {exact_diff_first}; largest relative difference {worst:.3e}; smooth(1, 1) = {}",
        2 * n,
        unsafe { smooth(1.0, 1.0) }
    );
}
