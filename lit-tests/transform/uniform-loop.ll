; A loop over a uniform trip count stays a scalar loop: the counter is a
; scalar `phi i32` compared with a scalar `icmp` and a `br i1`, while the
; accumulator that depends on the varying `x` becomes a `phi <4 x float>`.
; Checked at -O0 (as built) and at the default -O2.
;
; RUN: %batchify %s -S -O0 -o %t0.ll --variant _ZGV_LLVM_N4vu_powi_loop
; RUN: FileCheck %s --check-prefixes=CHECK,O0 < %t0.ll
; RUN: %batchify %s -S -o %t2.ll --variant _ZGV_LLVM_N4vu_powi_loop
; RUN: FileCheck %s --check-prefixes=CHECK,O2 < %t2.ll

define float @powi_loop(float %x, i32 %n) {
entry:
  %m = and i32 %n, 31
  %cmp0 = icmp sgt i32 %m, 0
  br i1 %cmp0, label %loop, label %exit

loop:
  %i = phi i32 [ 0, %entry ], [ %i.next, %loop ]
  %r = phi float [ 1.0, %entry ], [ %r.next, %loop ]
  %r.next = fmul float %r, %x
  %i.next = add nuw nsw i32 %i, 1
  %done = icmp eq i32 %i.next, %m
  br i1 %done, label %exit, label %loop

exit:
  %res = phi float [ 1.0, %entry ], [ %r.next, %loop ]
  ret float %res
}

; CHECK-LABEL: define <4 x float> @_ZGV_LLVM_N4vu_powi_loop(
; CHECK-SAME:    <4 x float> [[X:%[^,]+]], i32 [[N:%[^)]+]])
; CHECK:       {{^}}entry:
; CHECK-NEXT:    [[M:%.*]] = and i32 [[N]], 31
; O0-NEXT:       [[C0:%.*]] = icmp sgt i32 [[M]], 0
; O0-NEXT:       br i1 [[C0]], label %loop.preheader, label %exit
; O2-NEXT:       [[C0:%.*]] = icmp eq i32 [[M]], 0
; O2-NEXT:       br i1 [[C0]], label %exit, label %loop
; CHECK:       {{^}}loop:
; CHECK-DAG:     [[I:%.*]] = phi i32 [ {{.*}} ]
; CHECK-DAG:     [[R:%.*]] = phi <4 x float> [ {{.*}} ]
; CHECK:         [[RN:%.*]] = fmul <4 x float> [[R]], [[X]]
; CHECK-NEXT:    [[IN:%.*]] = add nuw nsw i32 [[I]], 1
; CHECK-NEXT:    [[DONE:%.*]] = icmp eq i32 [[IN]], [[M]]
; CHECK-NEXT:    br i1 [[DONE]], label %{{exit|exit.loopexit}}, label %loop
; CHECK:       {{^}}exit:
; CHECK-NEXT:    [[RES:%.*]] = phi <4 x float> {{.*}}[ splat (float 1.000000e+00), %entry ]
; CHECK-NEXT:    ret <4 x float> [[RES]]
; CHECK-NEXT:  }
; The counter and trip count are never widened.
; CHECK-NOT:   <4 x i32>
; CHECK-NOT:   <4 x i1>
