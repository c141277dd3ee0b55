; A divergent if/else (the condition `x > 0` differs between lanes) is
; linearized: both arms run on all lanes and a `select <4 x i1>` on the
; condition picks each lane's result, so at -O2 the clone has no conditional
; branch left. `f` is `x > 0 ? sqrtf(x) : -x` with `llvm.sqrt` (speculatable,
; so it becomes `llvm.sqrt.v4f32` on all lanes); `g` calls an external
; function `ext`, which may have side effects: the call runs once per lane,
; and only for the lanes that take the branch (a loop over the mask's set
; bits, see per-lane-loop.ll), so `g` does keep conditional branches. `h` calls libm's
; `sqrtf`, which may set errno, but only for a negative input: the clone
; computes the vector square root and would call `sqrtf` only for active
; lanes with `x < 0`; under `x > 0` there are none, so no call is left.
;
; RUN: %batchify %s -S -o %t.ll --variant _ZGV_LLVM_N4v_f --variant _ZGV_LLVM_N4v_g --variant _ZGV_LLVM_N4v_h --no-fallback --report 2> %t.report
; RUN: FileCheck %s < %t.ll
; RUN: FileCheck %s --check-prefix=REPORT < %t.report

define float @f(float %x) {
entry:
  %c = fcmp ogt float %x, 0.0
  br i1 %c, label %then, label %else
then:
  %s = call float @llvm.sqrt.f32(float %x)
  br label %join
else:
  %n = fneg float %x
  br label %join
join:
  %r = phi float [ %s, %then ], [ %n, %else ]
  ret float %r
}

define float @g(float %x) {
entry:
  %c = fcmp ogt float %x, 0.0
  br i1 %c, label %then, label %else
then:
  %s = call float @ext(float %x)
  br label %join
else:
  %n = fneg float %x
  br label %join
join:
  %r = phi float [ %s, %then ], [ %n, %else ]
  ret float %r
}

define float @h(float %x) {
entry:
  %c = fcmp ogt float %x, 0.0
  br i1 %c, label %then, label %else
then:
  %s = call float @sqrtf(float %x)
  br label %join
else:
  %n = fneg float %x
  br label %join
join:
  %r = phi float [ %s, %then ], [ %n, %else ]
  ret float %r
}

declare float @llvm.sqrt.f32(float)
declare float @sqrtf(float)
declare float @ext(float)

; No conditional branch anywhere in `f`'s clone: one select picks the result.
; CHECK-LABEL: define <4 x float> @_ZGV_LLVM_N4v_f(
; CHECK-SAME:    <4 x float> [[X:%[^)]+]])
; CHECK-NOT:     br i1
; CHECK:         [[R:%.*]] = select <4 x i1> {{%[^,]+}}, <4 x float> {{%[^,]+}}, <4 x float> {{%[^,]+}}
; CHECK-NOT:     br i1
; CHECK:         ret <4 x float> [[R]]
; CHECK-NEXT:  }

; What the select chooses between (its own run: the order of the three
; definitions is not the point).
; RUN: FileCheck %s --check-prefix=SEL < %t.ll
; SEL-LABEL: define <4 x float> @_ZGV_LLVM_N4v_f(
; SEL-SAME:    <4 x float> [[X:%[^)]+]])
; SEL-DAG:     [[C:%.*]] = fcmp ogt <4 x float> [[X]], zeroinitializer
; SEL-DAG:     [[S:%.*]] = call <4 x float> @llvm.sqrt.v4f32(<4 x float> [[X]])
; SEL-DAG:     [[N:%.*]] = fneg <4 x float> [[X]]
; SEL:         select <4 x i1> [[C]], <4 x float> [[S]], <4 x float> [[N]]

; CHECK-LABEL: define <4 x float> @_ZGV_LLVM_N4v_g(
; CHECK-SAME:    <4 x float> [[X:%[^)]+]])
; CHECK:         [[C:%.*]] = fcmp ogt <4 x float> [[X]], zeroinitializer
; CHECK:         [[BITS:%.*]] = bitcast <4 x i1> [[C]] to i4
; CHECK:       {{^}}lanes:
; CHECK-NEXT:    phi i4 [ [[BITS]], %lanes.pre ]
; CHECK:         call float @ext(float
; CHECK:         br i1 {{.*}}, label %lanes, !llvm.loop
; CHECK-NOT:     call float @ext
; CHECK:         [[N:%.*]] = fneg <4 x float> [[X]]
; CHECK:         select <4 x i1> [[C]], <4 x float> {{%.*}}, <4 x float> [[N]]
; CHECK:       {{^}}}

; CHECK-LABEL: define <4 x float> @_ZGV_LLVM_N4v_h(
; CHECK-NOT:     call float @sqrtf
; CHECK:         call <4 x float> @llvm.sqrt.v4f32(
; CHECK-NOT:     call float @sqrtf
; CHECK:       {{^}}}

; REPORT:      batchify: f -> _ZGV_LLVM_N4v_f: 4 lanes, {{.*}}, 0 per-lane, 0 divergent loop(s), 1 linearized level(s), 0 uniform branch region(s) kept
; REPORT-NEXT: batchify: g -> _ZGV_LLVM_N4v_g: 4 lanes, {{.*}}, 1 per-lane, 0 divergent loop(s), 1 linearized level(s), 0 uniform branch region(s) kept
; REPORT-NEXT: batchify:   per-lane: call to `ext`
; REPORT-NEXT: batchify: h -> _ZGV_LLVM_N4v_h: 4 lanes, {{.*}}, 0 per-lane, 0 divergent loop(s), 1 linearized level(s), 0 uniform branch region(s) kept
; REPORT-NEXT: batchify:   not batched: call to `sqrtf`: vector code; the call itself runs only in lanes whose input may set errno
