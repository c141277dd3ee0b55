; The --report line of each clone, in request order, for divergent code:
;
;   batchify: <scalar> -> <clone>: <N> lanes, <V> vector instruction(s),
;     <U> uniform, <P> per-lane, <D> divergent loop(s), <L> linearized
;     level(s), <R> uniform branch region(s) kept
;   batchify:   per-lane: <what>                  (one line per kind)
;   batchify: <scalar> -> <clone>: <N> lanes, per-lane fallback: <reason>
;
; `sel` has one divergent if/else (1 linearized level, no loop); `loop` a
; divergent loop with a divergent if/else in it; `nested` a loop inside a
; divergent loop whose bound is the outer counter (the same in every lane
; still in the outer loop, so the inner loop is uniform); `ext` a divergent branch around a call that runs per
; lane; `ubl` a uniform branch kept inside a divergent loop; `plain` no
; control flow at all; `irr` the per-lane fallback, which also warns.
;
; RUN: %batchify %s -S -o %t.ll --report --variant _ZGV_LLVM_N4v_sel --variant _ZGV_LLVM_N8v_loop \
; RUN:   --variant _ZGV_LLVM_N4vv_nested --variant _ZGV_LLVM_N4v_ext --variant _ZGV_LLVM_N8vu_ubl \
; RUN:   --variant _ZGV_LLVM_N4v_plain --variant _ZGV_LLVM_N4vv_irr 2> %t.report
; RUN: FileCheck %s --match-full-lines < %t.report

; CHECK:      batchify: warning: `irr` -> `_ZGV_LLVM_N4vv_irr` is a per-lane loop over the scalar function: inline assembly `%v = call i32 asm "", "=r,0"(i32 %x)` is not supported
; CHECK-NEXT: batchify: sel -> _ZGV_LLVM_N4v_sel: 4 lanes, {{[0-9]+}} vector instruction(s), 0 uniform, 0 per-lane, 0 divergent loop(s), 1 linearized level(s), 0 uniform branch region(s) kept
; CHECK-NEXT: batchify: loop -> _ZGV_LLVM_N8v_loop: 8 lanes, {{[0-9]+}} vector instruction(s), 2 uniform, 0 per-lane, 1 divergent loop(s), {{[1-9]}} linearized level(s), 0 uniform branch region(s) kept
; CHECK-NEXT: batchify: nested -> _ZGV_LLVM_N4vv_nested: 4 lanes, {{[0-9]+}} vector instruction(s), 3 uniform, 0 per-lane, 1 divergent loop(s), {{[1-9]}} linearized level(s), 0 uniform branch region(s) kept
; CHECK-NEXT: batchify: ext -> _ZGV_LLVM_N4v_ext: 4 lanes, {{[0-9]+}} vector instruction(s), 0 uniform, 1 per-lane, 0 divergent loop(s), 1 linearized level(s), 0 uniform branch region(s) kept
; CHECK-NEXT: batchify:   per-lane: call to `sink`
; CHECK-NEXT: batchify: ubl -> _ZGV_LLVM_N8vu_ubl: 8 lanes, {{[0-9]+}} vector instruction(s), {{[1-9][0-9]*}} uniform, 0 per-lane, 1 divergent loop(s), 1 linearized level(s), 1 uniform branch region(s) kept
; CHECK-NEXT: batchify: plain -> _ZGV_LLVM_N4v_plain: 4 lanes, 1 vector instruction(s), 0 uniform, 0 per-lane, 0 divergent loop(s), 0 linearized level(s), 0 uniform branch region(s) kept
; CHECK-NEXT: batchify: irr -> _ZGV_LLVM_N4vv_irr: 4 lanes, per-lane fallback: inline assembly `%v = call i32 asm "", "=r,0"(i32 %x)` is not supported
; CHECK-NOT:  {{.}}

