; Map forms (docs/cli.md "Map forms"). `--map-form refill`: the map is one
; call of the refill worker's clone per stretch of at most 2^30 elements;
; the worker has one loop (f's loop flattened into the element loop); the
; lanes that start elements take consecutive ones and read them packed (a
; masked load of the first `count` elements and `vpermd` by each lane's
; rank on AVX2, `llvm.masked.expandload` on AVX-512, a gather at the ranks
; elsewhere), and results are written as a loop over the lanes that
; finished (`lanes:`, cttz of the mask). A function that writes
; memory keeps the grouped map and the report says why. The default,
; adaptive, times a grouped and a refilling stretch with the cycle counter
; and runs the faster. The maps' results are checked by execution in every
; form in crates/batchify-testkit/tests/map_entry.rs.
;
; RUN: %batchify %s -o %t.ll -S --variant _ZGVdN8v_steps --variant _ZGVdN8v_counts --map --map-form refill --report 2> %t.err
; RUN: FileCheck %s --check-prefix=REFILL < %t.ll
; RUN: FileCheck %s --check-prefix=REPORT < %t.err
; RUN: %batchify %s -o %t2.ll -S --variant _ZGVdN8v_steps --map --report 2> %t2.err
; RUN: FileCheck %s --check-prefix=ADAPTIVE < %t2.ll
; RUN: FileCheck %s --check-prefix=ADAPTIVE-REPORT < %t2.err
; RUN: not %batchify %s -o %t3.ll --variant _ZGVdN8v_steps --map --map-form sometimes 2>&1 | FileCheck %s --check-prefix=BAD
; RUN: %batchify %s -o - -S --variant _ZGVeN16v_steps --map --map-form refill | FileCheck %s --check-prefix=AVX512
; RUN: %batchify %s -o - -S --variant _ZGVbN4v_steps --map --map-form refill | FileCheck %s --check-prefix=SSE

; REPORT: batchify: __batchify_refill.steps_map -> _ZGVdN8uuuul___batchify_refill.steps_map: 8 lanes
; REPORT-NOT: sparse gather
; REPORT: memory: sparse scatter: `store {{.*}}!batchify.sparse
; REPORT: batchify: map: counts_map has no refill form: `store i32 %h, ptr @sink, align 4` may write memory that other elements see
; REPORT: batchify: map: steps_map over 8 lanes of _ZGVdN8v_steps, refill
; REPORT: batchify: map: counts_map over 8 lanes of _ZGVdN8v_counts, grouped

; The worker: lo, count, the map's arrays, the lane (linear, unused). Its
; element loop (`loop.top`) counts the free lanes (ctpop) and ranks them
; (log-step shifted sums); the lanes that start an element read it packed
; (the first `count` elements by a masked load, `vpermd` by the lanes'
; ranks); f's loop runs inside (`loop.top9`) until 3/8 of the lanes are
; done (ctpop of the mask: at most 5 of 8 running); the results are written
; as a loop over the lanes that finished. No gather, no scatter.
; REFILL-LABEL: define internal void @_ZGVdN8uuuul___batchify_refill.steps_map(i64 %0, i32 %1, ptr %2, ptr %3, i32 %4)
; REFILL: loop.top:
; REFILL: shufflevector <8 x i32> {{%.*}}, <8 x i32> {{.*}}, <8 x i32> <i32 8, i32 0, i32 1, i32 2, i32 3, i32 4, i32 5, i32 6>
; REFILL: call {{.*}} @llvm.ctpop.i8(
; REFILL: skip.run:
; REFILL: [[FIRST:%.*]] = icmp {{(samesign )?}}ugt <8 x i32> {{%.*}}, <i32 0, i32 1, i32 2, i32 3, i32 4, i32 5, i32 6, i32 7>
; REFILL: call <8 x i32> @llvm.masked.load.v8i32.p0(ptr align 4 {{%.*}}, <8 x i1> [[FIRST]], <8 x i32> zeroinitializer)
; REFILL: call <8 x i32> @llvm.x86.avx2.permd(<8 x i32> {{%.*}}, <8 x i32>
; REFILL: loop.top9:
; REFILL: [[ACTIVE:%.*]] = call {{.*}} @llvm.ctpop.i8(
; REFILL: icmp {{(samesign )?}}ugt i8 [[ACTIVE]], 5
; REFILL: lanes:
; REFILL: call {{.*}} @llvm.cttz.i8(
; REFILL: store i32 {{%.*}}, ptr {{%.*}}, align 4, !batchify.sparse
; REFILL-NOT: masked.gather
; REFILL-NOT: masked.scatter
; REFILL: declare i8 @llvm.ctpop.i8(

; AVX-512: the packed read is an expand load; 16 lanes refill at 10 running.
; AVX512-LABEL: define internal void @_ZGVeN16uuuul___batchify_refill.steps_map(
; AVX512: call <16 x i32> @llvm.masked.expandload.v16i32(ptr align 4 {{%.*}}, <16 x i1> {{%.*}}, <16 x i32> zeroinitializer)
; AVX512: icmp {{(samesign )?}}ugt i16 {{%.*}}, 10
; AVX512-NOT: masked.gather

; SSE2 has neither: a gather at the ranks; 4 lanes refill at 2 running.
; SSE-LABEL: define internal void @_ZGVbN4uuuul___batchify_refill.steps_map(
; SSE: call <4 x i32> @llvm.masked.gather.v4i32.v4p0(<4 x ptr> align 4 {{%.*}}, <4 x i1> {{%.*}}, <4 x i32> zeroinitializer)
; SSE: icmp {{(samesign )?}}ugt i4 {{%.*}}, 2

; REFILL-LABEL: define void @steps_map(i64 %n, ptr %x, ptr %out)
; REFILL: run:
; REFILL: select i1 {{%.*}}, i64 {{%.*}}, i64 1073741824
; REFILL: call void @_ZGVdN8uuuul___batchify_refill.steps_map(i64 {{%.*}}, i32 {{%.*}}, ptr %x, ptr %out, i32 0)
; REFILL-NOT: @_ZGVdN8v_steps(
; REFILL: ret void

; The grouped map of the function that writes memory.
; REFILL-LABEL: define void @counts_map(
; REFILL: group:
; REFILL: call <8 x i32> @_ZGVdN8v_counts(
; REFILL: tail:
; REFILL: call <8 x i32> @_ZGVdM8v_counts(

; ADAPTIVE-REPORT: batchify: map: steps_map over 8 lanes of _ZGVdN8v_steps, adaptive
; ADAPTIVE-LABEL: define void @steps_map(i64 %n, ptr %x, ptr %out)
; ADAPTIVE: head:
; ADAPTIVE: icmp ugt i64 {{%.*}}, 2048
; ADAPTIVE: probe:
; ADAPTIVE: call i64 @llvm.readcyclecounter()
; ADAPTIVE: call void @__batchify_groups.steps_map(
; ADAPTIVE: call i64 @llvm.readcyclecounter()
; ADAPTIVE: call void @_ZGVdN8uuuul___batchify_refill.steps_map(
; ADAPTIVE: call i64 @llvm.readcyclecounter()
; ADAPTIVE: br i1 {{%.*}}, label %run.refill, label %run.groups
; ADAPTIVE: run.refill:
; ADAPTIVE: call void @_ZGVdN8uuuul___batchify_refill.steps_map(
; ADAPTIVE: run.groups:
; ADAPTIVE: call void @__batchify_groups.steps_map(
; ADAPTIVE: rest:
; ADAPTIVE: call void @__batchify_groups.steps_map(i64 {{%.*}}, i64 %n, ptr %x, ptr %out)
; ADAPTIVE-LABEL: define internal void @__batchify_groups.steps_map(
; ADAPTIVE: call <8 x i32> @_ZGVdN8v_steps(
; ADAPTIVE: call <8 x i32> @_ZGVdM8v_steps(

; BAD: unknown map form `sometimes` (expected adaptive, refill or grouped)

target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

; Collatz steps: a divergent loop, no memory written.
define i32 @steps(i32 %x) {
entry:
  br label %loop
loop:
  %v = phi i32 [ %x, %entry ], [ %next, %body ]
  %n = phi i32 [ 0, %entry ], [ %n1, %body ]
  %done = icmp ule i32 %v, 1
  br i1 %done, label %exit, label %body
body:
  %odd = and i32 %v, 1
  %isodd = icmp ne i32 %odd, 0
  %t = mul i32 %v, 3
  %t1 = add i32 %t, 1
  %h = lshr i32 %v, 1
  %next = select i1 %isodd, i32 %t1, i32 %h
  %n1 = add i32 %n, 1
  %cap = icmp ult i32 %n1, 1000
  br i1 %cap, label %loop, label %exit
exit:
  %r = phi i32 [ %n, %loop ], [ %n1, %body ]
  ret i32 %r
}

@sink = global i32 0

; Writes memory: its map stays grouped.
define i32 @counts(i32 %x) {
entry:
  br label %loop
loop:
  %v = phi i32 [ %x, %entry ], [ %h, %loop ]
  %h = lshr i32 %v, 1
  store i32 %h, ptr @sink
  %z = icmp eq i32 %h, 0
  br i1 %z, label %exit, label %loop
exit:
  ret i32 %v
}
