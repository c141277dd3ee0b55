; Batchifying leaves the scalar functions exactly as they were (the
; transform works on a private scratch copy that is deleted afterwards),
; and leaves no scratch function behind.
;
; RUN: %batchify %s -S -o %t.ll --variant _ZGV_LLVM_N8vu_powi_loop --function mix -n 4
; RUN: FileCheck %s < %t.ll
; Byte-for-byte: the extracted scalar functions are identical.
; RUN: llvm-extract -S --func=powi_loop --func=mix %s -o %t.before.ll
; RUN: llvm-extract -S --func=powi_loop --func=mix %t.ll -o %t.after.ll
; RUN: diff -I '^; ModuleID' %t.before.ll %t.after.ll

define float @powi_loop(float %x, i32 %n) {
entry:
  %p = alloca float
  store float 1.0, ptr %p
  %m = and i32 %n, 31
  %cmp0 = icmp sgt i32 %m, 0
  br i1 %cmp0, label %loop, label %exit

loop:
  %i = phi i32 [ 0, %entry ], [ %i.next, %loop ]
  %r = load float, ptr %p
  %r.next = fmul float %r, %x
  store float %r.next, ptr %p
  %i.next = add nuw nsw i32 %i, 1
  %done = icmp eq i32 %i.next, %m
  br i1 %done, label %exit, label %loop

exit:
  %res = load float, ptr %p
  ret float %res
}

define i32 @mix(i32 %a, i32 %b) {
  %s = add i32 %a, %b
  %m = call i32 @llvm.smax.i32(i32 %s, i32 0)
  ret i32 %m
}

declare i32 @llvm.smax.i32(i32, i32)

; mem2reg ran on the scratch copy only: the scalar function keeps its alloca.
; CHECK-LABEL: define float @powi_loop(float %x, i32 %n) {
; CHECK-NEXT:  entry:
; CHECK-NEXT:    %p = alloca float, align 4
; CHECK-NEXT:    store float 1.000000e+00, ptr %p, align 4
; CHECK-NEXT:    %m = and i32 %n, 31
; CHECK-NEXT:    %cmp0 = icmp sgt i32 %m, 0
; CHECK-NEXT:    br i1 %cmp0, label %loop, label %exit
; CHECK:       loop:
; CHECK-NEXT:    %i = phi i32 [ 0, %entry ], [ %i.next, %loop ]
; CHECK-NEXT:    %r = load float, ptr %p, align 4
; CHECK-NEXT:    %r.next = fmul float %r, %x
; CHECK-NEXT:    store float %r.next, ptr %p, align 4
; CHECK:         ret float %res
; CHECK-NEXT:  }

; CHECK-LABEL: define i32 @mix(i32 %a, i32 %b) {
; CHECK-NEXT:    %s = add i32 %a, %b
; CHECK-NEXT:    %m = call i32 @llvm.smax.i32(i32 %s, i32 0)
; CHECK-NEXT:    ret i32 %m
; CHECK-NEXT:  }

; The clone has no alloca, and there is no scratch copy left.
; CHECK-LABEL: define <8 x float> @_ZGV_LLVM_N8vu_powi_loop(
; CHECK-NOT:   alloca
; CHECK:       phi <8 x float>
; CHECK-NOT:   __batchify_scratch
