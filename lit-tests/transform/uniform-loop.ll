; A loop over a uniform trip count stays a scalar loop: the counter is a
; scalar `phi i32` compared with a scalar `icmp` and a `br i1`, while the
; accumulator that depends on the varying `x` becomes a `phi <4 x float>`.
; No mask is built (no `<4 x i1>`), and --report counts no divergent loop.
; The exact shape is checked at the default -O2 (the loop block and the exit
; block in separate runs, so their order does not matter); at -O0, where the
; clone still has an extra block per CFG edge, only that the counter, its
; compare and the back edge stay scalar.
;
; RUN: %batchify %s -S -O0 -o %t0.ll --variant _ZGV_LLVM_N4vu_powi_loop
; RUN: FileCheck %s --check-prefixes=CHECK,O0 --implicit-check-not='<4 x i32>' --implicit-check-not='<4 x i1>' < %t0.ll
; RUN: %batchify %s -S -o %t2.ll --variant _ZGV_LLVM_N4vu_powi_loop --report 2> %t2.report
; RUN: FileCheck %s --check-prefixes=CHECK,O2 --implicit-check-not='<4 x i32>' --implicit-check-not='<4 x i1>' < %t2.ll
; RUN: FileCheck %s --check-prefix=O2EXIT < %t2.ll
; RUN: FileCheck %s --check-prefix=REPORT < %t2.report

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
; CHECK:         [[M:%.*]] = and i32 [[N]], 31
; O0-NEXT:       [[C0:%.*]] = icmp sgt i32 [[M]], 0
; O0-NEXT:       br i1 [[C0]], label
; O0:          {{^}}loop:
; O0-DAG:        [[I:%.*]] = phi i32 [ 0, {{.*}} ]
; O0-DAG:        [[R:%.*]] = phi <4 x float> [ splat (float 1.000000e+00), {{.*}} ]
; O0:            {{%.*}} = fmul <4 x float> [[R]], [[X]]
; O0-NEXT:       [[IN:%.*]] = add nuw nsw i32 [[I]], 1
; O0-NEXT:       [[DONE:%.*]] = icmp eq i32 [[IN]], [[M]]
; O0-NEXT:       br i1 [[DONE]], label
; O2-NEXT:       [[C0:%.*]] = icmp eq i32 [[M]], 0
; O2-NEXT:       br i1 [[C0]], label %[[EXIT:[^,]+]], label %[[LOOP:[^ ]+]]
; O2:          {{^}}[[LOOP]]:
; O2-DAG:        [[I:%.*]] = phi i32 [ 0, %entry ], [ [[IN:%.*]], %[[LOOP]] ]
; O2-DAG:        [[R:%.*]] = phi <4 x float> [ splat (float 1.000000e+00), %entry ], [ [[RN:%.*]], %[[LOOP]] ]
; O2-NEXT:       [[RN]] = fmul <4 x float> [[R]], [[X]]
; O2-NEXT:       [[IN]] = add nuw nsw i32 [[I]], 1
; O2-NEXT:       [[DONE:%.*]] = icmp eq i32 [[IN]], [[M]]
; O2-NEXT:       br i1 [[DONE]], label %[[EXIT]], label %[[LOOP]]
; The counter and trip count are never widened, and no mask is built
; (--implicit-check-not of `<4 x i32>` and `<4 x i1>`).
; CHECK:       {{^}}}

; The exit block returns the accumulator, or 1.0 when the loop never ran.
; O2EXIT-LABEL: define <4 x float> @_ZGV_LLVM_N4vu_powi_loop(
; O2EXIT:         br i1 {{%.*}}, label %[[EXIT:[^,]+]], label %[[LOOP:[^ ]+]]
; O2EXIT:       {{^}}[[EXIT]]:
; O2EXIT-NEXT:    [[RES:%.*]] = phi <4 x float> {{.*}}[ splat (float 1.000000e+00), %entry ]
; O2EXIT-NEXT:    ret <4 x float> [[RES]]

; REPORT: batchify: powi_loop -> _ZGV_LLVM_N4vu_powi_loop: 4 lanes, {{.*}}, 0 divergent loop(s), 0 linearized level(s),
