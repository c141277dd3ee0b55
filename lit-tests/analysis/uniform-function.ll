; With every parameter uniform except one that nothing branches on, the
; whole control flow stays real: uniform branches and loops are not
; linearized, and only values computed from the varying parameter vary.
;
; RUN: %batchify %s -o /dev/null --variant _ZGV_LLVM_N4uv_f --print-analysis 2>&1 | FileCheck %s

define float @f(i32 %n, float %x) {
entry:
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i1, %loop ]
  %acc = phi float [ %x, %entry ], [ %acc1, %loop ]
  %acc1 = fmul float %acc, 2.0
  %i1 = add i32 %i, 1
  %c = icmp slt i32 %i1, %n
  br i1 %c, label %loop, label %exit
exit:
  %r = phi float [ %acc1, %loop ]
  ret float %r
}

; CHECK:      params:
; CHECK-NEXT:   %n: uniform
; CHECK-NEXT:   %x: varying
; CHECK:        uniform %i = phi i32
; CHECK:        varying %acc = phi float
; CHECK:        uniform %c = icmp slt i32 %i1, %n
; CHECK:        uniform br i1 %c, label %loop, label %exit
; CHECK:      loops:
; CHECK-NEXT:   loop %loop: uniform, depth 1, in function, 1 block(s)
; CHECK:      plan:
; CHECK-NEXT:   function: real control flow: %entry [loop %loop] %exit
; CHECK-NEXT:   loop %loop: real control flow: %loop
