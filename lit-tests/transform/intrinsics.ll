; Lane-wise intrinsics get their vector forms; immediate arguments (the
; `i1` of llvm.ctlz) and a uniform `llvm.powi` exponent stay scalar. A powi
; whose exponent is varying has no vector form and runs once per lane.
;
; RUN: %batchify %s -S -o %t.ll -n 4 --function fab --function clz --function powv \
; RUN:   --variant _ZGV_LLVM_N8vv_imax --variant _ZGV_LLVM_N4vu_powu
; RUN: FileCheck %s < %t.ll
; RUN: FileCheck %s --check-prefix=DECL < %t.ll

define float @fab(float %x) {
  %a = call float @llvm.fabs.f32(float %x)
  ret float %a
}

define i32 @clz(i32 %x) {
  %c = call i32 @llvm.ctlz.i32(i32 %x, i1 false)
  ret i32 %c
}

define i32 @imax(i32 %a, i32 %b) {
  %m = call i32 @llvm.smax.i32(i32 %a, i32 %b)
  %p = call i32 @llvm.ctpop.i32(i32 %m)
  %f = call i32 @llvm.fshl.i32(i32 %m, i32 %b, i32 7)
  %s = add i32 %p, %f
  ret i32 %s
}

define float @powu(float %x, i32 %n) {
  %r = call float @llvm.powi.f32.i32(float %x, i32 %n)
  ret float %r
}

define float @powv(float %x, i32 %n) {
  %r = call float @llvm.powi.f32.i32(float %x, i32 %n)
  ret float %r
}

declare float @llvm.fabs.f32(float)
declare i32 @llvm.ctlz.i32(i32, i1)
declare i32 @llvm.smax.i32(i32, i32)
declare i32 @llvm.ctpop.i32(i32)
declare i32 @llvm.fshl.i32(i32, i32, i32)
declare float @llvm.powi.f32.i32(float, i32)

; CHECK-LABEL: define <4 x float> @_ZGV_LLVM_N4v_fab(
; CHECK-SAME:    <4 x float> [[X:%[^)]+]])
; CHECK-NEXT:  {{^}}entry:
; CHECK-NEXT:    [[A:%.*]] = call <4 x float> @llvm.fabs.v4f32(<4 x float> [[X]])
; CHECK-NEXT:    ret <4 x float> [[A]]
; CHECK-NEXT:  }

; CHECK-LABEL: define <4 x i32> @_ZGV_LLVM_N4v_clz(
; CHECK-SAME:    <4 x i32> [[X:%[^)]+]])
; CHECK-NEXT:  {{^}}entry:
; CHECK-NEXT:    [[C:%.*]] = call {{.*}}<4 x i32> @llvm.ctlz.v4i32(<4 x i32> [[X]], i1 false)
; CHECK-NEXT:    ret <4 x i32> [[C]]
; CHECK-NEXT:  }

; CHECK-LABEL: define <4 x float> @_ZGV_LLVM_N4vv_powv(
; CHECK-SAME:    <4 x float> [[X:%[^,]+]], <4 x i32> [[N:%[^)]+]])
; CHECK-NOT:     @llvm.powi.v4f32
; CHECK-COUNT-4: call float @llvm.powi.f32.i32(float %{{.*}}, i32 %{{.*}})
; CHECK-NOT:     @llvm.powi
; CHECK:         ret <4 x float>

; CHECK-LABEL: define <8 x i32> @_ZGV_LLVM_N8vv_imax(
; CHECK-SAME:    <8 x i32> [[A:%[^,]+]], <8 x i32> [[B:%[^)]+]])
; CHECK-NEXT:  {{^}}entry:
; CHECK-NEXT:    [[M:%.*]] = call <8 x i32> @llvm.smax.v8i32(<8 x i32> [[A]], <8 x i32> [[B]])
; CHECK-NEXT:    [[P:%.*]] = call {{.*}}<8 x i32> @llvm.ctpop.v8i32(<8 x i32> [[M]])
; CHECK-NEXT:    [[F:%.*]] = call <8 x i32> @llvm.fshl.v8i32(<8 x i32> [[M]], <8 x i32> [[B]], <8 x i32> splat (i32 7))
; CHECK-NEXT:    [[S:%.*]] = add {{.*}}<8 x i32> [[P]], [[F]]
; CHECK-NEXT:    ret <8 x i32> [[S]]
; CHECK-NEXT:  }

; CHECK-LABEL: define <4 x float> @_ZGV_LLVM_N4vu_powu(
; CHECK-SAME:    <4 x float> [[X:%[^,]+]], i32 [[N:%[^)]+]])
; CHECK-NEXT:  {{^}}entry:
; CHECK-NEXT:    [[R:%.*]] = call <4 x float> @llvm.powi.v4f32.i32(<4 x float> [[X]], i32 [[N]])
; CHECK-NEXT:    ret <4 x float> [[R]]
; CHECK-NEXT:  }

; The vector declarations keep the immarg attribute of llvm.ctlz.
; DECL-DAG: declare <4 x float> @llvm.fabs.v4f32(<4 x float>)
; DECL-DAG: declare <4 x i32> @llvm.ctlz.v4i32(<4 x i32>, i1 immarg)
; DECL-DAG: declare <8 x i32> @llvm.smax.v8i32(<8 x i32>, <8 x i32>)
; DECL-DAG: declare <4 x float> @llvm.powi.v4f32.i32(<4 x float>, i32)
