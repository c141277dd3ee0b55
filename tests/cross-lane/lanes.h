/* lanes.h: one kernel source, two meanings.
 *
 * The kernels of kernels.h are written once with these macros. With
 * CL_SCALAR they are ordinary scalar C functions that call batchify.h's
 * cross-lane operations: batchify batches them. With CL_REFERENCE they
 * are reference models that run a group of N lanes explicitly, lane by
 * lane, with an execution mask per statement: the group meaning of each
 * operation as docs/cross-lane.md defines it, written without batchify.
 *
 * Per-lane values are read and written through V(x). Control flow is
 * IF/ELSE/ENDIF and WHILE/ENDWHILE (no break, no early return); every
 * kernel ends with FINISH(result).
 *
 * Kernel signature: double name(int a, int b, float f, int m).
 */
#ifndef CL_LANES_H
#define CL_LANES_H

#include <stdint.h>
#include <string.h>
#include <math.h>

#define CL_MAXN 64

#if defined(CL_SCALAR)
#include "batchify.h"

#define KERNEL(name) double name(int a, int b, float f, int m)
#define BEGIN {
#define FINISH(e) return (double)(e); }
#define V(x) x
#define VAR(T, x) T x = 0
#define DO(s) s;
#define IF(c) if (c) {
#define ELSE } else {
#define ENDIF }
#define WHILE(c) while (c) {
#define ENDWHILE }
#define BUF(T) cl_buf_##T

#define OP_LANE_ID(d) d = batchify_lane_id();
#define OP_NUM_LANES(d) d = batchify_num_lanes();
#define OP_POPCOUNT(d) d = batchify_popcount_active();
#define OP_ANY(d, c) d = batchify_any(c);
#define OP_ALL(d, c) d = batchify_all(c);
#define OP_BALLOT(d, c) d = batchify_ballot(c);
#define OP_REDUCE(op, S, d, x) d = batchify_reduce_##op##_##S(x);
#define OP_SCAN(S, d, x) d = batchify_exclusive_scan_add_##S(x);
#define OP_EXTRACT(S, d, x, l) d = batchify_extract_##S(x, l);
#define OP_SHUFFLE(S, d, x, l) d = batchify_shuffle_##S(x, l);
#define OP_FIRST(S, d, x) d = batchify_broadcast_first_##S(x);
#define OP_PACK(S, d, buf, x) d = batchify_packed_store_active_##S(buf, x);
/* A callee that uses cross-lane operations: its clone sees the lanes of
 * the call. */
__attribute__((noinline)) static int cl_callee(int x, int t) {
  int n = 0;
  if (x > t) n = batchify_popcount_active();
  return n + batchify_reduce_add_i32(x);
}
#define OP_CALLEE(d, x, t) d = cl_callee(x, t);

#elif defined(CL_REFERENCE)

#define KERNEL(name)                                                         \
  void ref_##name(int N, const int *a, const int *b, const float *f,        \
                  const int *m, const int *entry, double *out)