define float @sel(float %x) {
entry:
  %c = fcmp olt float %x, 0.0
  br i1 %c, label %neg, label %join
neg:
  %n = fneg float %x
  br label %join
join:
  %r = phi float [ %n, %neg ], [ %x, %entry ]
  ret float %r
}

define i32 @loop(i32 %x0) {
entry:
  br label %head
head:
  %x = phi i32 [ %x0, %entry ], [ %x.next, %latch ]
  %steps = phi i32 [ 0, %entry ], [ %steps.next, %latch ]
  %ne1 = icmp ne i32 %x, 1
  %lt = icmp slt i32 %steps, 1000
  %go = and i1 %ne1, %lt
  br i1 %go, label %body, label %exit
body:
  %odd = and i32 %x, 1
  %isodd = icmp ne i32 %odd, 0
  br i1 %isodd, label %odd.bb, label %even.bb
odd.bb:
  %t = mul i32 %x, 3
  %t1 = add i32 %t, 1
  br label %latch
even.bb:
  %h = sdiv i32 %x, 2
  br label %latch
latch:
  %x.next = phi i32 [ %t1, %odd.bb ], [ %h, %even.bb ]
  %steps.next = add nsw i32 %steps, 1
  br label %head
exit:
  ret i32 %steps
}

; for (i = 0; i < n; i++) for (j = 0; j < i; j++) s += j;  (n varying)
define i32 @nested(i32 %n, i32 %k) {
entry:
  br label %outer
outer:
  %i = phi i32 [ 0, %entry ], [ %i.next, %outer.latch ]
  %s = phi i32 [ 0, %entry ], [ %s.out, %outer.latch ]
  %oc = icmp slt i32 %i, %n
  br i1 %oc, label %inner, label %exit
inner:
  %j = phi i32 [ 0, %outer ], [ %j.next, %inner ]
  %s2 = phi i32 [ %s, %outer ], [ %s2.next, %inner ]
  %s2.next = add i32 %s2, %k
  %j.next = add i32 %j, 1
  %ic = icmp slt i32 %j.next, %i
  br i1 %ic, label %inner, label %outer.latch
outer.latch:
  %s.out = phi i32 [ %s2.next, %inner ]
  %i.next = add i32 %i, 1
  br label %outer
exit:
  ret i32 %s
}

declare void @sink(float)

define float @ext(float %x) {
entry:
  %c = fcmp ogt float %x, 1.0
  br i1 %c, label %call, label %join
call:
  call void @sink(float %x)
  br label %join
join:
  ret float %x
}

define i32 @ubl(i32 %x0, i32 %mode) {
entry:
  %bit = and i32 %mode, 1
  %odd = icmp ne i32 %bit, 0
  br label %head
head:
  %x = phi i32 [ %x0, %entry ], [ %x.next, %latch ]
  %steps = phi i32 [ 0, %entry ], [ %steps.next, %latch ]
  %gt1 = icmp sgt i32 %x, 1
  %lt = icmp slt i32 %steps, 64
  %go = and i1 %gt1, %lt
  br i1 %go, label %body, label %exit
body:
  br i1 %odd, label %then, label %else
then:
  %a0 = mul i32 %x, 3
  %a1 = lshr i32 %a0, 1
  %a2 = xor i32 %a1, %steps
  %a3 = and i32 %a2, 1023
  br label %latch
else:
  %b0 = sdiv i32 %x, %mode
  br label %latch
latch:
  %x.next = phi i32 [ %a3, %then ], [ %b0, %else ]
  %steps.next = add nsw i32 %steps, 1
  br label %head
exit:
  ret i32 %steps
}

define float @plain(float %x) {
  %r = fmul float %x, %x
  ret float %r
}

define i32 @irr(i32 %x, i32 %n) {
entry:
  %c = icmp sgt i32 %x, 0
  br i1 %c, label %a, label %exit
a:
  %v = call i32 asm "", "=r,0"(i32 %x)
  %s = add i32 %v, %n
  br label %exit
exit:
  %r = phi i32 [ %s, %a ], [ %n, %entry ]
  ret i32 %r
}
