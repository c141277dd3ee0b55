//! Each `f_x8` against 8 calls of `f`, lane by lane and bit for bit, on
//! random inputs and on special values (zeros, infinities, NaN, subnormals,
//! the extremes of `f32`, table knots). Under `cargo batchify test` the
//! `f_x8` run batchify's AVX2 variants; in a plain `cargo test` they are
//! scalar loops, and the tests check the same things.

use rust_mandelbrot::*;

/// Special `f32` values.
const SPECIAL: &[f32] = &[
    0.0,
    -0.0,
    1.0,
    -1.0,
    0.5,
    -2.0,
    2.0,
    0.25,
    -0.75,
    f32::INFINITY,
    f32::NEG_INFINITY,
    f32::NAN,
    -f32::NAN,
    f32::MIN_POSITIVE,
    -f32::MIN_POSITIVE,
    1e-45,
    -1e-45,
    f32::MAX,
    f32::MIN,
    f32::EPSILON,
    1e30,
    -1e-30,
    3.0,
    27.0,
];

/// Lane arrays: first `2 * SPECIAL.len()` of special values only (each
/// value in each lane position), then `count` of values from `random` with
/// a special one in about one lane in 16.
fn lane_sets(count: usize, seed: u64, mut random: impl FnMut(&mut Rng) -> f32) -> Vec<[f32; LANES]> {
    let mut r = Rng(seed);
    let mut sets = Vec::new();
    for i in 0..SPECIAL.len() * 2 {
        sets.push(std::array::from_fn(|k| SPECIAL[(i * 5 + k * 7) % SPECIAL.len()]));
    }
    for _ in 0..count {
        sets.push(std::array::from_fn(|_| {
            if r.next_u64().is_multiple_of(16) {
                SPECIAL[(r.next_u64() % SPECIAL.len() as u64) as usize]
            } else {
                random(&mut r)
            }
        }));
    }
    sets
}

fn assert_same_lanes(what: &str, inputs: &[f32; LANES], got: [f32; LANES], want: [f32; LANES]) {
    for k in 0..LANES {
        assert!(
            same_f32(got[k], want[k]),
            "{what}: lane {k}: f_x8 gave {:?}, f gave {:?}; inputs {inputs:?}",
            got[k],
            want[k]
        );
    }
}

#[test]
fn mandel_x8_matches_mandel() {
    let sets = lane_sets(3000, 11, |r| r.uniform(-2.5, 1.5));
    let cys = lane_sets(3000, 12, |r| r.uniform(-1.5, 1.5));
    for (cx, cy) in sets.iter().zip(&cys) {
        for max_iter in [0, 1, 7, 100, 256] {
            let got = mandel_x8(*cx, *cy, max_iter);
            let want: [u32; LANES] = std::array::from_fn(|k| mandel(cx[k], cy[k], max_iter));
            assert_eq!(got, want, "cx {cx:?} cy {cy:?} max_iter {max_iter}");
        }
    }
    // Points inside the set run to the limit; outside, escape at once.
    assert_eq!(mandel_x8([0.0; 8], [0.0; 8], 50), [50; 8]);
    assert_eq!(mandel_x8([3.0; 8], [3.0; 8], 50), [1; 8]);
}

#[test]
fn mandelbrot_image_matches_scalar_calls() {
    // A width that is not a multiple of 8: every row ends in a partial chunk.
    let view = View { width: 203, height: 61, x0: -2.1, y0: -1.2, step: 0.04, max_iter: 300 };
    let image = view.render_x8();
    assert_eq!(image.len(), 203 * 61);
    assert_eq!(image, view.render_scalar());
    assert!(image.contains(&300) && image.iter().any(|&n| n < 5), "the view shows both inside and outside the set");
}

#[test]
fn cbrt_newton_x8_matches_cbrt_newton() {
    let sets = lane_sets(5000, 21, |r| {
        let magnitude = 10f32.powf(r.uniform(-40.0, 38.0));
        if r.next_u64() & 1 == 0 {
            magnitude
        } else {
            -magnitude
        }
    });
    for a in &sets {
        let got = cbrt_newton_x8(*a);
        assert_same_lanes("cbrt_newton", a, got, a.map(cbrt_newton));
    }
}

