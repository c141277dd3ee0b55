//! batchify for Rust: the `#[batchify::batch]` attribute, which gives a
//! scalar function an N-lane array version (`docs/rust.md`), and the
//! cross-lane operations such a function may call (`docs/cross-lane.md`).
//!
//! ```ignore
//! #[batchify::batch(width = 8)]
//! pub fn mandel(cx: f32, cy: f32) -> u32 { /* scalar code */ }
//! // also generates: pub fn mandel_x8(cx: [f32; 8], cy: [f32; 8]) -> [u32; 8]
//! ```
//!
//! # Cross-lane operations
//!
//! Each has a **one-lane meaning**, which is what it does in the scalar
//! function and wherever `f_xN` runs its lanes one by one (a plain build, a
//! CPU without AVX2): [`lane_id`] is 0, [`num_lanes`] 1, [`any`]`(c)` is `c`.
//! In the variant the pass plugin builds, it is an operation over the lanes
//! active at the call (the lanes of one call of `f_xN`, or of one group of
//! `N` elements of `f_slice`): [`any`]`(c)` is whether some active lane has
//! `c`, [`reduce_add_f32`] the sum over the active lanes in lane order, and
//! so on. Code written against [`num_lanes`] and the counts these return
//! (stream compaction with [`packed_store_active_f32`], an early exit with
//! [`all`]) is correct for either meaning; a reduction's value depends on
//! the group, as in ISPC.
//!
//! They are calls of `extern "C"` functions named as in `batchify.h`
//! (`batchify_any`, ...), defined here with their one-lane meaning and
//! never inlined, so that the plugin sees them by name; the plugin marks
//! them `convergent` before LLVM's passes run.

#![warn(missing_docs)]

pub use batchify_macros::batch;

/// The one-lane definitions, under the names the plugin recognizes. Kept
/// out of line (`#[inline(never)]`, exported by name) so that every crate
/// calling them sees a call, not the one-lane body.
mod one_lane {
    macro_rules! op {
        ($(fn $name:ident($($p:ident: $t:ty),*) -> $r:ty $body:block)*) => {$(
            #[no_mangle]
            #[inline(never)]
            #[allow(unused_variables)]
            pub extern "C" fn $name($($p: $t),*) -> $r $body
        )*};
    }

    op! {
        fn batchify_lane_id() -> i32 { 0 }
        fn batchify_num_lanes() -> i32 { 1 }
        fn batchify_any(c: bool) -> bool { c }
        fn batchify_all(c: bool) -> bool { c }
        fn batchify_ballot(c: bool) -> u64 { u64::from(c) }
        fn batchify_popcount_active() -> i32 { 1 }
        fn batchify_reduce_min_u32(x: u32) -> u32 { x }
        fn batchify_reduce_max_u32(x: u32) -> u32 { x }
        fn batchify_reduce_min_u64(x: u64) -> u64 { x }
        fn batchify_reduce_max_u64(x: u64) -> u64 { x }
        fn batchify_exclusive_scan_add_i32(x: i32) -> i32 { 0 }
        fn batchify_exclusive_scan_add_i64(x: i64) -> i64 { 0 }
    }

    macro_rules! typed {
        ($t:ty, $zero:expr, $add:ident, $min:ident, $max:ident, $extract:ident, $first:ident, $shuffle:ident, $store:ident) => {
            op! {
                fn $add(x: $t) -> $t { x }
                fn $min(x: $t) -> $t { x }
                fn $max(x: $t) -> $t { x }
                fn $extract(x: $t, lane: i32) -> $t { if lane == 0 { x } else { $zero } }
                fn $first(x: $t) -> $t { x }
                fn $shuffle(x: $t, src: i32) -> $t { if src == 0 { x } else { $zero } }
            }
            /// # Safety
            /// `dst` is valid for one write.
            #[no_mangle]
            #[inline(never)]
            pub unsafe extern "C" fn $store(dst: *mut $t, x: $t) -> i32 {
                // SAFETY: the caller's contract.
                unsafe { dst.write(x) };
                1
            }
        };
    }

