; Two lane groups per trip (docs/cli.md "Map forms"): a refilling map whose
; loop the cost model finds latency-bound (the escape-time loop: each trip's
; multiplies and adds wait on the last, chain 12 against 9.3 cycles of
; vector work) runs a worker of twice the map's lanes where a group's values
; fill one register: AVX2 x8 floats -> a 16-lane worker (two registers per
; value, one mask register per group), AVX-512 x16 -> 32. Collatz steps
; (chain 5 against 7.5 cycles) and the escape loop in double (8 doubles
; are two AVX2 registers already) keep one group, as do SSE clones and
; `--refill-groups 1`; `--refill-groups 2` forces two. The grouped clones
; are unchanged. The maps' results in both group counts are checked by
; execution in crates/batchify-testkit/tests/map_entry.rs and
; `batchify-fuzz --map --map-form refill --refill-groups 2`.
;
; RUN: %batchify %s -o %t.ll -S --variant _ZGVdN8vv_escape --variant _ZGVdN8v_steps --variant _ZGVdN8vv_escape_d --map --map-form refill --report 2> %t.err
; RUN: FileCheck %s --check-prefix=AVX2 < %t.ll
; RUN: FileCheck %s --check-prefix=REPORT < %t.err
; RUN: %batchify %s -o - -S --variant _ZGVeN16vv_escape --map --report 2>&1 >/dev/null | FileCheck %s --check-prefix=AVX512
; RUN: %batchify %s -o - -S --variant _ZGVbN4vv_escape --map --report 2>&1 >/dev/null | FileCheck %s --check-prefix=SSE
; RUN: %batchify %s -o - -S --variant _ZGVdN8vv_escape --map --refill-groups 1 --report 2>&1 >/dev/null | FileCheck %s --check-prefix=ONE
; RUN: %batchify %s -o - -S --variant _ZGVdN8v_steps --map --refill-groups 2 --report 2>&1 >/dev/null | FileCheck %s --check-prefix=TWO
; RUN: not %batchify %s -o %t3.ll --variant _ZGVdN8v_steps --map --refill-groups 3 2>&1 | FileCheck %s --check-prefix=BAD

; REPORT: cost: divergent loop %loop: est. {{.*}} chain 12, vector 9.3 cycles
; REPORT: cost: divergent loop %loop: est. {{.*}} chain 5, vector 7.5 cycles
; REPORT: batchify: __batchify_refill.escape_map -> _ZGVdN16uuuuul___batchify_refill.escape_map: 16 lanes
; REPORT: batchify: __batchify_refill.steps_map -> _ZGVdN8uuuul___batchify_refill.steps_map: 8 lanes
; REPORT: batchify: __batchify_refill.escape_d_map -> _ZGVdN8uuuuul___batchify_refill.escape_d_map: 8 lanes
; REPORT: batchify: map: escape_map over 8 lanes of _ZGVdN8vv_escape, refill (refilling 2 lane groups per trip)
; REPORT: batchify: map: steps_map over 8 lanes of _ZGVdN8v_steps, refill{{$}}
; REPORT: batchify: map: escape_d_map over 8 lanes of _ZGVdN8vv_escape_d, refill{{$}}

