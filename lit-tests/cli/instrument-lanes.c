// `--instrument-lanes` (docs/cli.md, "Lane utilisation"): every divergent
// loop of a clone counts its trips and active lanes (a ctpop of the trip's
// mask into a counter array), the report is registered with atexit, and at
// exit it prints each loop's utilisation and histogram, with the source
// location, to stderr or to $BATCHIFY_LANES_FILE. The map (declared and
// called here, so batchify defines it) runs four elements with 1, 2, 3 and
// 4 trips in one 4-lane group: 4 trips with 4, 3, 2 and 1 lanes, 10 of 16
// lane-trips used. An adaptive map also counts its probes.
//
// RUN: %clang -O2 -g -fno-unroll-loops -fno-vectorize -S -emit-llvm %s -o %t.ll
// RUN: %batchify %t.ll -o %t.g.ll -S --variant _ZGVbN4v_steps --map --map-form grouped --no-cost-model --instrument-lanes
// RUN: FileCheck %s --check-prefix=IR < %t.g.ll
// RUN: %clang -O2 %t.g.ll -o %t.g.exe
// RUN: %t.g.exe 4 > %t.out 2> %t.err
// RUN: FileCheck %s --check-prefix=RES < %t.out
// RUN: FileCheck %s --check-prefix=OUT < %t.err
// RUN: rm -f %t.lanes && env BATCHIFY_LANES_FILE=%t.lanes %t.g.exe 4 && FileCheck %s --check-prefix=OUT < %t.lanes
// RUN: %batchify %t.ll -o %t.a.ll -S --variant _ZGVbN4v_steps --map --no-cost-model --instrument-lanes
// RUN: %clang -O2 %t.a.ll -o %t.a.exe
// RUN: %t.a.exe 5000 2> %t.a.err
// RUN: FileCheck %s --check-prefix=ADAPTIVE < %t.a.err

// IR: @__batchify_lanes.c0 = internal global [7 x i64] zeroinitializer
// IR: define {{.*}}<4 x i32> @_ZGVbN4v_steps(
// IR: lanes.register:
// IR: call i32 @atexit(ptr {{(nonnull )?}}@__batchify_lanes.report)
// IR: loop.top:
// IR: call {{.*}} @llvm.ctpop.i4(
// IR: define internal void @__batchify_lanes.report()
// IR: call ptr @getenv(ptr @__batchify_lanes.f.var)

// RES: 1 2 3 4
// OUT: batchify lanes: _ZGVbN4v_steps: loop at instrument-lanes.c:[[@LINE+9]]: 4 trips, utilisation 0.625; active lanes: 1:1 2:1 3:1 4:1{{$}}

// ADAPTIVE: batchify lanes: steps_map: 1 probes, refill faster in {{[01]}}{{$}}

#include <stdio.h>
#include <stdlib.h>
int steps(unsigned x) {
  int n = 0;
  while (x > 1) {
    x = (x & 1) ? 3 * x + 1 : x / 2;
    n++;
  }
  return n;
}

void steps_map(size_t n, const unsigned *x, int *out);

int main(int argc, char **argv) {
  size_t n = argc > 1 ? (size_t)atol(argv[1]) : 4;
  unsigned *in = malloc(n * sizeof *in);
  int *out = malloc(n * sizeof *out);
  for (size_t i = 0; i < n; i++)
    in[i] = 2u << (i % 4);
  steps_map(n, in, out);
  printf("%d %d %d %d\n", out[0], out[1], out[2], out[3]);
  return 0;
}
