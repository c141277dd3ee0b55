; A divergent loop with two exit targets makes its parent divergent: the
; inner search loop leaves either to the next outer iteration or, for lanes
; that found `%x`, straight out of both loops to `%found`. The inner loop's
; node in the outer level therefore splits, so the outer level is
; linearized too, and the function level (which runs `%found` and `%done`
; for different lanes) as well. The early-exit value is varying (temporal
; divergence across two loop levels).
;
; RUN: %batchify %s -o /dev/null --variant _ZGV_LLVM_N4vu_f --print-analysis 2>&1 | FileCheck %s

define i32 @f(i32 %x, i32 %n) {
entry:
  br label %outer
outer:
  %j = phi i32 [ 0, %entry ], [ %j1, %outer.latch ]
  br label %inner
inner:
  %i = phi i32 [ 0, %outer ], [ %i1, %inner.latch ]
  %i1 = add i32 %i, 1
  %hit = icmp eq i32 %i1, %x
  br i1 %hit, label %found, label %inner.latch
inner.latch:
  %more = icmp slt i32 %i1, %n
  br i1 %more, label %inner, label %outer.latch
outer.latch:
  %j1 = add i32 %j, 1
  %again = icmp slt i32 %j1, %n
  br i1 %again, label %outer, label %done
found:
  %r = phi i32 [ %i1, %inner ]
  ret i32 %r
done:
  ret i32 -1
}

; CHECK:      params:
; CHECK-NEXT:   %x: varying
; CHECK-NEXT:   %n: uniform
; CHECK:      %found:
; CHECK-NEXT:   varying %r = phi i32 [ %i1, %inner ]
; CHECK:      loops:
; CHECK-NEXT:   loop %outer: divergent, depth 1, in function, 4 block(s)
; CHECK-NEXT:   loop %inner: divergent, depth 2, in loop %outer, 2 block(s)
; CHECK:      plan:
; CHECK-NEXT:   function: linearized: %entry [loop %outer] %done %found %UnifiedReturnBlock
; CHECK-NEXT:   loop %outer: linearized: %outer [loop %inner] %outer.latch
; CHECK-NEXT:   loop %inner: linearized: %inner %inner.latch