#[test]
fn cbrt_newton_finds_cube_roots() {
    let got = cbrt_newton_x8([27.0, -8.0, 1.0, 0.0, 1e6, 1e-6, f32::INFINITY, -0.001]);
    let want = [3.0, -2.0, 1.0, 0.0, 100.0, 0.01, f32::INFINITY, -0.1];
    for k in 0..LANES {
        assert!(
            got[k] == want[k] || (got[k] - want[k]).abs() <= 1e-5 * want[k].abs(),
            "lane {k}: {} is not {}",
            got[k],
            want[k]
        );
    }
    let extremes = [f32::MAX, -f32::MAX, 1e30, 1e-30, 1e-38, 1e-45, 2.0, 0.5];
    let got = cbrt_newton_x8(extremes);
    for k in 0..LANES {
        let want = f64::from(extremes[k]).cbrt();
        assert!((f64::from(got[k]) - want).abs() <= 1e-5 * want.abs(), "lane {k}: cbrt {} is not {want}", got[k]);
    }
    assert!(cbrt_newton_x8([f32::NAN; 8]).iter().all(|x| x.is_nan()));
    assert_eq!(cbrt_newton_x8([-0.0; 8]).map(f32::to_bits), [(-0.0f32).to_bits(); 8]);
}

#[test]
fn interp_x8_matches_interp() {
    for n in [0usize, 1, 2, 3, 17, 256] {
        let (xs, ys) = sine_table(n);
        let knots = xs.clone();
        let mut r = Rng(31 + n as u64);
        let mut sets = lane_sets(2000, 32 + n as u64, |r| r.uniform(-1.0, 7.5));
        // Exactly on the knots and halfway between them.
        for chunk in knots.chunks(LANES) {
            let k0 = r.next_u64() as usize;
            sets.push(std::array::from_fn(|k| chunk.get(k).copied().unwrap_or(knots[(k0 + k) % knots.len()])));
        }
        for x in &sets {
            let got = interp_x8(&xs, &ys, *x);
            assert_same_lanes(&format!("interp over {n} points"), x, got, x.map(|x| interp(&xs, &ys, x)));
        }
    }
    // Tables of different lengths: only the common prefix counts.
    let (xs, ys) = sine_table(40);
    let x = [0.0, 0.1, 1.0, 3.0, 6.0, 7.0, -1.0, f32::NAN];
    assert_same_lanes("short ys", &x, interp_x8(&xs, &ys[..9], x), x.map(|x| interp(&xs, &ys[..9], x)));
    assert_same_lanes("short xs", &x, interp_x8(&xs[..5], &ys, x), x.map(|x| interp(&xs[..5], &ys, x)));
}

#[test]
fn interp_interpolates() {
    let xs = [0.0, 1.0, 3.0];
    let ys = [10.0, 20.0, 0.0];
    let got = interp_x8(&xs, &ys, [-5.0, 0.0, 0.5, 1.0, 2.0, 2.5, 3.0, 9.0]);
    assert_eq!(got, [10.0, 10.0, 15.0, 20.0, 10.0, 5.0, 0.0, 0.0]);
    assert_eq!(interp_x8(&[], &[], [1.0; 8]), [0.0; 8]);
}

#[test]
fn workloads_match_scalar_calls() {
    // The helpers main.rs times, on lengths that end in a partial chunk.
    let roots_in = cbrt_inputs(1003, 5);
    let (a, b) = (cbrts_x8(&roots_in), cbrts_scalar(&roots_in));
    assert_eq!(a.len(), 1003);
    assert!(a.iter().zip(&b).all(|(x, y)| same_f32(*x, *y)));
    let (xs, ys) = sine_table(64);
    let lookups_in = interp_inputs(1001, 6);
    let (a, b) = (interps_x8(&xs, &ys, &lookups_in), interps_scalar(&xs, &ys, &lookups_in));
    assert_eq!(a.len(), 1001);
    assert!(a.iter().zip(&b).all(|(x, y)| same_f32(*x, *y)));
    assert_eq!(checksum_f32(&a), checksum_f32(&b));
}

#[test]
fn cbrt_newton_slice_matches_cbrt_newton() {
    // 8 elements per call of cbrt_newton_x8 (batchify's variant under
    // `cargo batchify test`), the last 3 by scalar calls.
    let inputs: Vec<f32> = (0..1003).map(|i| (i as f32 - 500.0) * 37.25).collect();
    let mut out = vec![f32::NAN; inputs.len()];
    cbrt_newton_slice(&inputs, &mut out);
    for (i, (a, got)) in inputs.iter().zip(&out).enumerate() {
        assert_eq!(got.to_bits(), cbrt_newton(*a).to_bits(), "element {i}: cbrt_newton({a})");
    }
}
