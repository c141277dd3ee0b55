; Uniform values stay scalar: in `_ZGVdN8uuv_smoothstep` the edges e0 and e1
; are uniform, so `e1 - e0` is one scalar `fsub float`, splatted once for the
; division; everything that depends on the varying `x` is an <8 x float> op.
;
; RUN: %batchify %s -S --variant _ZGVdN8uuv_smoothstep -o %t.ll
; RUN: FileCheck %s < %t.ll
; RUN: %batchify %s -S -o %t2.ll --variant _ZGVdN8uuv_smoothstep --report 2>&1 \
; RUN:   | FileCheck %s --check-prefix=REPORT

define float @smoothstep(float %e0, float %e1, float %x) {
entry:
  %d = fsub float %e1, %e0
  %n = fsub float %x, %e0
  %t = fdiv float %n, %d
  %c0 = call float @llvm.maxnum.f32(float %t, float 0.0)
  %c = call float @llvm.minnum.f32(float %c0, float 1.0)
  %a = fmul float %c, 2.0
  %b = fsub float 3.0, %a
  %cc = fmul float %c, %c
  %r = fmul float %cc, %b
  ret float %r
}

declare float @llvm.maxnum.f32(float, float)
declare float @llvm.minnum.f32(float, float)

; The uniform parameters stay scalar, the varying one is a vector.
; CHECK-LABEL: define <8 x float> @_ZGVdN8uuv_smoothstep(
; CHECK-SAME:    float [[E0:%[^,]+]], float [[E1:%[^,]+]], <8 x float> [[X:%[^)]+]])
; CHECK-NOT:   fsub <8 x float> {{.*}}[[E1]]
; The uniform difference is computed once, as a scalar ...
; CHECK:       [[D:%.*]] = fsub float [[E1]], [[E0]]
; ... and broadcast for the varying division.
; CHECK-NEXT:  [[DI:%.*]] = insertelement <8 x float> poison, float [[D]], i64 0
; CHECK-NEXT:  [[DS:%.*]] = shufflevector <8 x float> [[DI]], <8 x float> poison, <8 x i32> zeroinitializer
; CHECK-NEXT:  [[N:%.*]] = fsub <8 x float> [[X]], {{%.*}}
; CHECK-NEXT:  [[T:%.*]] = fdiv <8 x float> [[N]], [[DS]]
; CHECK-NEXT:  [[C0:%.*]] = call <8 x float> @llvm.maxnum.v8f32(<8 x float> [[T]], <8 x float> zeroinitializer)
; CHECK-NEXT:  [[C:%.*]] = call <8 x float> @llvm.minnum.v8f32(<8 x float> [[C0]], <8 x float> splat (float 1.000000e+00))
; The rest is varying: no scalar float arithmetic or calls.
; CHECK-NOT:   = {{f[a-z]+|call}} float
; CHECK:       ret <8 x float>
; CHECK-NEXT:  }

; REPORT: batchify: smoothstep -> _ZGVdN8uuv_smoothstep: 8 lanes, {{[0-9]+}} vector instruction(s), 1 uniform, 0 per-lane
; REPORT-NOT: per-lane:
