//! `f_xN` against N calls of `f` on random inputs, in a plain build (no
//! plugin): the generated request's scalar loop on AVX2 machines, the
//! generated function's own loop elsewhere. `tests/plugin.rs` runs the same
//! kind of checks with the pass plugin.
//!
//! The cross-lane functions at the end have group results where their
//! variant runs and one-lane results where lanes run one by one; their
//! checks compute the results for the group size the build has
//! (`BATCHIFY_EXPECT_LANES`, 1 unless `tests/plugin.rs` says 8).

/// xorshift64: enough randomness for lane checks, no dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn f32(&mut self, scale: f32) -> f32 {
        ((self.next() >> 40) as f32 / (1u64 << 24) as f32 - 0.5) * scale
    }
    fn f32s<const N: usize>(&mut self, scale: f32) -> [f32; N] {
        std::array::from_fn(|_| self.f32(scale))
    }
}

/// Branches that differ between lanes.
#[batchify::batch(width = 8)]
pub fn branchy(x: f32, y: f32) -> f32 {
    if x > y * 1.5 {
        x * 2.0 - y
    } else if x < -y {
        (y - x).abs() + 0.25
    } else {
        x.min(y)
    }
}

/// A loop whose trip count differs between lanes (Mandelbrot).
#[batchify::batch(width = 8)]
pub fn mandel(cx: f32, cy: f32) -> u32 {
    let (mut x, mut y, mut n) = (0.0f32, 0.0f32, 0u32);
    while x * x + y * y <= 4.0 && n < 100 {
        let t = x * x - y * y + cx;
        y = 2.0 * x * y + cy;
        x = t;
        n += 1;
    }
    n
}