; The grouped clone keeps 8 lanes; the worker has 16: its state is two
; registers per value, its mask one <16 x i32> (a register per group), and
; the lanes it refills read their elements by one masked load and a
; vpermps per register and group (no gather); it refills when at most 10
; of its 16 lanes are still running.
; AVX2-LABEL: define <8 x i32> @_ZGVdN8vv_escape(<8 x float> %cr, <8 x float> %ci)
; AVX2-LABEL: define internal void @_ZGVdN16uuuuul___batchify_refill.escape_map(
; AVX2: phi <16 x i32> [ splat (i32 -1), %entry ]
; AVX2: phi <16 x float>
; AVX2: call <16 x float> @llvm.masked.load.v16f32.p0(
; AVX2: call <8 x float> @llvm.x86.avx2.permps(
; AVX2-NOT: masked.gather
; AVX2: icmp {{.*}}ugt i16 {{%.*}}, 10
; AVX2-LABEL: define internal void @_ZGVdN8uuuul___batchify_refill.steps_map(
; AVX2-LABEL: define void @escape_map(i64 %n, ptr %cr, ptr %ci, ptr %out)
; AVX2: call void @_ZGVdN16uuuuul___batchify_refill.escape_map(i64 {{%.*}}, i32 {{%.*}}, ptr %cr, ptr %ci, ptr %out, i32 0)

; AVX512: batchify: __batchify_refill.escape_map -> _ZGVeN32uuuuul___batchify_refill.escape_map: 32 lanes
; AVX512: batchify: map: escape_map over 16 lanes of _ZGVeN16vv_escape, adaptive (refilling 2 lane groups per trip)

; SSE: batchify: __batchify_refill.escape_map -> _ZGVbN4uuuuul___batchify_refill.escape_map: 4 lanes
; SSE: batchify: map: escape_map over 4 lanes of _ZGVbN4vv_escape, adaptive{{$}}

; ONE: batchify: __batchify_refill.escape_map -> _ZGVdN8uuuuul___batchify_refill.escape_map: 8 lanes
; ONE: batchify: map: escape_map over 8 lanes of _ZGVdN8vv_escape, adaptive{{$}}

; TWO: batchify: __batchify_refill.steps_map -> _ZGVdN16uuuul___batchify_refill.steps_map: 16 lanes
; TWO: batchify: map: steps_map over 8 lanes of _ZGVdN8v_steps, adaptive (refilling 2 lane groups per trip)

; BAD: --refill-groups

target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

; Escape time of z <- z*z + c: each trip's multiplies and adds wait for the last.
define i32 @escape(float %cr, float %ci) {
entry:
  br label %loop
loop:
  %zr = phi float [ 0.0, %entry ], [ %nzr, %body ]
  %zi = phi float [ 0.0, %entry ], [ %nzi, %body ]
  %k = phi i32 [ 0, %entry ], [ %k1, %body ]
  %rr = fmul float %zr, %zr
  %ii = fmul float %zi, %zi
  %m = fadd float %rr, %ii
  %out = fcmp ogt float %m, 4.0
  br i1 %out, label %exit, label %body
body:
  %d = fsub float %rr, %ii
  %nzr = fadd float %d, %cr
  %ri = fmul float %zr, %zi
  %ri2 = fadd float %ri, %ri
  %nzi = fadd float %ri2, %ci
  %k1 = add i32 %k, 1
  %cap = icmp ult i32 %k1, 256
  br i1 %cap, label %loop, label %exit
exit:
  %r = phi i32 [ %k, %loop ], [ %k1, %body ]
  ret i32 %r
}

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

; Escape time in double: a group of 8 doubles is two AVX2 registers already.
define i32 @escape_d(double %cr, double %ci) {
entry:
  br label %loop
loop:
  %zr = phi double [ 0.0, %entry ], [ %nzr, %body ]
  %zi = phi double [ 0.0, %entry ], [ %nzi, %body ]
  %k = phi i32 [ 0, %entry ], [ %k1, %body ]
  %rr = fmul double %zr, %zr
  %ii = fmul double %zi, %zi
  %m = fadd double %rr, %ii
  %out = fcmp ogt double %m, 4.0
  br i1 %out, label %exit, label %body
body:
  %d = fsub double %rr, %ii
  %nzr = fadd double %d, %cr
  %ri = fmul double %zr, %zi
  %ri2 = fadd double %ri, %ri
  %nzi = fadd double %ri2, %ci
  %k1 = add i32 %k, 1
  %cap = icmp ult i32 %k1, 256
  br i1 %cap, label %loop, label %exit
exit:
  %r = phi i32 [ %k, %loop ], [ %k1, %body ]
  ret i32 %r
}