    typed!(
        i32,
        0,
        batchify_reduce_add_i32,
        batchify_reduce_min_i32,
        batchify_reduce_max_i32,
        batchify_extract_i32,
        batchify_broadcast_first_i32,
        batchify_shuffle_i32,
        batchify_packed_store_active_i32
    );
    typed!(
        i64,
        0,
        batchify_reduce_add_i64,
        batchify_reduce_min_i64,
        batchify_reduce_max_i64,
        batchify_extract_i64,
        batchify_broadcast_first_i64,
        batchify_shuffle_i64,
        batchify_packed_store_active_i64
    );
    typed!(
        f32,
        0.0,
        batchify_reduce_add_f32,
        batchify_reduce_min_f32,
        batchify_reduce_max_f32,
        batchify_extract_f32,
        batchify_broadcast_first_f32,
        batchify_shuffle_f32,
        batchify_packed_store_active_f32
    );
    typed!(
        f64,
        0.0,
        batchify_reduce_add_f64,
        batchify_reduce_min_f64,
        batchify_reduce_max_f64,
        batchify_extract_f64,
        batchify_broadcast_first_f64,
        batchify_shuffle_f64,
        batchify_packed_store_active_f64
    );
}

/// The lane's number in its group, `0..num_lanes()` (0 for one lane).
#[inline(always)]
pub fn lane_id() -> u32 {
    one_lane::batchify_lane_id() as u32
}

/// The number of lanes in the group: the variant's width `N` (1 for one lane).
#[inline(always)]
pub fn num_lanes() -> u32 {
    one_lane::batchify_num_lanes() as u32
}

/// Whether some active lane has `c` (uniform: the same in every lane).
#[inline(always)]
pub fn any(c: bool) -> bool {
    one_lane::batchify_any(c)
}

/// Whether every active lane has `c` (uniform).
#[inline(always)]
pub fn all(c: bool) -> bool {
    one_lane::batchify_all(c)
}

/// Bit `k` set where lane `k` is active and has `c` (uniform).
#[inline(always)]
pub fn ballot(c: bool) -> u64 {
    one_lane::batchify_ballot(c)
}

/// The number of lanes active here (uniform).
#[inline(always)]
pub fn popcount_active() -> u32 {
    one_lane::batchify_popcount_active() as u32
}

/// The smallest `x` of the active lanes (uniform).
#[inline(always)]
pub fn reduce_min_u32(x: u32) -> u32 {
    one_lane::batchify_reduce_min_u32(x)
}

/// The largest `x` of the active lanes (uniform).
#[inline(always)]
pub fn reduce_max_u32(x: u32) -> u32 {
    one_lane::batchify_reduce_max_u32(x)
}

/// The smallest `x` of the active lanes (uniform).
#[inline(always)]
pub fn reduce_min_u64(x: u64) -> u64 {
    one_lane::batchify_reduce_min_u64(x)
}

/// The largest `x` of the active lanes (uniform).
#[inline(always)]
pub fn reduce_max_u64(x: u64) -> u64 {
    one_lane::batchify_reduce_max_u64(x)
}

/// In lane `k`, the wrapping sum of `x` over the active lanes below `k`
/// (0 for one lane).
#[inline(always)]
pub fn exclusive_scan_add_i32(x: i32) -> i32 {
    one_lane::batchify_exclusive_scan_add_i32(x)
}

/// In lane `k`, the wrapping sum of `x` over the active lanes below `k`
/// (0 for one lane).
#[inline(always)]
pub fn exclusive_scan_add_i64(x: i64) -> i64 {
    one_lane::batchify_exclusive_scan_add_i64(x)
}

