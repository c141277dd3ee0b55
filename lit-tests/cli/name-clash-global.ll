; A global *variable* that already has the clone's name: batchify refuses
; with one error line naming `_ZGV_LLVM_N4v_f`, exit status 1, no output
; (it used to let LLVM rename the clone to `_ZGV_LLVM_N4v_f.1` silently, so
; the clone did not carry the name the Vector Function ABI asks for).
;
; RUN: rm -f %t.out
; RUN: not %batchify %s -o %t.out --function f -n 4 2> %t.err
; RUN: FileCheck %s < %t.err
; RUN: count 1 < %t.err
; RUN: test ! -e %t.out
; CHECK: {{^}}batchify: error: variant `_ZGV_LLVM_N4v_f` {{.*}}a global variable or alias of that name already exists in the module{{$}}
;
; The same with --no-fallback: this is not a construct to fall back on.
; RUN: not %batchify %s -o %t.out --function f -n 4 --no-fallback 2> %t.err
; RUN: FileCheck %s < %t.err
; RUN: count 1 < %t.err
; RUN: test ! -e %t.out

@_ZGV_LLVM_N4v_f = global i32 0

define float @f(float %x) {
  %r = fmul float %x, %x
  ret float %r
}
