; The module already declares the clone's name with a different function
; type (here `<8 x float> (<4 x float>)` instead of `<8 x float> (<8 x float>)`),
; and the declaration has a use: its caller was compiled against another
; signature, so batchify refuses with one error line naming both types
; (exit 1, no output file) instead of redirecting the call to a clone it
; does not fit.
;
; RUN: rm -f %t.ll
; RUN: not %batchify %s -S -o %t.ll --function f -n 8 2> %t.err
; RUN: FileCheck %s --check-prefix=ERR < %t.err
; RUN: count 1 < %t.err
; RUN: not test -e %t.ll
; ERR: batchify: error: variant `_ZGV_LLVM_N8v_f` does not fit its scalar function: the module declares it as `<8 x float> (<4 x float>)`, but the clone's type is `<8 x float> (<8 x float>)`

define float @f(float %x) {
  %r = fmul float %x, %x
  ret float %r
}

declare <8 x float> @_ZGV_LLVM_N8v_f(<4 x float>)

define <8 x float> @caller(<4 x float> %v) {
  %r = call <8 x float> @_ZGV_LLVM_N8v_f(<4 x float> %v)
  ret <8 x float> %r
}
