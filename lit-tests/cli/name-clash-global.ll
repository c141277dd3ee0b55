; BUG (batchify-core, cleanup::create_clone_function): when a global
; *variable* already has the clone's name, LLVM silently renames the new
; function to `_ZGV_LLVM_N4v_f.1`, so the clone does not carry the name the
; Vector Function ABI asks for and nobody can call it. Expected: one
; `batchify: error:` line naming `_ZGV_LLVM_N4v_f`, exit status 1.
; XFAIL: *
;
; RUN: rm -f %t.out
; RUN: not %batchify %s -o %t.out --function f -n 4 2> %t.err
; RUN: FileCheck %s < %t.err
; RUN: test ! -e %t.out
; CHECK: {{^}}batchify: error: {{.*}}`_ZGV_LLVM_N4v_f`

@_ZGV_LLVM_N4v_f = global i32 0

define float @f(float %x) {
  %r = fmul float %x, %x
  ret float %r
}
