; A branch on a uniform value inside a divergent loop stays a real branch.
; The loop `while (x > 1 && steps < 64)` runs a different number of times per
; lane (varying x), so it is a divergent loop with an any-lane exit test; the
; if/else inside it tests `mode & 1` with `mode` uniform
; (`_ZGV_LLVM_N8vu_`), so all active lanes take the same arm and the clone
; keeps a `br i1` on the scalar `i1` inside the loop instead of running both
; arms under masks. The arms do different work (a mul/shift/xor chain and a
; division), so simplifycfg cannot fold the diamond into a select at -O2.
; Each arm's work is vector code and merges into the lanes that are still
; active. --report counts the kept region.
;
; RUN: %batchify %s -S -o %t.ll --variant _ZGV_LLVM_N8vu_ubl --no-fallback --report 2> %t.report
; RUN: FileCheck %s < %t.ll
; RUN: FileCheck %s --check-prefix=REPORT < %t.report

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

; The uniform condition is computed once, as a scalar, before the loop,
; from `mode` frozen (the branch also runs in a trip where no lane may be
; active, so it must not branch on poison).
; CHECK-LABEL: define <8 x i32> @_ZGV_LLVM_N8vu_ubl(
; CHECK-SAME:    <8 x i32> [[X0:%[^,]+]], i32 [[MODE:%[^)]+]])
; CHECK:         [[MODEF:%.*]] = freeze i32 [[MODE]]
; CHECK:         [[BIT:%.*]] = and i32 [[MODEF]], 1
; CHECK-NEXT:    [[UC:%.*]] = icmp {{eq|ne}} i32 [[BIT]], 0
; CHECK:         br label %[[TOP:[^ ]+]]
; The divergent loop's header: a mask phi and vector phis.
; CHECK:       {{^}}[[TOP]]:
; CHECK-NEXT:    [[ACTIVE:%.*]] = phi <8 x i1> [ splat (i1 true), %entry ], [ [[GO_ON:%[^,]+]], %[[LATCH:[^ ]+]] ]
; CHECK:         [[GO_ON]] = select <8 x i1> [[ACTIVE]], <8 x i1> {{%.*}}, <8 x i1> zeroinitializer
; Inside it, the uniform if/else is a branch on the scalar i1.
; CHECK:         br i1 [[UC]], label %[[ARM1:[^,]+]], label %[[ARM2:[^ ]+]]
; The join of the two arms is the latch, whose back edge is the any-lane test.
; CHECK:       {{^}}[[LATCH]]:
; CHECK-NEXT:    [[XN:%.*]] = phi <8 x i32> [ {{%[^,]+}}, %{{[^ ]+}} ], [ {{%[^,]+}}, %{{[^ ]+}} ]
; CHECK:         [[BITS:%.*]] = bitcast <8 x i1> [[GO_ON]] to i8
; CHECK-NEXT:    [[NONE:%.*]] = icmp eq i8 [[BITS]], 0
; CHECK-NEXT:    br i1 [[NONE]], label %{{[^,]+}}, label %[[TOP]]
; CHECK:       {{^}}}

; Each arm branches back to the latch and holds its own vector work only
; (checked in two runs, as the arms may come in either order). InstCombine
; turns the test into `(mode & 1) == 0`, so the first target is the `else`
; arm (the division, through exact `double` division with divisor 1 in the inactive lanes) and the
; second the `then` arm.
; RUN: FileCheck %s --check-prefix=ODD < %t.ll
; RUN: FileCheck %s --check-prefix=EVEN < %t.ll
; ODD-LABEL: define <8 x i32> @_ZGV_LLVM_N8vu_ubl(
; ODD:         [[UC:%.*]] = icmp eq i32 {{%.*}}, 0
; ODD:         br i1 [[UC]], label %{{[^,]+}}, label %[[ARM:[^ ]+]]
; ODD:       {{^}}[[ARM]]:
; ODD-NOT:     sdiv
; ODD:         mul <8 x i32> {{%.*}}, splat (i32 3)
; ODD-NOT:     sdiv
; ODD:         br label %[[LATCH:[^ ]+]]
; ODD-NOT:   {{^}}[[LATCH]]:
; ODD-NOT:     sdiv
; ODD:       {{^}}}
; EVEN-LABEL: define <8 x i32> @_ZGV_LLVM_N8vu_ubl(
; EVEN-SAME:    <8 x i32> [[X0:%[^,]+]], i32 [[MODE:%[^)]+]])
; EVEN:         [[MODES:%.*]] = shufflevector <8 x i32> {{%.*}}, <8 x i32> poison, <8 x i32> zeroinitializer
; EVEN:         [[UC:%.*]] = icmp eq i32 {{%.*}}, 0
; EVEN:         [[ACTIVE:%.*]] = phi <8 x i1>
; EVEN:         [[GO_ON:%.*]] = select <8 x i1> [[ACTIVE]], <8 x i1> {{%.*}}, <8 x i1> zeroinitializer
; EVEN:         br i1 [[UC]], label %[[ARM:[^,]+]], label %{{[^ ]+}}
; EVEN:       {{^}}[[ARM]]:
; EVEN-NOT:     mul
; EVEN:         [[DIVISOR:%.*]] = select <8 x i1> [[GO_ON]], <8 x double> {{%.*}}, <8 x double> splat (double 1.000000e+00)
; EVEN-NEXT:    fdiv <8 x double> {{%.*}}, [[DIVISOR]]
; EVEN-NOT:     mul
; EVEN:         br label %{{[^ ]+}}
; EVEN:       {{^}}}

; REPORT: batchify: ubl -> _ZGV_LLVM_N8vu_ubl: 8 lanes, {{.*}}, 0 per-lane, 1 divergent loop(s), 1 linearized level(s), 1 uniform branch region(s) kept
