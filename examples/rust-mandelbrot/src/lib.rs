//! Three workloads for `#[batchify::batch]`, each with an 8-lane version
//! (`f_x8`, from the macro) and a scalar one (8 calls of `f` per chunk of
//! 8 inputs):
//!
//! * [`mandel`]: the escape count of one Mandelbrot pixel; lanes leave the
//!   loop at different iterations.
//! * [`cbrt_newton`]: a cube root by Newton's method from a poor start, so
//!   the number of iterations differs a lot between lanes.
//! * [`interp`]: piecewise-linear interpolation in a uniform table, found by
//!   binary search in a uniform `&[f32]`.
//!
//! A plain build (`cargo run --release`) runs each `f_x8` as a scalar loop;
//! `cargo batchify run --release` runs batchify's AVX2 variants. Both give
//! the same results, bit for bit.

#![warn(missing_docs)]

/// The lanes of every batched function here.
pub const LANES: usize = 8;

/// The Mandelbrot escape count of `c = cx + i cy`: the number of iterations
/// of `z = z² + c` from 0 before `|z| > 2`, at most `max_iter`.
#[batchify::batch(width = 8, uniform(max_iter))]
pub fn mandel(cx: f32, cy: f32, max_iter: u32) -> u32 {
    let (mut x, mut y) = (0.0f32, 0.0f32);
    let mut n = 0;
    // The order of the two tests does not change the result. With the
    // escape test first, batchify's variant is one loop with one branch
    // (with `n < max_iter` first, it has four branches per iteration and
    // 50% more instructions, though no measurable slowdown here).
    while x * x + y * y <= 4.0 && n < max_iter {
        let t = x * x - y * y + cx;
        y = 2.0 * x * y + cy;
        x = t;
        n += 1;
    }
    n
}

/// The most Newton steps [`cbrt_newton`] takes.
pub const MAX_NEWTON: u32 = 200;

/// The cube root of `a` by Newton's method on `x³ = a`, started at `a`
/// itself (or ±1 when `|a| < 1`), until a step changes `x` by at most a
/// millionth of it (or [`MAX_NEWTON`] steps). From that start the number of
/// steps grows with `|log a|`: from 1 for `a = ±1` to about 90 for the
/// smallest `f32`s and 150 for the largest. `0`, NaN and infinities are returned as they are.
#[batchify::batch(width = 8)]
pub fn cbrt_newton(a: f32) -> f32 {
    if a == 0.0 || a.is_nan() || a.is_infinite() {
        return a;
    }
    let mut x = if a.abs() > 1.0 {
        a
    } else if a > 0.0 {
        1.0
    } else {
        -1.0
    };
    let mut steps = 0;
    while steps < MAX_NEWTON {
        // x - (x³ - a) / 3x², written so that a huge x cannot overflow:
        // x² = inf only makes a / x² = 0, and the step is then x / 3.
        let next = x - (x - a / (x * x)) / 3.0;
        let converged = (next - x).abs() <= 1e-6 * next.abs();
        x = next;
        steps += 1;
        if converged {
            break;
        }
    }
    x
}

