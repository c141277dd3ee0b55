/* batchify.h: cross-lane operations for functions that batchify batches.
 *
 * In a clone built by batchify, each call is an operation over the group
 * of lanes active at the call (see docs/cross-lane.md). Everywhere else,
 * in the scalar function itself and in builds without batchify, the
 * definitions below give the one-lane meaning: the calling lane is lane 0
 * of a group of one. Nothing needs to be linked: the definitions are weak
 * (one copy per program, however many files include this header) and
 * batchify lowers the calls in its clones inline.
 *
 * The definitions are kept out of line (`noinline`, weak, so that the
 * compiler cannot see through them) and, under clang, `convergent`, so
 * that no optimisation moves a call to where other lanes are active
 * (`optnone` keeps LLVM from dropping `convergent` from a body that calls
 * nothing convergent; with it, two calls in the two arms of an `if` are
 * not merged into one call before the branch).
 *
 * A lane index out of range, or naming a lane that is not active, reads 0.
 */
#ifndef BATCHIFY_H
#define BATCHIFY_H

#include <stdbool.h>
#include <stdint.h>

#if defined(__clang__)
#define BATCHIFY_OP __attribute__((weak, noinline, optnone, convergent, nothrow))
#elif defined(__GNUC__)
#define BATCHIFY_OP __attribute__((weak, noinline, noipa, nothrow))
#else
#define BATCHIFY_OP
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* The lane's index in its group, 0 to N-1 (varying). */
BATCHIFY_OP int batchify_lane_id(void) { return 0; }
/* N, the number of lanes of the clone (uniform). */
BATCHIFY_OP int batchify_num_lanes(void) { return 1; }
/* Whether c holds in some active lane (uniform). */
BATCHIFY_OP bool batchify_any(bool c) { return c; }
/* Whether c holds in every active lane (uniform). */
BATCHIFY_OP bool batchify_all(bool c) { return c; }
/* Bit k set where lane k is active and c holds (uniform; N <= 64). */
BATCHIFY_OP uint64_t batchify_ballot(bool c) { return c ? 1 : 0; }
/* The number of active lanes (uniform). */
BATCHIFY_OP int batchify_popcount_active(void) { return 1; }

/* T name(T x) for each element type: reductions over the active lanes
 * (uniform), in lane order; a float sum is ((-0.0 + x0) + x1) + ...;
 * float min/max are IEEE minimumNumber/maximumNumber (NaN only if every
 * lane's value is NaN; -0.0 below +0.0). */
#define BATCHIFY_TYPED(T, S)                                                  \
  BATCHIFY_OP T batchify_reduce_add_##S(T x) { return x; }                    \
  BATCHIFY_OP T batchify_reduce_min_##S(T x) { return x; }                    \
  BATCHIFY_OP T batchify_reduce_max_##S(T x) { return x; }                    \
  /* x of lane `lane` if that lane is active, else 0 (uniform if lane is). */ \
  BATCHIFY_OP T batchify_extract_##S(T x, int lane) { return lane == 0 ? x : (T)0; } \
  /* x of the lowest active lane (uniform). */                                \
  BATCHIFY_OP T batchify_broadcast_first_##S(T x) { return x; }               \
  /* x of lane src (per lane) if that lane is active, else 0. */              \
  BATCHIFY_OP T batchify_shuffle_##S(T x, int src) { return src == 0 ? x : (T)0; } \
  /* Stores the active lanes' x to p[0], p[1], ... in lane order; returns   \
   * how many (uniform). p must be the same in all lanes. */                 \
  BATCHIFY_OP int batchify_packed_store_active_##S(T *p, T x) { *p = x; return 1; }

BATCHIFY_TYPED(int32_t, i32)
BATCHIFY_TYPED(int64_t, i64)
BATCHIFY_TYPED(float, f32)
BATCHIFY_TYPED(double, f64)
#undef BATCHIFY_TYPED

/* Unsigned minimum and maximum (uniform). */
BATCHIFY_OP uint32_t batchify_reduce_min_u32(uint32_t x) { return x; }
BATCHIFY_OP uint32_t batchify_reduce_max_u32(uint32_t x) { return x; }
BATCHIFY_OP uint64_t batchify_reduce_min_u64(uint64_t x) { return x; }
BATCHIFY_OP uint64_t batchify_reduce_max_u64(uint64_t x) { return x; }

/* In lane k, the sum of x over the active lanes below k (varying). */
BATCHIFY_OP int32_t batchify_exclusive_scan_add_i32(int32_t x) { (void)x; return 0; }
BATCHIFY_OP int64_t batchify_exclusive_scan_add_i64(int64_t x) { (void)x; return 0; }

#ifdef __cplusplus
}
#endif

#undef BATCHIFY_OP
#endif /* BATCHIFY_H */