/// Binary search in a uniform slice, with a uniform reference and scalar.
#[batchify::batch(width = 4, uniform(table, scale, bias))]
pub fn lookup(table: &[f32], scale: f32, bias: &f32, x: f32) -> f64 {
    let (mut lo, mut hi) = (0usize, table.len());
    while lo < hi {
        let mid = (lo + hi) / 2;
        if table[mid] < x {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    lo as f64 * scale as f64 + *bias as f64
}

/// Masked, integers and bools, with a chosen name.
#[batchify::batch(width = 16, masked, name = "collatz_many")]
fn collatz(n: u64, odd_only: bool) -> i32 {
    let mut n = n % 1000 + 1;
    let mut steps = 0;
    while n != 1 {
        steps += if odd_only && n % 2 == 1 { 2 } else { 1 };
        n = if n % 2 == 1 { 3 * n + 1 } else { n / 2 };
    }
    steps
}

mod inner {
    use std::sync::atomic::{AtomicU64, Ordering};

    pub static SUM: AtomicU64 = AtomicU64::new(0);

    /// `()` return in a nested module, `mut` parameter, width 2.
    #[batchify::batch(width = 2, uniform(k))]
    pub fn add(mut v: u8, k: i16) {
        v = v.wrapping_add(k as u8);
        SUM.fetch_add(u64::from(v), Ordering::Relaxed);
    }
}

/// A parameter the function never reads: LLVM gives the calls of its
/// array form and of its map (`ignores_y_x8`, `ignores_y_slice`) `poison`
/// for that array, which the completed entry points must not read (they
/// did, and the test crashed under the plugin).
#[batchify::batch(width = 8)]
pub fn ignores_y(x: f32, _y: f32) -> f32 {
    x * 2.0 + 1.0
}

#[test]
fn an_ignored_parameter_is_never_read() {
    let mut r = Rng(0x1_9e0);
    for _ in 0..50 {
        let (x, y) = (r.f32s::<8>(8.0), r.f32s::<8>(8.0));
        assert_eq!(ignores_y_x8(x, y).map(f32::to_bits), x.map(|v| ignores_y(v, 0.0).to_bits()));
    }
    for len in [0usize, 1, 7, 8, 9, 100] {
        let x: Vec<f32> = (0..len).map(|_| r.f32(8.0)).collect();
        let mut out = vec![f32::NAN; len];
        ignores_y_slice(&x, &x, &mut out);
        for i in 0..len {
            assert_eq!(out[i].to_bits(), ignores_y(x[i], x[i]).to_bits(), "len {len}, element {i}");
        }
    }
}

#[test]
fn branchy_matches_scalar_calls() {
    let mut r = Rng(0x2545_F491_4F6C_DD1D);
    for _ in 0..500 {
        let (x, y) = (r.f32s::<8>(8.0), r.f32s::<8>(8.0));
        let got = branchy_x8(x, y);
        for k in 0..8 {
            assert_eq!(got[k].to_bits(), branchy(x[k], y[k]).to_bits(), "lane {k}: {x:?} {y:?}");
        }
    }
}

#[test]
fn mandel_matches_scalar_calls() {
    let mut r = Rng(7);
    for _ in 0..200 {
        let (cx, cy) = (r.f32s::<8>(4.0), r.f32s::<8>(3.0));
        let got = mandel_x8(cx, cy);
        assert_eq!(got, std::array::from_fn(|k| mandel(cx[k], cy[k])));
    }
}

#[test]
fn lookup_matches_scalar_calls() {
    let mut r = Rng(99);
    for len in [0usize, 1, 2, 7, 64] {
        let mut table: Vec<f32> = (0..len).map(|_| r.f32(10.0)).collect();
        table.sort_by(f32::total_cmp);
        let (scale, bias) = (r.f32(3.0), r.f32(1.0));
        for _ in 0..100 {
            let x = r.f32s::<4>(12.0);
            let got = lookup_x4(&table, scale, &bias, x);
            let want: [f64; 4] = std::array::from_fn(|k| lookup(&table, scale, &bias, x[k]));
            assert_eq!(got.map(f64::to_bits), want.map(f64::to_bits));
        }
    }
}

#[test]
fn masked_lanes_are_default() {
    let mut r = Rng(3);
    for _ in 0..200 {
        let n: [u64; 16] = std::array::from_fn(|_| r.next());
        let odd: [bool; 16] = std::array::from_fn(|_| r.next().is_multiple_of(3));
        let mask: [bool; 16] = std::array::from_fn(|_| r.next().is_multiple_of(2));
        let got = collatz_many(n, odd, mask);
        let want: [i32; 16] = std::array::from_fn(|k| if mask[k] { collatz(n[k], odd[k]) } else { 0 });
        assert_eq!(got, want);
    }
}

#[test]
fn unit_return_runs_each_lane() {
    use std::sync::atomic::Ordering;
    inner::add_x2([1, 250], 10);
    assert_eq!(inner::SUM.load(Ordering::Relaxed), 11 + 4);
}

#[test]
fn slices_match_scalar_calls() {
    let mut r = Rng(0x51_1ce);
    for len in (0..=20).chain([63, 64, 65, 1003]) {
        let x: Vec<f32> = (0..len).map(|_| r.f32(8.0)).collect();
        let y: Vec<f32> = (0..len).map(|_| r.f32(8.0)).collect();
        let mut out = vec![f32::NAN; len];
        branchy_slice(&x, &y, &mut out);
        for i in 0..len {
            assert_eq!(out[i].to_bits(), branchy(x[i], y[i]).to_bits(), "len {len}, element {i}");
        }
    }
    let table: Vec<f32> = (0..9).map(|k| k as f32).collect();
    let (scale, bias) = (0.5, 2.0);
    let x: Vec<f32> = (0..37).map(|_| r.f32(12.0)).collect();
    let mut out = vec![0.0; 37];
    lookup_slice(&table, scale, &bias, &x, &mut out);
    for i in 0..37 {
        assert_eq!(out[i].to_bits(), lookup(&table, scale, &bias, x[i]).to_bits());
    }
}

#[test]
fn masked_function_slices_end_with_one_masked_call() {
    let mut r = Rng(11);
    for len in (0..=40).chain([1000]) {
        let n: Vec<u64> = (0..len).map(|_| r.next()).collect();
        let odd: Vec<bool> = (0..len).map(|_| r.next().is_multiple_of(3)).collect();
        let mut out = vec![-1; len];
        collatz_slice(&n, &odd, &mut out);
        let want: Vec<i32> = (0..len).map(|i| collatz(n[i], odd[i])).collect();
        assert_eq!(out, want, "len {len}");
    }
}

#[test]
#[should_panic(expected = "`branchy_slice`: `y` has 3 elements, out has 4")]
fn slices_of_different_lengths_panic() {
    let mut out = [0.0; 4];
    branchy_slice(&[1.0; 4], &[2.0; 3], &mut out);
}

// ---- Cross-lane operations (`batchify::any`, ...) ----

/// The lanes one call of a cross-lane function's `f_x8` runs together: 8
/// under the plugin (`tests/plugin.rs` sets `BATCHIFY_EXPECT_LANES`), 1 in
/// a plain build.
fn group_size() -> usize {
    std::env::var("BATCHIFY_EXPECT_LANES").map_or(1, |v| v.parse().expect("BATCHIFY_EXPECT_LANES is a number"))
}

/// The group a function's lanes form, as the function itself sees it.
#[batchify::batch(width = 8)]
pub fn lanes_seen(x: u32) -> u32 {
    batchify::num_lanes() * 100 + batchify::lane_id() + x
}

/// Reductions over the lanes of a divergent branch.
#[batchify::batch(width = 8, masked)]
pub fn branch_sums(x: f32) -> f32 {
    if x > 0.0 {
        batchify::reduce_add_f32(x)
    } else {
        batchify::reduce_min_f32(x) - batchify::popcount_active() as f32
    }
}

/// Stream compaction: the positive `x` of the group go to `dst[0..count]`
/// (not `pub`: clippy asks a public function taking a pointer to be
/// `unsafe`, which the macro does not accept).
#[batchify::batch(width = 8, uniform(dst))]
fn keep_positive(dst: *mut f32, x: f32) -> u32 {
    if x > 0.0 {
        // SAFETY: the callers pass room for 8 values.
        unsafe { batchify::packed_store_active_f32(dst, x) }
    } else {
        0
    }
}

/// A loop the whole group leaves together (`all`), ballots and neighbours.
#[batchify::batch(width = 8)]
pub fn group_halvings(x: u32) -> u64 {
    let (mut v, mut n) = (x, 0u64);
    while !batchify::all(v < 10) {
        v /= 2;
        n += 1;
    }
    let right = batchify::shuffle_i32(x as i32, (batchify::lane_id() + 1) & batchify::num_lanes().wrapping_sub(1));
    let odd = batchify::ballot(x % 2 == 1);
    n | (odd << 8) | ((right as u32 as u64) << 24) ^ ((batchify::broadcast_first_i32(x as i32) as u32 as u64) << 40)
}

/// Halvings of `x` until it is below 10.
fn halvings(mut x: u32) -> u64 {
    let mut n = 0;
    while x >= 10 {
        x /= 2;
        n += 1;
    }
    n
}

#[test]
fn cross_lane_groups_are_the_builds() {
    let g = group_size();
    let x: [u32; 8] = std::array::from_fn(|k| 1000 * k as u32);
    let got = lanes_seen_x8(x);
    let want: [u32; 8] = std::array::from_fn(|k| g as u32 * 100 + (k % g) as u32 + x[k]);
    assert_eq!(got, want, "lanes_seen_x8: expected groups of {g}");
    assert_eq!(lanes_seen(7), 107, "the scalar function is one lane");
}

#[test]
fn cross_lane_reductions_see_the_active_lanes() {
    let g = group_size();
    let mut r = Rng(0xc0ffee);
    for _ in 0..300 {
        let x = r.f32s::<8>(8.0);
        let mask: [bool; 8] = std::array::from_fn(|_| !r.next().is_multiple_of(4));
        let got = branch_sums_x8(x, mask);
        for k in 0..8 {
            let group = (k / g * g)..(k / g * g + g);
            let want = if !mask[k] {
                0.0
            } else if x[k] > 0.0 {
                group.filter(|&j| mask[j] && x[j] > 0.0).fold(-0.0f32, |s, j| s + x[j])
            } else {
                let lanes: Vec<usize> = group.filter(|&j| mask[j] && x[j] <= 0.0).collect();
                lanes.iter().map(|&j| x[j]).fold(f32::INFINITY, f32::min) - lanes.len() as f32
            };
            assert_eq!(got[k].to_bits(), want.to_bits(), "lane {k} of {x:?} under {mask:?}: {got:?}");
        }
        assert_eq!(branch_sums(x[0]).to_bits(), if x[0] > 0.0 { x[0] } else { x[0] - 1.0 }.to_bits());
    }
}

#[test]
fn cross_lane_compaction_keeps_lane_order() {
    let g = group_size();
    let mut r = Rng(0xfeed);
    for _ in 0..300 {
        let x = r.f32s::<8>(4.0);
        let mut dst = [f32::NAN; 8];
        let got = keep_positive_x8(dst.as_mut_ptr(), x);
        // The groups run in order, each storing its kept values from dst[0].
        let mut want_dst = [f32::NAN; 8];
        let mut want = [0u32; 8];
        for start in (0..8).step_by(g) {
            let kept: Vec<usize> = (start..start + g).filter(|&j| x[j] > 0.0).collect();
            for (slot, &j) in kept.iter().enumerate() {
                want_dst[slot] = x[j];
                want[j] = kept.len() as u32;
            }
        }
        assert_eq!(got, want, "counts for {x:?}");
        assert_eq!(dst.map(f32::to_bits), want_dst.map(f32::to_bits), "stored values for {x:?}");
    }
}

#[test]
fn cross_lane_group_exit_and_neighbours() {
    let g = group_size();
    let mut r = Rng(0xabc);
    for _ in 0..300 {
        let x: [u32; 8] = std::array::from_fn(|_| (r.next() % 5000) as u32);
        let got = group_halvings_x8(x);
        for k in 0..8 {
            let start = k / g * g;
            let n = (start..start + g).map(|j| halvings(x[j])).max().unwrap();
            let odd = (start..start + g).filter(|&j| x[j] % 2 == 1).fold(0u64, |b, j| b | 1 << (j - start));
            let right = x[start + (k - start + 1) % g];
            let want = n | (odd << 8) | (u64::from(right) << 24) ^ (u64::from(x[start]) << 40);
            assert_eq!(got[k], want, "lane {k} of {x:?}: {got:?}");
        }
    }
}
