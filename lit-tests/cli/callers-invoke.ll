; C++ calls of a `declare simd` function that is not `noexcept` are
; `invoke`s (callers/invokes.rs). In an `omp simd` loop (the call carries
; clang's `!llvm.access.group`) whose landing pad calls
; `__clang_call_terminate`, the exception may not leave the iteration
; (OpenMP), so the invoke becomes an annotated call, which LLVM's loop
; vectorizer can widen. An invoke whose exception is caught, or one outside
; an `omp simd` loop, stays as it is, with a note saying why.
;
; RUN: %batchify %s -S -o %t.ll --report 2> %t.err
; RUN: FileCheck %s < %t.ll
; RUN: FileCheck %s --check-prefix=NOTE < %t.err
; RUN: opt-22 -passes=loop-vectorize -force-vector-width=8 -S %t.ll | FileCheck %s --check-prefix=LV

; CHECK-LABEL: define void @in_simd_loop(
; CHECK-NOT: invoke
; CHECK: call float @g(float {{.*}}) [[ANNOTATED:#[0-9]+]], !llvm.access.group
; CHECK-LABEL: define void @caught(
; CHECK: invoke float @g(
; CHECK: attributes [[ANNOTATED]] = { nounwind "vector-function-abi-variant"="{{.*}}_ZGVdN8v_g(_ZGVdN8v_g)

; NOTE-DAG: caller `in_simd_loop`: `invoke`s in `omp simd` loops, whose exception would end the program, are calls now
; NOTE-DAG: `caught` calls `g` with an `invoke`, left scalar: it is outside an `omp simd` loop (declare `g` `noexcept` to make it a call)

; LV-LABEL: define void @in_simd_loop(
; LV: call <8 x float> @_ZGVdN8v_g(<8 x float>

target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

declare float @g(float) #0
declare i32 @__gxx_personality_v0(...)
declare void @__clang_call_terminate(ptr)

define void @in_simd_loop(ptr noalias %o, ptr noalias %a, i64 %n) #1 personality ptr @__gxx_personality_v0 {
entry:
  %empty = icmp sle i64 %n, 0
  br i1 %empty, label %exit, label %loop

loop:
  %i = phi i64 [ 0, %entry ], [ %next, %cont ]
  %pa = getelementptr inbounds float, ptr %a, i64 %i
  %x = load float, ptr %pa, align 4, !llvm.access.group !0
  %y = invoke float @g(float %x)
          to label %cont unwind label %terminate, !llvm.access.group !0

cont:
  %po = getelementptr inbounds float, ptr %o, i64 %i
  store float %y, ptr %po, align 4, !llvm.access.group !0
  %next = add nuw nsw i64 %i, 1
  %done = icmp eq i64 %next, %n
  br i1 %done, label %exit, label %loop, !llvm.loop !1

terminate:
  %lp = landingpad { ptr, i32 }
          catch ptr null
  %e = extractvalue { ptr, i32 } %lp, 0
  call void @__clang_call_terminate(ptr %e)
  unreachable

exit:
  ret void
}

define void @caught(ptr %o, float %x) #1 personality ptr @__gxx_personality_v0 {
entry:
  %y = invoke float @g(float %x)
          to label %ok unwind label %pad

ok:
  store float %y, ptr %o, align 4
  ret void

pad:
  %lp = landingpad { ptr, i32 }
          catch ptr null
  store float 0.0, ptr %o, align 4
  ret void
}

attributes #0 = { "_ZGVbN4v_g" "_ZGVdN8v_g" }
attributes #1 = { "target-cpu"="x86-64-v3" "target-features"="+avx,+avx2,+fma,+sse2" }

!0 = distinct !{}
!1 = distinct !{!1, !2, !3}
!2 = !{!"llvm.loop.parallel_accesses", !0}
!3 = !{!"llvm.loop.vectorize.enable", i1 true}