macro_rules! typed_api {
    ($t:ty, $add:ident = $add_c:ident, $min:ident = $min_c:ident, $max:ident = $max_c:ident,
     $extract:ident = $extract_c:ident, $first:ident = $first_c:ident, $shuffle:ident = $shuffle_c:ident,
     $store:ident = $store_c:ident $(,)?) => {
        #[doc = concat!("The sum of `x` over the active lanes, in lane order (uniform; `", stringify!($t), "`s).")]
        #[inline(always)]
        pub fn $add(x: $t) -> $t {
            one_lane::$add_c(x)
        }

        /// The smallest `x` of the active lanes (uniform; floats: IEEE
        /// minimumNumber, `-0.0` below `+0.0`).
        #[inline(always)]
        pub fn $min(x: $t) -> $t {
            one_lane::$min_c(x)
        }

        /// The largest `x` of the active lanes (uniform; floats: IEEE
        /// maximumNumber, `+0.0` above `-0.0`).
        #[inline(always)]
        pub fn $max(x: $t) -> $t {
            one_lane::$max_c(x)
        }

        /// `x` of lane `lane` if that lane is active, else 0 (uniform when
        /// `lane` is).
        #[inline(always)]
        pub fn $extract(x: $t, lane: u32) -> $t {
            one_lane::$extract_c(x, lane as i32)
        }

        /// `x` of the lowest active lane (uniform).
        #[inline(always)]
        pub fn $first(x: $t) -> $t {
            one_lane::$first_c(x)
        }

        /// In each lane, `x` of lane `src` if that lane is active, else 0.
        #[inline(always)]
        pub fn $shuffle(x: $t, src: u32) -> $t {
            one_lane::$shuffle_c(x, src as i32)
        }

        /// Stores the active lanes' `x` to `dst[0..count]` in lane order
        /// and returns `count` (uniform).
        ///
        /// # Safety
        /// `dst` is the same in every lane and valid for [`num_lanes`]
        /// writes.
        #[inline(always)]
        pub unsafe fn $store(dst: *mut $t, x: $t) -> u32 {
            // SAFETY: the caller's contract.
            unsafe { one_lane::$store_c(dst, x) as u32 }
        }
    };
}

typed_api!(
    i32,
    reduce_add_i32 = batchify_reduce_add_i32,
    reduce_min_i32 = batchify_reduce_min_i32,
    reduce_max_i32 = batchify_reduce_max_i32,
    extract_i32 = batchify_extract_i32,
    broadcast_first_i32 = batchify_broadcast_first_i32,
    shuffle_i32 = batchify_shuffle_i32,
    packed_store_active_i32 = batchify_packed_store_active_i32,
);

typed_api!(
    i64,
    reduce_add_i64 = batchify_reduce_add_i64,
    reduce_min_i64 = batchify_reduce_min_i64,
    reduce_max_i64 = batchify_reduce_max_i64,
    extract_i64 = batchify_extract_i64,
    broadcast_first_i64 = batchify_broadcast_first_i64,
    shuffle_i64 = batchify_shuffle_i64,
    packed_store_active_i64 = batchify_packed_store_active_i64,
);

typed_api!(
    f32,
    reduce_add_f32 = batchify_reduce_add_f32,
    reduce_min_f32 = batchify_reduce_min_f32,
    reduce_max_f32 = batchify_reduce_max_f32,
    extract_f32 = batchify_extract_f32,
    broadcast_first_f32 = batchify_broadcast_first_f32,
    shuffle_f32 = batchify_shuffle_f32,
    packed_store_active_f32 = batchify_packed_store_active_f32,
);

typed_api!(
    f64,
    reduce_add_f64 = batchify_reduce_add_f64,
    reduce_min_f64 = batchify_reduce_min_f64,
    reduce_max_f64 = batchify_reduce_max_f64,
    extract_f64 = batchify_extract_f64,
    broadcast_first_f64 = batchify_broadcast_first_f64,
    shuffle_f64 = batchify_shuffle_f64,
    packed_store_active_f64 = batchify_packed_store_active_f64,
);
