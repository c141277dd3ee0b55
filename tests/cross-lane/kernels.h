/* kernels.h: the cross-lane kernels (see lanes.h for the two meanings).
 * Each operation runs at the top level, inside divergent branches and
 * inside divergent loops; masks come from the random inputs a, b, m and
 * from the map's tail group. */

#ifdef CL_SCALAR
int32_t cl_buf_i32[CL_MAXN];
float cl_buf_f32[CL_MAXN];
int64_t cl_buf_i64[CL_MAXN];
double cl_buf_f64[CL_MAXN];
#else
static int32_t ref_buf_i32[CL_MAXN];
static float ref_buf_f32[CL_MAXN];
static int64_t ref_buf_i64[CL_MAXN];
static double ref_buf_f64[CL_MAXN];
#endif

/* any/all in the two arms of a divergent branch. */
KERNEL(k_any_all) BEGIN
  VAR(int, r);
  IF(V(a) > V(b))
    OP_ANY(r, (V(a) & 3) == 0)
  ELSE
    OP_ALL(r, V(b) > -40)
    DO(V(r) += 2)
  ENDIF
FINISH(V(r))

/* ballot, popcount, lane id and width under the entry mask and in a branch. */
KERNEL(k_ballot) BEGIN
  VAR(uint64_t, top); VAR(uint64_t, in); VAR(int, n); VAR(int, id); VAR(int, w);
  OP_BALLOT(top, V(m))
  OP_LANE_ID(id)
  OP_NUM_LANES(w)
  IF(V(m))
    OP_BALLOT(in, V(a) > 0)
    OP_POPCOUNT(n)
  ENDIF
FINISH((double)V(top) * 3.0 + (double)V(in) * 7.0 + V(n) * 1000003.0 + V(id) * 17.0 + V(w) * 101.0)

/* Integer reductions in a branch. */
KERNEL(k_reduce_int) BEGIN
  VAR(int32_t, s); VAR(int32_t, lo); VAR(int32_t, hi); VAR(uint32_t, ulo); VAR(uint32_t, uhi); VAR(int64_t, l);
  IF(V(a) > 0 || V(m))
    OP_REDUCE(add, i32, s, V(a) * 40000000)
    OP_REDUCE(min, i32, lo, V(b) * V(a))
    OP_REDUCE(max, i32, hi, V(b) - V(a))
    OP_REDUCE(min, u32, ulo, (uint32_t)V(b))
    OP_REDUCE(max, u32, uhi, (uint32_t)V(a) * 2654435761u)
    OP_REDUCE(add, i64, l, (int64_t)V(a) * ((int64_t)1 << 40))
  ENDIF
FINISH((double)V(s) + (double)V(lo) * 3 + (double)V(hi) * 5 + (double)V(ulo) * 7 + (double)V(uhi) + (double)V(l) / 1024.0)

KERNEL(k_reduce_i64) BEGIN
  VAR(int64_t, lo); VAR(int64_t, hi);
  IF(V(b) < 20)
    OP_REDUCE(min, i64, lo, (int64_t)V(a) * 1000000007)
    OP_REDUCE(max, i64, hi, (int64_t)V(b) * ((int64_t)1 << 33))
  ENDIF
FINISH((double)V(lo) + (double)V(hi) * 0.5)

/* Float reductions: sums in lane order, IEEE min/max of signed zeros and
 * infinities. */
KERNEL(k_reduce_float) BEGIN
  VAR(float, s); VAR(float, lo); VAR(float, hi); VAR(double, d); VAR(double, dlo); VAR(double, dhi);
  IF(V(m))
    OP_REDUCE(add, f32, s, V(f) * 0.1f)
    OP_REDUCE(min, f32, lo, V(f))
    OP_REDUCE(max, f32, hi, V(f))
  ELSE
    OP_REDUCE(add, f64, d, (double)V(f) + V(a))
    OP_REDUCE(min, f64, dlo, (double)V(f))
    OP_REDUCE(max, f64, dhi, -(double)V(f))
  ENDIF
FINISH((double)V(s) + (double)V(lo) * 3.0 + (double)V(hi) * 5.0 + V(d) + V(dlo) * 7.0 + V(dhi) * 11.0)

/* Exclusive scans inside a divergent loop: each trip, the lanes still in
 * the loop. */
KERNEL(k_scan_loop) BEGIN
  VAR(int32_t, i); VAR(int32_t, t); VAR(int32_t, s); VAR(int64_t, u); VAR(int64_t, su);
  WHILE(V(i) < (V(a) & 7))
    OP_SCAN(i32, t, V(b) + V(i))
    OP_SCAN(i64, u, (int64_t)V(a) * ((int64_t)1 << 35))
    DO(V(s) += V(t) * (V(i) + 1); V(su) += V(u); V(i)++)
  ENDWHILE
FINISH((double)V(s) + (double)V(su))

/* Extract at uniform lanes, in range, out of range and negative. */
KERNEL(k_extract) BEGIN
  VAR(int32_t, x0); VAR(int32_t, x2); VAR(int32_t, far); VAR(int32_t, neg); VAR(float, fx); VAR(int64_t, lx); VAR(double, dx);
  IF(V(a) != 3)
    OP_EXTRACT(i32, x0, V(a), 0)
    OP_EXTRACT(i32, x2, V(b) * 3, 2)
    OP_EXTRACT(i32, far, V(a), 100)
    OP_EXTRACT(i32, neg, V(a), -1)
    OP_EXTRACT(f32, fx, V(f), 1)
    OP_EXTRACT(i64, lx, (int64_t)V(a) * ((int64_t)1 << 40), 3)
    OP_EXTRACT(f64, dx, (double)V(f) * 2.0, N_LAST)
  ENDIF
