; --print-plan: a private array of a varying function is one interleaved
; allocation for all lanes (`alloca` as private copies); its addresses and
; accesses depend on that layout: the lanes' copies of one element are
; contiguous, so a store and a load of it are vector accesses.
;
; RUN: %batchify %s -o /dev/null --print-plan --variant _ZGVdN8v_scratch 2> %t
; RUN: FileCheck %s < %t

define float @scratch(float %x) {
  %a = alloca [4 x float], align 4
  %p1 = getelementptr inbounds [4 x float], ptr %a, i64 0, i64 1
  store float %x, ptr %p1, align 4
  %v = load float, ptr %p1, align 4
  ret float %v
}

; CHECK-LABEL: plan of `scratch` for `_ZGVdN8v_scratch`
; CHECK-NEXT:  #0: mask full
; CHECK-NEXT:    widen private copies: %a = alloca [4 x float]
; CHECK-NEXT:    widen private (interleaved): %p1 = getelementptr inbounds [4 x float], ptr %a
; CHECK-NEXT:    store vector access: store float %x, ptr %p1
; CHECK-NEXT:    load vector access: %v = load float, ptr %p1
