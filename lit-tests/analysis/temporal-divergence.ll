; Temporal divergence: lanes leave a loop with a varying exit condition at
; different iterations, so the loop is divergent, and a value that is the
; same in every lane on each iteration (the uniform running sum `%s`) is
; varying once it is used after the loop (`%out`, through the LCSSA phi).
;
; RUN: %batchify %s -o /dev/null --variant _ZGV_LLVM_N4vu_f --print-analysis 2>&1 | FileCheck %s

define i32 @f(i32 %x, i32 %u) {
entry:
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i1, %loop ]
  %s = phi i32 [ 0, %entry ], [ %s1, %loop ]
  %s1 = add i32 %s, %u
  %i1 = add i32 %i, 1
  %c = icmp slt i32 %i1, %x
  br i1 %c, label %loop, label %exit
exit:
  %out = phi i32 [ %s1, %loop ]
  ret i32 %out
}

; CHECK:      values:
; CHECK:        varying %c = icmp slt i32 %i1, %x
; CHECK:        varying %out = phi i32 [ %s1, %loop ]
; CHECK:      loops:
; CHECK-NEXT:   loop %loop: divergent, depth 1, in function, 1 block(s)
; CHECK:      plan:
; CHECK-NEXT:   function: real control flow: %entry [loop %loop] %exit
; CHECK-NEXT:   loop %loop: linearized: %loop
