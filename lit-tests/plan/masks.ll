; --print-plan: masks and control. In an unmasked clone the entry block
; runs under a full mask; after a divergent branch the function body is
; linearized and every block's mask is partial; a uniform loop in a
; uniform body keeps the full mask, a divergent loop's blocks do not. Hints
; on varying values are dropped, a `noreturn` call is deferred, uniform
; values stay scalar.
;
; RUN: %batchify %s -o /dev/null --print-plan --variant _ZGVdN8vu_uniform_loop --variant _ZGVdN8v_diverge 2> %t
; RUN: FileCheck %s < %t

declare void @llvm.assume(i1)
declare void @abort() noreturn nounwind

define float @uniform_loop(float %x, i32 %n) {
entry:
  %m = and i32 %n, 31
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i.next, %loop ]
  %r = phi float [ 1.0, %entry ], [ %r.next, %loop ]
  %r.next = fmul float %r, %x
  %i.next = add nuw nsw i32 %i, 1
  %done = icmp uge i32 %i.next, %m
  br i1 %done, label %exit, label %loop
exit:
  ret float %r.next
}

define i32 @diverge(i32 %x) {
entry:
  %pos = icmp sge i32 %x, 0
  call void @llvm.assume(i1 %pos)
  %big = icmp sgt i32 %x, 1000
  br i1 %big, label %fail, label %ok
fail:
  call void @abort()
  unreachable
ok:
  %y = add i32 %x, 1
  ret i32 %y
}

; CHECK-LABEL: plan of `uniform_loop` for `_ZGVdN8vu_uniform_loop`
; CHECK-NEXT:  entry: mask full
; CHECK-NEXT:    uniform: %m = and i32 %n, 31
; CHECK:       loop: mask full
; CHECK:         widen arithmetic: %r.next = fmul float %r, %x
; CHECK-NEXT:    uniform: %i.next = add nuw nsw i32 %i, 1

; CHECK-LABEL: plan of `diverge` for `_ZGVdN8v_diverge`
; CHECK-NEXT:  entry: mask partial
; CHECK-NEXT:    widen comparison: %pos = icmp sge i32 %x, 0
; CHECK-NEXT:    dropped: call void @llvm.assume(i1 %pos)
; CHECK:       ok: mask partial
; CHECK-NEXT:    widen arithmetic: %y = add i32 %x, 1
; CHECK:       fail: mask partial
; CHECK-NEXT:    deferred noreturn: call void @abort()
