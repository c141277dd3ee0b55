/// The smooth Mandelbrot escape measure at c = (cx, cy).
#[inline(always)]
fn smooth_measure(cx: f64, cy: f64) -> f64 {
    let (mut x, mut y, mut it) = (0.0f64, 0.0f64, 0i32);
    while it < 200 && x * x + y * y <= 256.0 {
        let xt = x * x - y * y + cx;
        y = 2.0 * x * y + cy;
        x = xt;
        it += 1;
    }
    it as f64 + 1.0 - ((x * x + y * y).ln() * 0.5).ln() / 2f64.ln()
}
