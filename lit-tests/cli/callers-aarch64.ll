; The caller side on AArch64: a call of a `declare simd` function from a
; caller with +sve gets the function's SVE variant (`_ZGVsMx...`, scalable)
; in `vector-function-abi-variant` (here built in the module, from the
; same attributes; a declaration of its scalable type otherwise), so
; that clang's loop vectorizer can call it from a scalable loop (the
; execution test is simd_suite.rs's aarch64_sve, mode a). Advanced SIMD
; (`_ZGVn`) variants are never declared on calls: their convention is
; aarch64_vector_pcs and the vectorizer's calls take the C convention. A
; caller without SVE gets no entry.
;
; RUN: %batchify %s -S -o %t.ll
; RUN: FileCheck %s < %t.ll
; RUN: %opt -passes=loop-vectorize -S %t.ll -o - | FileCheck %s --check-prefix=VEC

target datalayout = "e-m:e-i8:8:32-i16:16:32-i64:64-i128:128-n32:64-S128-Fn32"
target triple = "aarch64-unknown-linux-gnu"

define float @k(float %x) #0 {
  %r = fmul float %x, 3.0
  ret float %r
}

define void @sve_caller(ptr %p, i64 %n) #1 {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %next, %loop ]
  %a = getelementptr inbounds float, ptr %p, i64 %i
  %x = load float, ptr %a
  %y = call float @k(float %x)
  store float %y, ptr %a
  %next = add nuw i64 %i, 1
  %more = icmp ult i64 %next, %n
  br i1 %more, label %loop, label %exit
exit:
  ret void
}

define float @plain_caller(float %x) #2 {
  %y = call float @k(float %x)
  ret float %y
}

attributes #0 = { vscale_range(1,16) "_ZGVsMxv_k" "_ZGVnN4v_k" "target-features"="+sve" }
attributes #1 = { vscale_range(1,16) "target-features"="+neon,+sve" }
attributes #2 = { "target-features"="+neon" }

; CHECK:       @llvm.compiler.used = {{.*}}@_ZGVsMxv_k
; CHECK-NOT:   _ZGVnN4v_k(_ZGVnN4v_k)
; CHECK-LABEL: define void @sve_caller(
; CHECK:         call float @k(float %x) #[[SVE_CALL:[0-9]+]]
; CHECK-LABEL: define float @plain_caller(
; CHECK:         call float @k(float %x){{$}}
; CHECK:       define <vscale x 4 x float> @_ZGVsMxv_k(<vscale x 4 x float> %x, <vscale x 4 x i1> %mask)
; CHECK:       attributes #[[SVE_CALL]] = { "vector-function-abi-variant"="_ZGVsMxv_k(_ZGVsMxv_k)" }

; VEC-LABEL: define void @sve_caller(
; VEC:         call <vscale x 4 x float> @_ZGVsMxv_k(<vscale x 4 x float> {{.*}}, <vscale x 4 x i1>
