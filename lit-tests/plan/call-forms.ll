; --print-plan: the forms of a varying call. A callee that declares a
; variant of the call's shape calls that variant; a function of the module
; calls its own clone (an internal helper, masked where the mask may be
; partial); a callee that writes memory through a pointer that is the same
; in every lane runs once per lane, with the reason; an intrinsic with a
; lane-wise form is one vector intrinsic; an unknown external function
; runs once per lane.
;
; RUN: %batchify %s -o /dev/null --print-plan --variant _ZGVdN8v_calls --variant _ZGVdN8v_in_branch 2> %t
; RUN: FileCheck %s < %t

@acc = internal global i32 0

define internal i32 @square(i32 %x) {
  %r = mul i32 %x, %x
  ret i32 %r
}

define internal void @bump(ptr %p, i32 %x) {
  %old = load i32, ptr %p, align 4
  %new = add i32 %old, %x
  store i32 %new, ptr %p, align 4
  ret void
}

declare i32 @kern(i32) #0
declare i32 @opaque(i32)
declare i32 @llvm.smax.i32(i32, i32)

define i32 @calls(i32 %x) {
  %a = call i32 @kern(i32 %x)
  %b = call i32 @square(i32 %a)
  call void @bump(ptr @acc, i32 %b)
  %c = call i32 @llvm.smax.i32(i32 %b, i32 0)
  %d = call i32 @opaque(i32 %c)
  ret i32 %d
}

define i32 @in_branch(i32 %x) {
entry:
  %pos = icmp sgt i32 %x, 0
  br i1 %pos, label %then, label %done
then:
  %e = call i32 @square(i32 %x)
  %f = call i32 @kern(i32 %e)
  br label %done
done:
  %r = phi i32 [ %f, %then ], [ %x, %entry ]
  ret i32 %r
}

attributes #0 = { "_ZGVdN8v_kern" "_ZGVdM8v_kern" }

; CHECK-LABEL: plan of `calls` for `_ZGVdN8v_calls`
; CHECK-NEXT:  #0: mask full
; CHECK-NEXT:    call declared variant `_ZGVdN8v_kern`: %a = call i32 @kern(i32 %x)
; CHECK-NEXT:    call callee clone `__batchify._ZGVdN8v_square`: %b = call i32 @square(i32 %a)
; CHECK-NEXT:    per lane (`bump` writes memory and gets a pointer that is the same in every lane{{.*}}): call void @bump(ptr @acc, i32 %b)
; CHECK-NEXT:    widen intrinsic: %c = call i32 @llvm.smax.i32(i32 %b, i32 0)
; CHECK-NEXT:    per lane: %d = call i32 @opaque(i32 %c)

; Under a partial mask the masked forms are called.
; CHECK-LABEL: plan of `in_branch` for `_ZGVdN8v_in_branch`
; CHECK:       then: mask partial
; CHECK-NEXT:    call callee clone `__batchify._ZGVdM8v_square`: %e = call i32 @square(i32 %x)
; CHECK-NEXT:    call declared variant `_ZGVdM8v_kern`: %f = call i32 @kern(i32 %e)
