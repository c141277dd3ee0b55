; Branches on uniform values stay branches (no masking, no `<N x i1>`): an
; if/else and a switch on a uniform `mode`, each arm doing varying work.
; At -O0 the if/else is a `br i1` on the scalar compare and the switch a
; scalar `switch`, with the vector work in the arms and a vector phi at the
; join (the -O0 clone has an extra block on each CFG edge, so block names are
; not checked). At -O2 the if/else without side effects becomes a `select`
; on the scalar `i1`, the switch stays a switch, and an if whose `then` arm
; has a side effect (a store through a uniform pointer, which stays one
; scalar store; GVN knows `mode == 0` there) keeps its branch.
;
; RUN: %batchify %s -S -O0 -o %t0.ll --variant _ZGV_LLVM_N4vu_uif --variant _ZGV_LLVM_N8vu_usw
; RUN: FileCheck %s --implicit-check-not=select --implicit-check-not='x i1>' < %t0.ll
; RUN: %batchify %s -S -o %t2.ll --variant _ZGV_LLVM_N4vu_uif --variant _ZGV_LLVM_N8vu_usw \
; RUN:   --variant _ZGV_LLVM_N4vuu_uif_store
; RUN: FileCheck %s --check-prefix=O2 --implicit-check-not='x i1>' < %t2.ll
; RUN: FileCheck %s --check-prefix=STJ < %t2.ll

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
; CHECK-NEXT:    br i1 [[C]], label
; CHECK-DAG:     [[A:%.*]] = fadd <4 x float> [[X]], splat (float 1.000000e+00)
; CHECK-DAG:     [[B:%.*]] = fmul <4 x float> [[X]], splat (float 2.000000e+00)
; CHECK:         [[R:%.*]] = phi <4 x float> {{\[ %a, %[^ ]+ \], \[ %b, %[^ ]+ \]|\[ %b, %[^ ]+ \], \[ %a, %[^ ]+ \]}}
; CHECK-NEXT:    ret <4 x float> [[R]]

; CHECK-LABEL: define <8 x i32> @_ZGV_LLVM_N8vu_usw(
; CHECK-SAME:    <8 x i32> [[X:%[^,]+]], i32 [[SEL:%[^)]+]])
; CHECK:         switch i32 [[SEL]], label %{{[^ ]+}} [
; CHECK-NEXT:      i32 0, label
; CHECK-NEXT:      i32 1, label
; CHECK-NEXT:    ]
; CHECK-DAG:     [[XA:%.*]] = add <8 x i32> [[X]], splat (i32 10)
; CHECK-DAG:     [[XB:%.*]] = mul <8 x i32> [[X]], splat (i32 3)
; CHECK:         [[R:%.*]] = phi <8 x i32> [ {{.*}} ], [ {{.*}} ], [ {{.*}} ]
; CHECK-NEXT:    ret <8 x i32> [[R]]

; O2-LABEL: define <4 x float> @_ZGV_LLVM_N4vu_uif(
; O2-SAME:    <4 x float> [[X:%[^,]+]], i32 [[MODE:%[^)]+]])
; O2-NEXT:  {{^}}entry:
; O2-NEXT:    [[C:%.*]] = icmp eq i32 [[MODE]], 0
; O2-DAG:     [[A:%.*]] = fadd <4 x float> [[X]], splat (float 1.000000e+00)
; O2-DAG:     [[B:%.*]] = fmul <4 x float> [[X]], splat (float 2.000000e+00)
; O2-NEXT:    [[R:%.*]] = select i1 [[C]], <4 x float> [[A]], <4 x float> [[B]]
; O2-NEXT:    ret <4 x float> [[R]]
; O2-NEXT:  }

; O2-LABEL: define <8 x i32> @_ZGV_LLVM_N8vu_usw(
; O2-SAME:    <8 x i32> [[X:%[^,]+]], i32 [[SEL:%[^)]+]])
; O2-NEXT:  {{^}}entry:
; O2-NEXT:    switch i32 [[SEL]], label %{{[^ ]+}} [
; O2-NOT:     select
; O2-DAG:     [[XA:%.*]] = add <8 x i32> [[X]], splat (i32 10)
; O2-DAG:     [[XB:%.*]] = mul <8 x i32> [[X]], splat (i32 3)
; O2-DAG:     phi <8 x i32> {{.*}}[ [[X]], %entry ]
; O2:         {{^}}}

; O2-LABEL: define <4 x float> @_ZGV_LLVM_N4vuu_uif_store(
; O2-SAME:    <4 x float> [[X:%[^,]+]], i32 [[MODE:%[^,]+]], ptr [[LOG:%[^)]+]])
; O2:         [[C:%.*]] = icmp eq i32 [[MODE]], 0
; O2-NEXT:    br i1 [[C]], label %[[THEN:[^,]+]], label %[[JN:[^ ]+]]
; O2-NOT:     select
; O2:       {{^}}[[THEN]]:
; O2-NEXT:    store i32 0, ptr [[LOG]]
; O2-NEXT:    [[A:%.*]] = fadd <4 x float> [[X]], splat (float 1.000000e+00)
; O2-NEXT:    br label %[[JN]]
; O2:       {{^}}}
; O2-NOT:   define

; The join merges the `then` value with `x` from the entry block (checked in
; its own run: the join block may come before or after `then`).
; STJ-LABEL: define <4 x float> @_ZGV_LLVM_N4vuu_uif_store(
; STJ-SAME:    <4 x float> [[X:%[^,]+]], i32
; STJ:         br i1 {{%.*}}, label %[[THEN:[^,]+]], label %[[JN:[^ ]+]]
; STJ:       {{^}}[[JN]]:
; STJ-NEXT:    [[R:%.*]] = phi <4 x float> [ {{%[^,]+}}, %[[THEN]] ], [ [[X]], %entry ]
; STJ-NEXT:    ret <4 x float> [[R]]
