; A module may already declare the clone (e.g. a vectorized caller): the
; declaration's uses are redirected to the new body (checked below with a
; matching type). A declaration with another type is covered by
; existing-declaration-mismatch.ll.
;
; RUN: %batchify %s -S -o %t.ll --function f -n 4
; RUN: FileCheck %s < %t.ll
; CHECK-LABEL: define <4 x float> @caller(
; CHECK-NEXT:    call <4 x float> @_ZGV_LLVM_N4v_f(<4 x float> %v)
; CHECK-LABEL: define <4 x float> @_ZGV_LLVM_N4v_f(
; CHECK-NEXT:  {{^}}entry:
; CHECK-NEXT:    fmul <4 x float>
; CHECK-NOT:   declare <4 x float> @_ZGV_LLVM_N4v_f

define float @f(float %x) {
  %r = fmul float %x, %x
  ret float %r
}

declare <4 x float> @_ZGV_LLVM_N4v_f(<4 x float>)

define <4 x float> @caller(<4 x float> %v) {
  %r = call <4 x float> @_ZGV_LLVM_N4v_f(<4 x float> %v)
  ret <4 x float> %r
}