/// Piecewise-linear interpolation of the points `(xs[i], ys[i])` at `x`,
/// `xs` ascending: `ys[0]` left of `xs[0]` (and for NaN), the last `y` right
/// of the last `x`. The interval is found by binary search. Only the first
/// `min(xs.len(), ys.len())` points count; with none, the result is 0.
#[batchify::batch(width = 8, uniform(xs, ys))]
pub fn interp(xs: &[f32], ys: &[f32], x: f32) -> f32 {
    let n = xs.len().min(ys.len());
    if n == 0 {
        return 0.0;
    }
    if x.is_nan() || x <= xs[0] {
        return ys[0];
    }
    if x >= xs[n - 1] {
        return ys[n - 1];
    }
    // Invariant: xs[lo] < x < xs[hi] or xs[lo] <= x; hi - lo >= 1.
    let (mut lo, mut hi) = (0, n - 1);
    while hi - lo > 1 {
        let mid = (lo + hi) / 2;
        if xs[mid] <= x {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let t = (x - xs[lo]) / (xs[hi] - xs[lo]);
    ys[lo] + t * (ys[hi] - ys[lo])
}

/// A Mandelbrot image: `width × height` pixels, pixel `(i, j)` at
/// `c = (x0 + i·step) + (y0 + j·step) i`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct View {
    /// Pixels per row.
    pub width: usize,
    /// Rows.
    pub height: usize,
    /// The real part of column 0.
    pub x0: f32,
    /// The imaginary part of row 0.
    pub y0: f32,
    /// The distance between neighbouring pixels.
    pub step: f32,
    /// The iteration limit.
    pub max_iter: u32,
}

impl View {
    /// The classic view of the whole set, `width` pixels wide (3:2).
    pub fn whole(width: usize, max_iter: u32) -> Self {
        let step = 3.0 / width as f32;
        Self { width, height: width * 2 / 3, x0: -2.2, y0: -1.0, step, max_iter }
    }

    /// The real parts of the columns `i..i + LANES` (past the right edge too).
    fn columns(&self, i: usize) -> [f32; LANES] {
        std::array::from_fn(|k| self.x0 + (i + k) as f32 * self.step)
    }

    /// The image with [`mandel_x8`]: 8 pixels of a row per call; a row's last
    /// partial chunk computes (and drops) pixels past the edge.
    pub fn render_x8(&self) -> Vec<u32> {
        let mut out = vec![0; self.width * self.height];
        for (j, row) in out.chunks_mut(self.width.max(1)).enumerate() {
            let cy = [self.y0 + j as f32 * self.step; LANES];
            for (c, chunk) in row.chunks_mut(LANES).enumerate() {
                let counts = mandel_x8(self.columns(c * LANES), cy, self.max_iter);
                chunk.copy_from_slice(&counts[..chunk.len()]);
            }
        }
        out
    }

    /// The same image with 8 calls of [`mandel`] per chunk.
    pub fn render_scalar(&self) -> Vec<u32> {
        let mut out = vec![0; self.width * self.height];
        for (j, row) in out.chunks_mut(self.width.max(1)).enumerate() {
            let cy = self.y0 + j as f32 * self.step;
            for (c, chunk) in row.chunks_mut(LANES).enumerate() {
                let cx = self.columns(c * LANES);
                for (k, pixel) in chunk.iter_mut().enumerate() {
                    *pixel = mandel(cx[k], cy, self.max_iter);
                }
            }
        }
        out
    }
}

/// `f8` over `inputs`, 8 at a time; the last partial chunk is padded with
/// `pad` and the extra results dropped.
pub fn map_x8(inputs: &[f32], pad: f32, f8: impl Fn([f32; LANES]) -> [f32; LANES]) -> Vec<f32> {
    let mut out = Vec::with_capacity(inputs.len());
    for chunk in inputs.chunks(LANES) {
        let lanes = std::array::from_fn(|k| chunk.get(k).copied().unwrap_or(pad));
        out.extend_from_slice(&f8(lanes)[..chunk.len()]);
    }
    out
}

/// `f` over `inputs`, one call per input (8 per chunk of 8).
pub fn map_scalar(inputs: &[f32], f: impl Fn(f32) -> f32) -> Vec<f32> {
    inputs.iter().map(|&x| f(x)).collect()
}

/// Cube roots of `inputs` with [`cbrt_newton_x8`].
pub fn cbrts_x8(inputs: &[f32]) -> Vec<f32> {
    map_x8(inputs, 1.0, cbrt_newton_x8)
}

/// Cube roots of `inputs` with [`cbrt_newton`].
pub fn cbrts_scalar(inputs: &[f32]) -> Vec<f32> {
    map_scalar(inputs, cbrt_newton)
}

/// [`interp`] of `(xs, ys)` at each input, with [`interp_x8`].
pub fn interps_x8(xs: &[f32], ys: &[f32], inputs: &[f32]) -> Vec<f32> {
    map_x8(inputs, 0.0, |x| interp_x8(xs, ys, x))
}

/// [`interp`] of `(xs, ys)` at each input, with [`interp`].
pub fn interps_scalar(xs: &[f32], ys: &[f32], inputs: &[f32]) -> Vec<f32> {
    map_scalar(inputs, |x| interp(xs, ys, x))
}

/// A small xorshift generator: reproducible inputs, no dependency.
#[derive(Clone, Debug)]
pub struct Rng(pub u64);

impl Rng {
    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// Uniform in `[lo, hi)`.
    pub fn uniform(&mut self, lo: f32, hi: f32) -> f32 {
        let unit = (self.next_u64() >> 40) as f32 / (1u64 << 24) as f32;
        lo + (hi - lo) * unit
    }
}

/// `n` inputs for [`cbrt_newton`]: signed, magnitudes spread evenly over
/// `10^-6 .. 10^6` in logarithm, so lanes need between 1 and ~30 steps.
pub fn cbrt_inputs(n: usize, seed: u64) -> Vec<f32> {
    let mut r = Rng(seed);
    (0..n)
        .map(|_| {
            let magnitude = 10f32.powf(r.uniform(-6.0, 6.0));
            if r.next_u64() & 1 == 0 {
                magnitude
            } else {
                -magnitude
            }
        })
        .collect()
}

/// A table of `n` points of `sin` on `[0, 2π]`, unevenly spaced (denser
/// near 0), for [`interp`].
pub fn sine_table(n: usize) -> (Vec<f32>, Vec<f32>) {
    let xs: Vec<f32> = (0..n).map(|i| (i as f32 / (n - 1).max(1) as f32).powi(2) * std::f32::consts::TAU).collect();
    let ys = xs.iter().map(|x| x.sin()).collect();
    (xs, ys)
}

/// `n` inputs for [`interp`] on [`sine_table`]: uniform on `[-0.5, 7]`, a
/// little past both ends.
pub fn interp_inputs(n: usize, seed: u64) -> Vec<f32> {
    let mut r = Rng(seed);
    (0..n).map(|_| r.uniform(-0.5, 7.0)).collect()
}

/// An order-dependent checksum of `f32` results (their bits).
pub fn checksum_f32(values: &[f32]) -> u64 {
    values.iter().fold(0xcbf2_9ce4_8422_2325, |h, v| (h ^ u64::from(v.to_bits())).wrapping_mul(0x100_0000_01b3))
}

/// An order-dependent checksum of `u32` results.
pub fn checksum_u32(values: &[u32]) -> u64 {
    values.iter().fold(0xcbf2_9ce4_8422_2325, |h, &v| (h ^ u64::from(v)).wrapping_mul(0x100_0000_01b3))
}

/// Whether two `f32` results are the same: equal bits, or both NaN.
pub fn same_f32(a: f32, b: f32) -> bool {
    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
}
