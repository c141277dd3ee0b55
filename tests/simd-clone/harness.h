/* Shared scaffolding of the self-checking `declare simd` programs in
 * tests/simd-clone (see docs/testing.md, "The simd-clone suite").
 *
 * Each program is one file compiled twice:
 *   -DCALLEE  the `declare simd` functions only (the callee TU: batchify or
 *             GCC builds their variants);
 *   -DCALLER  the checking `main`, which sees the functions only as
 *             declarations carrying the same pragmas, plus a scalar reference
 *             copy of every function (`ref_NAME`: same body, no declare simd,
 *             static and noinline).
 *
 * A program writes its functions once, between `#ifdef SIMD_FUNCS` and
 * `#else`, with these macros:
 *   DS(clauses)         `#pragma omp declare simd clauses` (nothing in the
 *                       reference copy)
 *   F(name)             the function's name: `name`, or `ref_name` in the
 *                       reference copy (so calls between the functions stay
 *                       within one copy)
 *   SCALAR              storage of the function (static noinline in the
 *                       reference copy)
 *   BODY({ ... })       the body (a `;` in the caller's declarations)
 * and its `main` after `#else`. The caller TU includes the program itself
 * twice through `__BASE_FILE__` to get both copies.
 */
#ifndef SIMD_HARNESS_H
#define SIMD_HARNESS_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SIMD_PRAGMA_(x) _Pragma(#x)

#if defined(CALLEE) == defined(CALLER)
#error "compile with exactly one of -DCALLEE and -DCALLER"
#endif

#ifdef CALLEE
#define DS(...) SIMD_PRAGMA_(omp declare simd __VA_ARGS__)
#define F(name) name
#define SCALAR
#define BODY(...) __VA_ARGS__
#define SIMD_FUNCS 1
#else
/* The declarations the caller sees. */
#define DS(...) SIMD_PRAGMA_(omp declare simd __VA_ARGS__)
#define F(name) name
#define SCALAR extern
#define BODY(...) ;
#define SIMD_FUNCS 1
#include __BASE_FILE__
#undef DS
#undef F
#undef SCALAR
#undef BODY
/* The scalar reference copy. */
#define DS(...)
#define F(name) ref_##name
#define SCALAR static __attribute__((noinline, unused))
#define BODY(...) __VA_ARGS__
#include __BASE_FILE__
#undef SIMD_FUNCS
#endif

/* ---- checking helpers (caller side) ---- */

static int simd_failures;

/* Bit-exact comparison of one result; NaNs compare equal to any NaN. */
#define CHECK_EQ(what, i, got, want)                                                       \
  do {                                                                                     \
    __typeof__(want) g_ = (got), w_ = (want);                                              \
    if (memcmp(&g_, &w_, sizeof g_) != 0 && !(g_ != g_ && w_ != w_)) {                     \
      if (simd_failures++ < 10)                                                            \
        fprintf(stderr, "%s: mismatch in %s at %d: got %.17g, want %.17g\n", __FILE__,     \
                what, (int)(i), (double)g_, (double)w_);                                   \
    }                                                                                      \
  } while (0)

/* Deterministic inputs (no libc rand, so GCC and clang builds agree). */
static uint32_t simd_seed = 12345u;
static inline uint32_t rnd(void) {
  simd_seed = simd_seed * 1664525u + 1013904223u;
  return simd_seed >> 8;
}
/* An integer in [lo, hi]. */
static inline int rnd_int(int lo, int hi) { return lo + (int)(rnd() % (uint32_t)(hi - lo + 1)); }
/* A float with a few fractional bits, in [-r, r]. */
static inline float rnd_float(float r) { return ((float)rnd_int(-1024, 1024) / 1024.0f) * r; }

#define SIMD_DONE()                                                                        \
  do {                                                                                     \
    if (simd_failures) {                                                                   \
      fprintf(stderr, "%s: FAIL, %d mismatches\n", __FILE__, simd_failures);              \
      return 1;                                                                            \
    }                                                                                      \
    printf("%s: ok\n", __FILE__);                                                          \
    return 0;                                                                              \
  } while (0)

/* Keeps the optimiser from folding the checks into the loops. */
#define OPAQUE(x) __asm__ volatile("" : "+m"(x))

#endif /* SIMD_HARNESS_H */
