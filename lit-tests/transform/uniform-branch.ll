; Branches on uniform values stay branches (no masking, no select): an
; if/else and a switch on a uniform `mode`, each arm doing varying work.
; At -O0 the CFG is exactly the scalar one; at -O2 the if/else keeps its
; branch because the `then` arm has a side effect (a store through a
; uniform pointer, which stays one scalar store; GVN knows `mode == 0` there).
;
; RUN: %batchify %s -S -O0 -o %t0.ll --variant _ZGV_LLVM_N4vu_uif --variant _ZGV_LLVM_N8vu_usw
; RUN: FileCheck %s < %t0.ll
; RUN: %batchify %s -S -o %t2.ll --variant _ZGV_LLVM_N4vuu_uif_store
; RUN: FileCheck %s --check-prefix=O2 < %t2.ll

define float @uif(float %x, i32 %mode) {
entry:
  %c = icmp eq i32 %mode, 0
  br i1 %c, label %then, label %else
then:
  %a = fadd float %x, 1.0
  br label %join
else:
  %b = fmul float %x, 2.0
  br label %join
join:
  %r = phi float [ %a, %then ], [ %b, %else ]
  ret float %r
}

define i32 @usw(i32 %x, i32 %sel) {
entry:
  switch i32 %sel, label %def [ i32 0, label %a
                                i32 1, label %b ]
a:
  %xa = add i32 %x, 10
  br label %j
b:
  %xb = mul i32 %x, 3
  br label %j
def:
  br label %j
j:
  %r = phi i32 [ %xa, %a ], [ %xb, %b ], [ %x, %def ]
  ret i32 %r
}

define float @uif_store(float %x, i32 %mode, ptr %log) {
entry:
  %c = icmp eq i32 %mode, 0
  br i1 %c, label %then, label %join
then:
  store i32 %mode, ptr %log
  %a = fadd float %x, 1.0
  br label %join
join:
  %r = phi float [ %a, %then ], [ %x, %entry ]
  ret float %r
}

; CHECK-LABEL: define <4 x float> @_ZGV_LLVM_N4vu_uif(
; CHECK-SAME:    <4 x float> [[X:%[^,]+]], i32 [[MODE:%[^)]+]])
; CHECK:         [[C:%.*]] = icmp eq i32 [[MODE]], 0
; CHECK-NEXT:    br i1 [[C]], label %then, label %else
; CHECK-NOT:     select
; CHECK-DAG:     [[A:%.*]] = fadd <4 x float> [[X]], splat (float 1.000000e+00)
; CHECK-DAG:     [[B:%.*]] = fmul <4 x float> [[X]], splat (float 2.000000e+00)
; CHECK:       {{^}}join:
; CHECK-NEXT:    [[R:%.*]] = phi <4 x float> [ [[A]], %then ], [ [[B]], %else ]
; CHECK-NEXT:    ret <4 x float> [[R]]
; CHECK-NEXT:  }

; CHECK-LABEL: define <8 x i32> @_ZGV_LLVM_N8vu_usw(
; CHECK-SAME:    <8 x i32> [[X:%[^,]+]], i32 [[SEL:%[^)]+]])
; CHECK-NEXT:  entry:
; CHECK-NEXT:    switch i32 [[SEL]], label %def [
; CHECK-NEXT:      i32 0, label %a
; CHECK-NEXT:      i32 1, label %b
; CHECK-NEXT:    ]
; CHECK-NOT:     select
; CHECK-DAG:     [[XA:%.*]] = add <8 x i32> [[X]], splat (i32 10)
; CHECK-DAG:     [[XB:%.*]] = mul <8 x i32> [[X]], splat (i32 3)
; CHECK:       {{^}}j:
; CHECK-NEXT:    [[R:%.*]] = phi <8 x i32> [ [[XA]], %a ], [ [[XB]], %b ], [ [[X]], %def ]
; CHECK-NEXT:    ret <8 x i32> [[R]]
; CHECK-NEXT:  }

; O2-LABEL: define <4 x float> @_ZGV_LLVM_N4vuu_uif_store(
; O2-SAME:    <4 x float> [[X:%[^,]+]], i32 [[MODE:%[^,]+]], ptr [[LOG:%[^)]+]])
; O2:         [[C:%.*]] = icmp eq i32 [[MODE]], 0
; O2-NEXT:    br i1 [[C]], label %then, label %join
; O2:       {{^}}then:
; O2-NEXT:    store i32 0, ptr [[LOG]]
; O2-NEXT:    [[A:%.*]] = fadd <4 x float> [[X]], splat (float 1.000000e+00)
; O2-NEXT:    br label %join
; O2:       {{^}}join:
; O2-NEXT:    [[R:%.*]] = phi <4 x float> [ [[A]], %then ], [ [[X]], %entry ]
; O2-NEXT:    ret <4 x float> [[R]]
