; The module already declares the clone's name with a different function
; type (here `<8 x float> (<4 x float>)` instead of `<8 x float> (<8 x float>)`),
; and the declaration has a use. batchify used to crash on this (SIGSEGV);
; now the clone replaces the declaration and the existing call is
; redirected to it: exit 0, nothing on stderr, one definition of the name,
; no declaration left, and the output passes the verifier.
;
; RUN: %batchify %s -S -o %t.ll --function f -n 8 2> %t.err
; RUN: count 0 < %t.err
; RUN: FileCheck %s < %t.ll
; RUN: %opt -passes=verify -disable-output %t.ll
; CHECK-NOT:   declare {{.*}}@_ZGV_LLVM_N8v_f
; CHECK-LABEL: define <8 x float> @caller(
; CHECK-NEXT:    call <8 x float> @_ZGV_LLVM_N8v_f(<4 x float> %v)
; CHECK-LABEL: define <8 x float> @_ZGV_LLVM_N8v_f(
; CHECK-SAME:    <8 x float> %x)
; CHECK-NEXT:  {{^}}entry:
; CHECK-NEXT:    fmul <8 x float> %x, %x
; CHECK-NOT:   declare {{.*}}@_ZGV_LLVM_N8v_f
; CHECK-NOT:   @_ZGV_LLVM_N8v_f.

define float @f(float %x) {
  %r = fmul float %x, %x
  ret float %r
}

declare <8 x float> @_ZGV_LLVM_N8v_f(<4 x float>)

define <8 x float> @caller(<4 x float> %v) {
  %r = call <8 x float> @_ZGV_LLVM_N8v_f(<4 x float> %v)
  ret <8 x float> %r
}
