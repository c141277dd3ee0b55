//! Criterion benchmarks: each workload with `f_x8` and with 8 scalar calls
//! per chunk. `cargo bench --features bench` measures the plain build (the
//! `f_x8` are scalar loops); `cargo batchify bench --features bench` the
//! AVX2 variants.

use criterion::{criterion_group, criterion_main, Criterion};
use rust_mandelbrot::*;
use std::hint::black_box;

fn mandelbrot(c: &mut Criterion) {
    let view = View::whole(480, 256);
    let mut g = c.benchmark_group("mandelbrot_480x320");
    g.bench_function("scalar", |b| b.iter(|| black_box(black_box(view).render_scalar())));
    g.bench_function("x8", |b| b.iter(|| black_box(black_box(view).render_x8())));
    g.finish();
}

fn cbrt(c: &mut Criterion) {
    let inputs = cbrt_inputs(1 << 14, 1);
    let mut g = c.benchmark_group("cbrt_newton_16k");
    g.bench_function("scalar", |b| b.iter(|| black_box(cbrts_scalar(black_box(&inputs)))));
    g.bench_function("x8", |b| b.iter(|| black_box(cbrts_x8(black_box(&inputs)))));
    g.finish();
}

fn lookup(c: &mut Criterion) {
    let (xs, ys) = sine_table(256);
    let inputs = interp_inputs(1 << 16, 2);
    let mut g = c.benchmark_group("interp_64k");
    g.bench_function("scalar", |b| b.iter(|| black_box(interps_scalar(&xs, &ys, black_box(&inputs)))));
    g.bench_function("x8", |b| b.iter(|| black_box(interps_x8(&xs, &ys, black_box(&inputs)))));
    g.finish();
}

criterion_group!(benches, mandelbrot, cbrt, lookup);
criterion_main!(benches);
