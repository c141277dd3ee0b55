; A `declare simd` function that calls libm under clang's default
; `-fmath-errno` is inferred to write but never read memory
; (`memory(errnomem: write)`), and LLVM's loop vectorizer refuses calls
; that only write. The caller side drops that attribute from a function
; whose calls it annotates (callers::forget_write_only_memory), so the loop
; vectorizer calls the variant. An attribute that also reads stays.
;
; RUN: %batchify %s -S -o %t.ll
; RUN: FileCheck %s < %t.ll
; RUN: opt-22 -passes=loop-vectorize -force-vector-width=8 -S %t.ll | FileCheck %s --check-prefix=LV

; CHECK: define float @g(float %x) [[G:#[0-9]+]]
; CHECK: define float @h(float %x) [[H:#[0-9]+]]
; CHECK-DAG: attributes [[G]] = { nounwind "_ZGVbN4v_g" "_ZGVdN8v_g" }
; CHECK-DAG: attributes [[H]] = { nounwind memory(read, errnomem: write) "_ZGVbN4v_h" "_ZGVdN8v_h" }

; LV-LABEL: define void @loop(
; LV: call <8 x float> @_ZGVdN8v_g(<8 x float>

target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

declare float @expf(float) #0

define float @g(float %x) #1 {
  %r = call float @expf(float %x)
  ret float %r
}

define float @h(float %x) #2 {
  %r = call float @expf(float %x)
  ret float %r
}

define void @loop(ptr noalias %o, ptr noalias %a, i64 %n) #3 {
entry:
  br label %body
body:
  %i = phi i64 [ 0, %entry ], [ %next, %body ]
  %pa = getelementptr inbounds float, ptr %a, i64 %i
  %x = load float, ptr %pa, align 4, !llvm.access.group !0
  %y = call float @g(float %x), !llvm.access.group !0
  %z = call float @h(float %y), !llvm.access.group !0
  %po = getelementptr inbounds float, ptr %o, i64 %i
  store float %z, ptr %po, align 4, !llvm.access.group !0
  %next = add nuw nsw i64 %i, 1
  %done = icmp eq i64 %next, %n
  br i1 %done, label %exit, label %body, !llvm.loop !1
exit:
  ret void
}

attributes #0 = { nounwind memory(errnomem: write) }
attributes #1 = { nounwind memory(errnomem: write) "_ZGVbN4v_g" "_ZGVdN8v_g" }
attributes #2 = { nounwind memory(read, errnomem: write) "_ZGVbN4v_h" "_ZGVdN8v_h" }
attributes #3 = { "target-cpu"="x86-64-v3" "target-features"="+avx,+avx2,+fma,+sse2" }

!0 = distinct !{}
!1 = distinct !{!1, !2, !3}
!2 = !{!"llvm.loop.parallel_accesses", !0}
!3 = !{!"llvm.loop.vectorize.enable", i1 true}
