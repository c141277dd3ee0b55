; A loop whose trip count is uniform, inside a divergent loop: the inner
; loop stays a uniform loop (real control flow, one exit condition for all
; lanes), although the outer loop is divergent.
;
; RUN: %batchify %s -o /dev/null --variant _ZGV_LLVM_N4vu_f --print-analysis 2>&1 | FileCheck %s

define i32 @f(i32 %x, i32 %n) {
entry:
  br label %outer
outer:
  %i = phi i32 [ 0, %entry ], [ %i1, %outer.latch ]
  %acc = phi i32 [ 0, %entry ], [ %acc2, %outer.latch ]
  br label %inner
inner:
  %j = phi i32 [ 0, %outer ], [ %j1, %inner ]
  %acc1 = phi i32 [ %acc, %outer ], [ %a, %inner ]
  %a = add i32 %acc1, %j
  %j1 = add i32 %j, 1
  %cj = icmp slt i32 %j1, %n
  br i1 %cj, label %inner, label %outer.latch
outer.latch:
  %acc2 = phi i32 [ %a, %inner ]
  %i1 = add i32 %i, 1
  %ci = icmp slt i32 %acc2, %x
  br i1 %ci, label %outer, label %exit
exit:
  %r = phi i32 [ %acc2, %outer.latch ]
  ret i32 %r
}

; CHECK:      values:
; CHECK:        uniform %j1 = add i32 %j, 1
; CHECK:        uniform %cj = icmp slt i32 %j1, %n
; CHECK:        varying %ci = icmp slt i32 %acc2, %x
; CHECK:      loops:
; CHECK-DAG:    loop %outer: divergent, depth 1, in function,
; CHECK-DAG:    loop %inner: uniform, depth 2, in loop %outer,
; CHECK:      plan:
; CHECK-DAG:    loop %outer: linearized: %outer [loop %inner] %outer.latch
; CHECK-DAG:    loop %inner: real control flow: %inner
