; BUG (minor, batchify-core transform::prepare::copy_function): the scratch
; copy does not copy parameter names, so every clone's parameters are
; `%0, %1, ...` instead of the scalar function's `%e0, %e1, %x`, which makes
; the emitted IR (and error messages that quote instructions) harder to read.
; Instruction names are kept. Remove the XFAIL once names are copied.
; XFAIL: *
;
; RUN: %batchify %s -S -o %t.ll --variant _ZGVdN8uuv_lerp
; RUN: FileCheck %s < %t.ll

define float @lerp(float %e0, float %e1, float %x) {
  %d = fsub float %e1, %e0
  %m = fmul float %d, %x
  %r = fadd float %m, %e0
  ret float %r
}

; CHECK-LABEL: define <8 x float> @_ZGVdN8uuv_lerp(float %e0, float %e1, <8 x float> %x)
; CHECK:         %d = fsub float %e1, %e0
