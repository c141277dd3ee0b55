//! Runs the three workloads with `f_x8` and with 8 scalar calls per chunk,
//! checks that the results are equal (exit 1 if not), and prints checksums
//! and the speedup of `f_x8` over scalar calls (median of timed runs).
//!
//! `cargo run --release`: `f_x8` is a scalar loop (speedup about 1).
//! `cargo batchify run --release`: `f_x8` runs batchify's AVX2 variant.
//! Both print the same checksums.
//!
//! Options: `--reps N` (timed runs per workload, default 11), `--size S`
//! (image width in pixels, default 800).

use rust_mandelbrot::*;
use std::hint::black_box;
use std::time::{Duration, Instant};

/// Median, fastest and slowest of sorted times.
fn stats(mut times: Vec<Duration>) -> (Duration, Duration, Duration) {
    times.sort();
    (times[times.len() / 2], times[0], times[times.len() - 1])
}

/// Times both versions of one workload, `reps` runs each, interleaved (so
/// that a change of load on the machine hits both alike) after one
/// untimed run of each, and prints a line.
fn report<T>(name: &str, checksum: u64, reps: usize, mut scalar: impl FnMut() -> T, mut batched: impl FnMut() -> T) {
    black_box(scalar());
    black_box(batched());
    let (mut s_times, mut b_times) = (Vec::new(), Vec::new());
    for _ in 0..reps {
        let start = Instant::now();
        black_box(scalar());
        s_times.push(start.elapsed());
        let start = Instant::now();
        black_box(batched());
        b_times.push(start.elapsed());
    }
    let ((s_med, s_min, s_max), (b_med, b_min, b_max)) = (stats(s_times), stats(b_times));
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    println!(
        "{name:<12} checksum {checksum:016x}  scalar {:8.2} ms [{:.2}..{:.2}]  x8 {:8.2} ms [{:.2}..{:.2}]  speedup {:.2}x",
        ms(s_med),
        ms(s_min),
        ms(s_max),
        ms(b_med),
        ms(b_min),
        ms(b_max),
        s_med.as_secs_f64() / b_med.as_secs_f64()
    );
}

/// For chunks of 8 pixels of each row: the iterations all lanes need over
/// 8 times what the slowest lane needs (an 8-lane loop runs until its last
/// lane is done).
fn lane_use(image: &[u32], width: usize) -> f64 {
    let (mut useful, mut run) = (0u64, 0u64);
    for row in image.chunks(width) {
        for chunk in row.chunks(LANES) {
            useful += chunk.iter().map(|&n| u64::from(n)).sum::<u64>();
            run += LANES as u64 * u64::from(chunk.iter().copied().max().unwrap_or(0));
        }
    }
    useful as f64 / run.max(1) as f64
}

fn parse_args() -> Result<(usize, usize), String> {
    let (mut reps, mut size) = (11, 800);
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = |name: &str| -> Result<usize, String> {
            let v = args.next().ok_or(format!("{name} needs a number"))?;
            v.parse().ok().filter(|&n| n > 0).ok_or(format!("{name}: `{v}` is not a positive number"))
        };
        match arg.as_str() {
            "--reps" => reps = value("--reps")?,
            "--size" => size = value("--size")?,
            other => return Err(format!("unknown argument `{other}` (expected --reps N, --size S)")),
        }
    }
    Ok((reps, size))
}

fn main() {
    let (reps, size) = match parse_args() {
        Ok(v) => v,
        Err(e) => {
            eprintln!("rust-mandelbrot: error: {e}");
            std::process::exit(2);
        }
    };
    #[cfg(target_arch = "x86_64")]
    let avx2 = std::is_x86_feature_detected!("avx2");
    #[cfg(not(target_arch = "x86_64"))]
    let avx2 = false;
    println!("AVX2: {}  (f_x8 runs batchify's variant only in a `cargo batchify` build on an AVX2 CPU)", avx2);

    let mut failed = false;
    let mut check = |name: &str, mismatches: usize, total: usize| {
        if mismatches != 0 {
            eprintln!("rust-mandelbrot: {name}: {mismatches} of {total} results of f_x8 differ from scalar calls");
            failed = true;
        }
    };

    let view = View::whole(size, 256);
    let image = view.render_x8();
    let scalar_image = view.render_scalar();
    check("mandelbrot", image.iter().zip(&scalar_image).filter(|(a, b)| a != b).count(), image.len());

    let roots_in = cbrt_inputs(1 << 18, 1);
    let roots = cbrts_x8(&roots_in);
    let scalar_roots = cbrts_scalar(&roots_in);
    check("cbrt_newton", roots.iter().zip(&scalar_roots).filter(|(a, b)| !same_f32(**a, **b)).count(), roots.len());

    let (xs, ys) = sine_table(256);
    let lookups_in = interp_inputs(1 << 20, 2);
    let lookups = interps_x8(&xs, &ys, &lookups_in);
    let scalar_lookups = interps_scalar(&xs, &ys, &lookups_in);
    check("interp", lookups.iter().zip(&scalar_lookups).filter(|(a, b)| !same_f32(**a, **b)).count(), lookups.len());

    println!(
        "mandelbrot {}x{} (max 256 iterations), {} cube roots, {} table lookups (256 points); {reps} timed runs each, \
         median [fastest..slowest]",
        view.width,
        view.height,
        roots_in.len(),
        lookups_in.len()
    );
    report("mandelbrot", checksum_u32(&image), reps, || view.render_scalar(), || view.render_x8());
    println!(
        "             {:.1} iterations per pixel; lane use {:.1}% (all pixels' iterations / 8 x the slowest lane's, \
         summed over chunks of 8: the most an 8-lane loop keeps busy)",
        image.iter().map(|&n| f64::from(n)).sum::<f64>() / image.len() as f64,
        100.0 * lane_use(&image, view.width)
    );
    report("cbrt_newton", checksum_f32(&roots), reps, || cbrts_scalar(&roots_in), || cbrts_x8(&roots_in));
    report(
        "interp",
        checksum_f32(&lookups),
        reps,
        || interps_scalar(&xs, &ys, &lookups_in),
        || interps_x8(&xs, &ys, &lookups_in),
    );
    if failed {
        std::process::exit(1);
    }
    println!("all f_x8 results equal the scalar calls'");
}
