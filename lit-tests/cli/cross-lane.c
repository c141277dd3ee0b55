// Cross-lane operations (docs/cross-lane.md): results of any/all/reduce
// are uniform, so a branch on them stays a scalar branch (the loop below
// is left by the whole group at once, with no mask test per lane); a
// table read at lane_id() is one vector load; packed_store_active is one
// compress store; no call of the header's one-lane definitions is left in
// the clone. Their values are checked by execution against reference
// models in crates/batchify-testkit/tests/cross_lane.rs.
//
// RUN: %clang -O2 -I%S/../../include -c -emit-llvm %s -o %t.bc
// RUN: %batchify %t.bc -o %t.ll -S --function steps --function compact --function lanes -n 8 --isa avx2 --report 2> %t.err
// RUN: FileCheck %s < %t.ll
// RUN: FileCheck %s --check-prefix=REPORT < %t.err
// RUN: not %batchify %t.bc -o %t2.ll --function opaque -n 8 --isa avx2 2>&1 | FileCheck %s --check-prefix=NOLOOP
// RUN: not test -e %t2.ll
#include "batchify.h"

int steps(int x, int y) {
  int n = 0;
  // Runs while some lane is above 1: a uniform loop condition, so the
  // loop is no divergent loop (lanes at 1 keep their values).
  while (batchify_any(x > 1)) {
    int more = x > 1;
    n += more;
    x -= more * (x >> 1);
  }
  // A branch on all() inside divergent code keeps real control flow.
  if (y > 0) {
    if (batchify_all(x + n > 3))
      n = n * 5 + y / 3;
    else
      n = n - y / 7;
  }
  return n + y;
}

// CHECK-LABEL: define {{.*}} @_ZGVdN8vv_steps(
// CHECK-NOT: @batchify_any
// CHECK: icmp sgt <8 x i32> {{%.*}}, splat (i32 1)
// CHECK: [[ANY:%.*]] = icmp {{eq|ne}} i8
// CHECK: br i1 [[ANY]], label
// CHECK: [[ALL:%.*]] = icmp eq i8 {{%.*}}, -1
// CHECK: br i1 [[ALL]], label
// CHECK-NOT: @batchify_a
// CHECK: ret <8 x i32>

float out[64];
int table[64];

int compact(float v, float t) {
  int n = 0;
  if (v > t)
    n = batchify_packed_store_active_f32(out, v);
  return n;
}

// CHECK-LABEL: define {{.*}} @_ZGVdN8vv_compact(
// CHECK: call void @llvm.masked.compressstore.v8f32(<8 x float> {{%.*}}, ptr {{.*}}@out, <8 x i1>
// CHECK-NOT: @batchify_packed_store_active_f32
// CHECK: ret <8 x i32>

int lanes(int x, int y) {
  return table[batchify_lane_id()] + batchify_reduce_add_i32(x) + batchify_num_lanes();
}

// CHECK-LABEL: define {{.*}} @_ZGVdN8vv_lanes(
// CHECK: load <8 x i32>, ptr @table
// CHECK: call i32 @llvm.vector.reduce.add.v8i32
// CHECK: add {{.*}}<8 x i32> {{.*}}, splat (i32 8)
// CHECK: ret <8 x i32>

// REPORT: steps -> _ZGVdN8vv_steps: 8 lanes, {{.*}} 0 divergent loop(s), 1 linearized level(s), 1 uniform branch region(s) kept
// REPORT: compact -> _ZGVdN8vv_compact: 8 lanes
// A function that would get the per-lane loop (inline assembly) cannot:
// no per-lane loop gives any() its group meaning.
int opaque(int x, int y) {
  __asm__ volatile("" : "+r"(x));
  return batchify_any(x > y);
}

// NOLOOP: batchify: error: cannot batchify `opaque`: `opaque` calls the cross-lane operation `batchify_any`, which needs the vector form, but it has none: inline assembly