#define BEGIN { int mask[CL_MAXN]; for (int k = 0; k < N; k++) mask[k] = entry[k];
#define ACTIVE for (int k = 0; k < N; k++) if (mask[k])
#define FINISH(e) ACTIVE out[k] = (double)(e); }
#define V(x) x[k]
#define VAR(T, x) T x[CL_MAXN]; for (int k_ = 0; k_ < CL_MAXN; k_++) x[k_] = 0
#define DO(s) ACTIVE { s; }
#define IF(c)                                                                \
  { int saved_[CL_MAXN], cond_[CL_MAXN];                                    \
    memcpy(saved_, mask, sizeof mask);                                      \
    for (int k = 0; k < N; k++) { cond_[k] = mask[k] && (c); mask[k] = cond_[k]; } {
#define ELSE } for (int k = 0; k < N; k++) mask[k] = saved_[k] && !cond_[k]; {
#define ENDIF } memcpy(mask, saved_, sizeof mask); }
#define WHILE(c)                                                             \
  { int saved_[CL_MAXN]; memcpy(saved_, mask, sizeof mask);                 \
    for (;;) { int any_ = 0;                                                \
      for (int k = 0; k < N; k++) { mask[k] = mask[k] && (c); any_ |= mask[k]; } \
      if (!any_) break; {
#define ENDWHILE } } memcpy(mask, saved_, sizeof mask); }
#define BUF(T) ref_buf_##T

/* Operands are evaluated in every active lane before any result is set. */
#define EVAL(T, vals, x) T vals[CL_MAXN]; ACTIVE vals[k] = (x)
#define SET(d, v) ACTIVE d[k] = (v)

#define OP_LANE_ID(d) { SET(d, k); }
#define OP_NUM_LANES(d) { SET(d, N); }
#define OP_POPCOUNT(d) { int n_ = 0; ACTIVE n_++; SET(d, n_); }
#define OP_ANY(d, c) { EVAL(int, c_, !!(c)); int r_ = 0; ACTIVE r_ |= c_[k]; SET(d, r_); }
#define OP_ALL(d, c) { EVAL(int, c_, !!(c)); int r_ = 1; ACTIVE r_ &= c_[k]; SET(d, r_); }
#define OP_BALLOT(d, c) { EVAL(int, c_, !!(c)); uint64_t r_ = 0; ACTIVE if (c_[k]) r_ |= (uint64_t)1 << k; SET(d, r_); }
#define OP_REDUCE(op, S, d, x) { EVAL(cl_##S, x_, x); cl_##S r_ = cl_id_##op##_##S; ACTIVE r_ = cl_##op##_##S(r_, x_[k]); SET(d, r_); }
#define OP_SCAN(S, d, x) { EVAL(cl_##S, x_, x); cl_##S r_ = 0; ACTIVE { cl_##S t_ = x_[k]; d[k] = r_; r_ = cl_add_##S(r_, t_); } }
#define OP_READ(S, d, x, l) { EVAL(cl_##S, x_, x); EVAL(int, l_, l); cl_##S r_[CL_MAXN]; \
    ACTIVE r_[k] = (l_[k] >= 0 && l_[k] < N && mask[l_[k]]) ? x_[l_[k]] : (cl_##S)0; SET(d, r_[k]); }
#define OP_EXTRACT(S, d, x, l) OP_READ(S, d, x, l)
#define OP_SHUFFLE(S, d, x, l) OP_READ(S, d, x, l)
#define OP_FIRST(S, d, x) { EVAL(cl_##S, x_, x); cl_##S r_ = 0; for (int k = N - 1; k >= 0; k--) if (mask[k]) r_ = x_[k]; SET(d, r_); }
#define OP_PACK(S, d, buf, x) { EVAL(cl_##S, x_, x); int n_ = 0; ACTIVE (buf)[n_++] = x_[k]; SET(d, n_); }
#define OP_CALLEE(d, x, t) { EVAL(int, x_, x); EVAL(int, t_, t); int n_ = 0, s_ = 0;                \
    ACTIVE { n_ += x_[k] > t_[k]; s_ += x_[k]; } ACTIVE d[k] = (x_[k] > t_[k] ? n_ : 0) + s_; }

typedef int32_t cl_i32;
typedef int64_t cl_i64;
typedef uint32_t cl_u32;
typedef float cl_f32;
typedef double cl_f64;

/* Integer sums wrap. */
static inline int32_t cl_add_i32(int32_t a, int32_t b) { return (int32_t)((uint32_t)a + (uint32_t)b); }
static inline int64_t cl_add_i64(int64_t a, int64_t b) { return (int64_t)((uint64_t)a + (uint64_t)b); }
static inline float cl_add_f32(float a, float b) { return a + b; }
static inline double cl_add_f64(double a, double b) { return a + b; }
#define CL_MINMAX(S)                                                          \
  static inline cl_##S cl_min_##S(cl_##S a, cl_##S b) { return b < a ? b : a; } \
  static inline cl_##S cl_max_##S(cl_##S a, cl_##S b) { return b > a ? b : a; }
CL_MINMAX(i32)
CL_MINMAX(i64)
CL_MINMAX(u32)
/* IEEE minimumNumber / maximumNumber: NaN loses, -0 < +0. */
#define CL_FMINMAX(S)                                                         \
  static inline cl_##S cl_min_##S(cl_##S a, cl_##S b) {                      \
    if (isnan(a)) return b; if (isnan(b)) return a;                          \
    if (a == b) return signbit(a) ? a : b; return b < a ? b : a; }           \
  static inline cl_##S cl_max_##S(cl_##S a, cl_##S b) {                      \
    if (isnan(a)) return b; if (isnan(b)) return a;                          \
    if (a == b) return signbit(a) ? b : a; return b > a ? b : a; }
CL_FMINMAX(f32)
CL_FMINMAX(f64)
#define cl_id_add_i32 0
#define cl_id_add_i64 0
#define cl_id_add_f32 (-0.0f)
#define cl_id_add_f64 (-0.0)
#define cl_id_min_i32 INT32_MAX
#define cl_id_max_i32 INT32_MIN
#define cl_id_min_i64 INT64_MAX
#define cl_id_max_i64 INT64_MIN
#define cl_id_min_u32 UINT32_MAX
#define cl_id_max_u32 0
#define cl_id_min_f32 NAN
#define cl_id_max_f32 NAN
#define cl_id_min_f64 NAN
#define cl_id_max_f64 NAN

#else
#error "define CL_SCALAR or CL_REFERENCE"
#endif

#endif