FINISH((double)V(x0) + V(x2) * 3.0 + V(far) * 5.0 + V(neg) * 7.0 + V(fx) * 11.0 + (double)V(lx) + V(dx) * 13.0)

/* Shuffles from varying source lanes (some out of range, some inactive). */
KERNEL(k_shuffle) BEGIN
  VAR(int32_t, s); VAR(float, sf); VAR(int64_t, sl); VAR(double, sd); VAR(int, src);
  DO(V(src) = (V(b) & 31) - 4)
  IF(V(a) > -30)
    OP_SHUFFLE(i32, s, V(a) * 7, V(src))
    OP_SHUFFLE(f32, sf, V(f), V(src) + 1)
    OP_SHUFFLE(i64, sl, (int64_t)V(b) * ((int64_t)1 << 36), 15 - V(src))
    OP_SHUFFLE(f64, sd, (double)V(f) - V(a), V(src) / 2)
  ENDIF
FINISH((double)V(s) + V(sf) * 3.0 + (double)V(sl) + V(sd) * 5.0)

/* The lowest active lane's value, where the lowest lane differs by branch. */
KERNEL(k_first) BEGIN
  VAR(float, x); VAR(int64_t, y); VAR(int32_t, z); VAR(double, w);
  IF(V(a) > V(b))
    OP_FIRST(f32, x, V(f))
    OP_FIRST(i64, y, (int64_t)V(a) * 123456789)
  ELSE
    OP_FIRST(i32, z, V(b))
    OP_FIRST(f64, w, (double)V(f) * V(b))
  ENDIF
FINISH(V(x) + (double)V(y) + V(z) * 3.0 + V(w))

/* Stream compaction: the active lanes' values, packed, then read back. */
KERNEL(k_pack) BEGIN
  VAR(int, n); VAR(int, nf); VAR(int, id); VAR(int32_t, r); VAR(float, rf);
  OP_LANE_ID(id)
  IF(V(a) > V(b))
    OP_PACK(i32, n, BUF(i32), V(a) * 5 + V(id))
  ENDIF
  IF(V(m))
    OP_PACK(f32, nf, BUF(f32), V(f))
  ENDIF
  DO(V(r) = V(id) < V(n) ? BUF(i32)[V(id)] : -1)
  DO(V(rf) = V(id) < V(nf) ? BUF(f32)[V(id)] : -2.0f)
FINISH((double)V(r) * 3.0 + V(rf) + V(n) * 1000.0 + V(nf) * 100000.0)

/* Compaction inside a loop, 64-bit elements. */
KERNEL(k_pack_loop) BEGIN
  VAR(int, i); VAR(int, n); VAR(int64_t, sum); VAR(int, d); VAR(int, total); VAR(double, fs);
  WHILE(V(i) < (V(b) & 3) + (V(a) & 1))
    OP_PACK(i64, n, BUF(i64), (int64_t)V(a) * (V(i) + 1))
    OP_PACK(f64, d, BUF(f64), (double)V(f) + V(i))
    DO(V(sum) += BUF(i64)[V(n) - 1]; V(fs) += BUF(f64)[V(d) - 1]; V(total) += V(n) * 10 + V(d); V(i)++)
  ENDWHILE
FINISH((double)V(sum) + V(total) + V(fs))

/* A search loop the whole group leaves early: while any lane is short of
 * its target, every lane steps; all(...) ends it for everyone. */
KERNEL(k_group_exit) BEGIN
  VAR(int, x); VAR(int, go); VAR(int, it); VAR(int, done); VAR(int, some);
  DO(V(x) = V(a); V(go) = 1)
  WHILE(V(go))
    DO(V(x) = (V(x) & 1) ? V(x) * 3 + 1 : V(x) / 2; V(it)++)
    OP_ALL(done, V(x) <= 1 || V(x) > 5000)
    IF(V(x) > 100)
      OP_ANY(some, V(x) > 2000)
    ENDIF
    DO(V(go) = !V(done) && V(it) < 40 + V(some))
  ENDWHILE
FINISH(V(x) * 64 + V(it))

/* Operations inside a uniform branch (on any()) inside a divergent
 * branch, and inside a loop nested in a divergent branch. */
KERNEL(k_nested) BEGIN
  VAR(int, s); VAR(int32_t, r); VAR(int, c); VAR(int, j); VAR(int32_t, t); VAR(float, mx);
  IF(V(a) > -10)
    OP_ANY(s, V(b) > 10)
    IF(V(s))
      OP_REDUCE(add, i32, r, V(b))
      OP_REDUCE(max, f32, mx, V(f))
    ELSE
      OP_POPCOUNT(c)
    ENDIF
    IF(V(m))
      WHILE(V(j) < (V(b) & 3))
        IF(V(j) != 1)
          OP_SCAN(i32, t, V(a) + V(j))
          DO(V(r) += V(t))
        ENDIF
        DO(V(j)++)
      ENDWHILE
    ENDIF
  ENDIF
FINISH((double)V(r) + V(c) * 1000.0 + V(mx) + V(j) * 1e6)

/* A callee that uses cross-lane operations, called in a divergent branch
 * and in a divergent loop. */
KERNEL(k_callee) BEGIN
  VAR(int, r); VAR(int, i); VAR(int, t);
  IF(V(m))
    OP_CALLEE(r, V(a), V(b))
  ENDIF
  WHILE(V(i) < (V(b) & 3))
    OP_CALLEE(t, V(a) + V(i), 0)
    DO(V(r) += V(t) * 100; V(i)++)
  ENDWHILE
FINISH(V(r))
