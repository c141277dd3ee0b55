; BUG (batchify-core, cleanup::create_clone_function): when the module
; already declares the clone's name with a different function type and that
; declaration has uses, batchify deletes the declaration anyway and crashes
; (SIGSEGV, exit 139). Expected: one `batchify: error:` line naming
; `_ZGV_LLVM_N8v_f`, exit status 1, no output file.
; XFAIL: *
;
; RUN: rm -f %t.out
; RUN: not %batchify %s -o %t.out --function f -n 8 2> %t.err
; RUN: FileCheck %s < %t.err
; RUN: count 1 < %t.err
; RUN: test ! -e %t.out
; CHECK: {{^}}batchify: error: {{.*}}`_ZGV_LLVM_N8v_f`

define float @f(float %x) {
  %r = fmul float %x, %x
  ret float %r
}

declare <8 x float> @_ZGV_LLVM_N8v_f(<4 x float>)

define <8 x float> @caller(<4 x float> %v) {
  %r = call <8 x float> @_ZGV_LLVM_N8v_f(<4 x float> %v)
  ret <8 x float> %r
}
