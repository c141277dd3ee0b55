; `omp simd` loops that LLVM's loop vectorizer refuses: `horner` reads
; through a uniform pointer and `put` writes through one
; (LoopAccessAnalysis: "instruction cannot be vectorized"). The caller
; side batches such a loop itself (callers::loops): the body becomes
; clones called for 4 iterations at a time (unmasked) and for the last ones
; (masked, lanes from the loop's own exit test), which call the variants.
; A loop that carries a value other than its counter, one without the
; `omp simd` promise, and one with an access outside the loop's access
; groups are left alone.
;
; RUN: %batchify %s -S -o %t.ll --report 2> %t.err
; RUN: FileCheck %s < %t.ll
; RUN: FileCheck %s --check-prefix=REPORT < %t.err

; CHECK-LABEL: define void @apply(
; CHECK-NOT: call double @horner
; CHECK: batchify.loop.trip:
; CHECK: bitcast <4 x i1> %{{.*}} to i4
; CHECK: br i1 %{{.*}}, label %batchify.loop.all, label %batchify.loop.last
; CHECK: batchify.loop.all:
; CHECK-NEXT: call void @__batchify._ZGVdN4luuuu___batchify.loop.apply.0(i64 %[[I:.*]], ptr %in, ptr %coef, i32 %deg, ptr %out)
; CHECK-NEXT: add i64 %[[I]], 4
; CHECK: batchify.loop.last:
; CHECK: call i4 @llvm.cttz.i4
; CHECK: call void @__batchify._ZGVdM4luuuu___batchify.loop.apply.0(i64 %[[I]], ptr %in, ptr %coef, i32 %deg, ptr %out, <4 x i32>
; CHECK-NEXT: br label %exit

; CHECK-LABEL: define double @sum(
; CHECK: call double @horner(
; CHECK-LABEL: define void @plain(
; CHECK: call double @horner(
; CHECK-LABEL: define void @other_group(
; CHECK: call double @horner(

; CHECK-LABEL: define internal void @__batchify._ZGVdN4luuuu___batchify.loop.apply.0(
; CHECK: load <4 x double>
; CHECK: call <4 x double> @_ZGVdN4uuv_horner(ptr %coef, i32 %deg, <4 x double>
; CHECK: call void @_ZGVdN4ulv_put(ptr %out, i32 %{{.*}}, <4 x double>

; REPORT-DAG: the `omp simd` loop `body` in `apply` calls `__batchify._ZGVdN4luuuu___batchify.loop.apply.0` for 4 iterations at a time and `__batchify._ZGVdM4luuuu___batchify.loop.apply.0` for the last ones
; REPORT-DAG: the `omp simd` loop `body` in `other_group` stays scalar (LLVM's loop vectorizer refuses its call of `horner`, and batchify does not batch it: `%x = load double, ptr %pa, align 8, !llvm.access.group !{{[0-9]+}}` accesses memory outside the `omp simd` promise)
; REPORT-DAG: the `omp simd` loop `body` in `sum` stays scalar (LLVM's loop vectorizer refuses its call of `horner`, and batchify does not batch it: it carries 2 values from trip to trip

target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

declare double @horner(ptr, i32, double) #0
declare void @put(ptr, i32, double) #1

define void @apply(ptr %coef, i32 %deg, ptr noalias %in, ptr noalias %out, i64 %n) #2 {
entry:
  br label %body
body:
  %i = phi i64 [ 0, %entry ], [ %next, %body ]
  %pa = getelementptr inbounds double, ptr %in, i64 %i
  %x = load double, ptr %pa, align 8, !llvm.access.group !0
  %y = call double @horner(ptr %coef, i32 %deg, double %x), !llvm.access.group !0
  %i32 = trunc nuw nsw i64 %i to i32
  call void @put(ptr %out, i32 %i32, double %y), !llvm.access.group !0
  %next = add nuw nsw i64 %i, 1
  %done = icmp eq i64 %next, %n
  br i1 %done, label %exit, label %body, !llvm.loop !1
exit:
  ret void
}

define double @sum(ptr %coef, i32 %deg, ptr noalias %in, i64 %n) #2 {
entry:
  br label %body
body:
  %i = phi i64 [ 0, %entry ], [ %next, %body ]
  %s = phi double [ 0.0, %entry ], [ %t, %body ]
  %pa = getelementptr inbounds double, ptr %in, i64 %i
  %x = load double, ptr %pa, align 8, !llvm.access.group !4
  %y = call double @horner(ptr %coef, i32 %deg, double %x), !llvm.access.group !4
  %t = fadd double %s, %y
  %next = add nuw nsw i64 %i, 1
  %done = icmp eq i64 %next, %n
  br i1 %done, label %exit, label %body, !llvm.loop !5
exit:
  ret double %t
}

; No `llvm.loop.parallel_accesses`: not an `omp simd` loop.
define void @plain(ptr %coef, i32 %deg, ptr noalias %in, ptr noalias %out, i64 %n) #2 {
entry:
  br label %body
body:
  %i = phi i64 [ 0, %entry ], [ %next, %body ]
  %pa = getelementptr inbounds double, ptr %in, i64 %i
  %x = load double, ptr %pa, align 8
  %y = call double @horner(ptr %coef, i32 %deg, double %x)
  %po = getelementptr inbounds double, ptr %out, i64 %i
  store double %y, ptr %po, align 8
  %next = add nuw nsw i64 %i, 1
  %done = icmp eq i64 %next, %n
  br i1 %done, label %exit, label %body
exit:
  ret void
}

; The load is in another loop's access group (!7), not in this loop's (!0).
define void @other_group(ptr %coef, i32 %deg, ptr noalias %in, ptr noalias %out, i64 %n) #2 {
entry:
  br label %body
body:
  %i = phi i64 [ 0, %entry ], [ %next, %body ]
  %pa = getelementptr inbounds double, ptr %in, i64 %i
  %x = load double, ptr %pa, align 8, !llvm.access.group !7
  %y = call double @horner(ptr %coef, i32 %deg, double %x), !llvm.access.group !0
  %po = getelementptr inbounds double, ptr %out, i64 %i
  store double %y, ptr %po, align 8, !llvm.access.group !0
  %next = add nuw nsw i64 %i, 1
  %done = icmp eq i64 %next, %n
  br i1 %done, label %exit, label %body, !llvm.loop !8
exit:
  ret void
}

attributes #0 = { nounwind "_ZGVbN2uuv_horner" "_ZGVdN4uuv_horner" }
attributes #1 = { nounwind "_ZGVbN2ulv_put" "_ZGVdN4ulv_put" }
attributes #2 = { nounwind "target-cpu"="x86-64-v3" "target-features"="+avx,+avx2,+fma,+sse2" }

!0 = distinct !{}
!1 = distinct !{!1, !2, !3}
!2 = !{!"llvm.loop.parallel_accesses", !0}
!3 = !{!"llvm.loop.vectorize.enable", i1 true}
!4 = distinct !{}
!5 = distinct !{!5, !6}
!6 = !{!"llvm.loop.parallel_accesses", !4}
!7 = distinct !{}
!8 = distinct !{!8, !2}
