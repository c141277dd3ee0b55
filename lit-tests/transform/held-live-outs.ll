; A divergent loop with three exits whose exit phis all take the header phi
; `%i` (the counter; one exit adds 100 after the loop, one takes -1 on the
; uniform exit): instead of a blend of `%i` into each exit's phi on every
; exit edge, the header keeps one held vector, `select(header mask, %i,
; held)`, and after the loop every exit phi reads it. The loop body has a
; single `select` of the counter, not one per exit.
;
; RUN: %batchify %s -S -o %t.ll --variant _ZGV_LLVM_N8vv_three_exits --no-fallback --print-after emit 2> %t.emit.ll
; RUN: FileCheck %s --check-prefix=EMIT < %t.emit.ll
; RUN: llvm-extract --func=_ZGV_LLVM_N8vv_three_exits -S %t.ll -o %t.clone.ll
; RUN: FileCheck %s < %t.clone.ll

define i32 @three_exits(float %x, float %y) {
entry:
  br label %head
head:
  %i = phi i32 [ 0, %entry ], [ %i.next, %latch ]
  %a = phi float [ %x, %entry ], [ %a.next, %latch ]
  %b = phi float [ %y, %entry ], [ %b.next, %latch ]
  %big = fcmp ogt float %a, 8.0
  br i1 %big, label %exit.a, label %body
body:
  %a.next = fmul float %a, 1.5
  %small = fcmp olt float %b, -3.0
  br i1 %small, label %exit.b, label %latch
latch:
  %b.next = fsub float %b, 0.125
  %i.next = add nuw nsw i32 %i, 1
  %done = icmp eq i32 %i.next, 40
  br i1 %done, label %exit.c, label %head
exit.a:
  %ra = phi i32 [ %i, %head ]
  br label %ret
exit.b:
  %rb = phi i32 [ %i, %body ]
  %rb100 = add i32 %rb, 100
  br label %ret
exit.c:
  %rc = phi i32 [ -1, %latch ]
  br label %ret
ret:
  %r = phi i32 [ %ra, %exit.a ], [ %rb100, %exit.b ], [ %rc, %exit.c ]
  ret i32 %r
}

; The emitted clone holds the counter in one slot, blended at the header.
; EMIT-LABEL: define <8 x i32> @_ZGV_LLVM_N8vv_three_exits(
; EMIT:         [[HELD:%held[0-9]*]] = alloca <8 x i32>
; EMIT:       loop.after:
; EMIT-NEXT:    load <8 x i32>, ptr [[HELD]]
; EMIT:       loop.top:
; EMIT:         [[OLD:%.*]] = load <8 x i32>, ptr [[HELD]]
; EMIT-NEXT:    [[NEW:%.*]] = select <8 x i1> %mask.{{.*}}, <8 x i32> {{%[^,]+}}, <8 x i32> [[OLD]]
; EMIT-NEXT:    store <8 x i32> [[NEW]], ptr [[HELD]]

; After the clean-up pipeline: the counter's splat is blended once per trip,
; under the header's mask; the exits read the held vector after the loop.
; CHECK-LABEL: define <8 x i32> @_ZGV_LLVM_N8vv_three_exits(
; CHECK:       loop.top:
; CHECK:         [[S:%.*]] = shufflevector <8 x i32> {{.*}} zeroinitializer
; CHECK-NEXT:    select <8 x i1> %mask.head{{[0-9]*}}, <8 x i32> [[S]],
; CHECK-NOT:     <8 x i32> [[S]]
; CHECK:         br i1 {{%[^,]+}}, label %loop.after, label %loop.top
