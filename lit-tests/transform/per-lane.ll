; Things without a vector form run once per lane, in lane order: calls to
; unknown functions (even with uniform arguments, since each lane makes its
; own call). A call that cannot write memory (`memory(none)`) with uniform
; arguments runs once, as a scalar. A store through varying pointers is one
; `llvm.masked.scatter` with an all-true mask (a scatter writes overlapping
; addresses in lane order, so this is the per-lane order too).
; --report lists what went per-lane. Checked at the default -O2.
;
; RUN: %batchify %s -S -o %t.ll --variant _ZGV_LLVM_N4vu_callext \
; RUN:   --variant _ZGV_LLVM_N4vu_pure --variant _ZGV_LLVM_N4vv_st --report 2> %t.report
; RUN: FileCheck %s < %t.ll
; RUN: FileCheck %s --check-prefix=REPORT < %t.report

declare float @ext(float)
declare float @puref(float) memory(none) nounwind

define float @callext(float %x, float %u) {
  %a = fadd float %x, 1.0
  %c = call float @ext(float %a)
  %d = call float @ext(float %u)
  %r = fmul float %c, %d
  ret float %r
}

define float @pure(float %x, float %u) {
  %d = call float @puref(float %u)
  %r = fmul float %x, %d
  ret float %r
}

define void @st(ptr %p, float %x) {
  store float %x, ptr %p
  ret void
}

; CHECK-LABEL: define <4 x float> @_ZGV_LLVM_N4vu_callext(
; CHECK-SAME:    <4 x float> [[X:%[^,]+]], float [[U:%[^)]+]])
; CHECK-NEXT:  {{^}}entry:
; CHECK-NEXT:    [[A:%.*]] = fadd <4 x float> [[X]], splat (float 1.000000e+00)
; CHECK-NEXT:    [[A0:%.*]] = extractelement <4 x float> [[A]], i{{32|64}} 0
; CHECK-NEXT:    [[C0:%.*]] = call float @ext(float [[A0]])
; CHECK-NEXT:    [[V0:%.*]] = insertelement <4 x float> poison, float [[C0]], i{{32|64}} 0
; CHECK-NEXT:    [[A1:%.*]] = extractelement <4 x float> [[A]], i{{32|64}} 1
; CHECK-NEXT:    [[C1:%.*]] = call float @ext(float [[A1]])
; CHECK-NEXT:    [[V1:%.*]] = insertelement <4 x float> [[V0]], float [[C1]], i{{32|64}} 1
; CHECK-NEXT:    [[A2:%.*]] = extractelement <4 x float> [[A]], i{{32|64}} 2
; CHECK-NEXT:    [[C2:%.*]] = call float @ext(float [[A2]])
; CHECK-NEXT:    [[V2:%.*]] = insertelement <4 x float> [[V1]], float [[C2]], i{{32|64}} 2
; CHECK-NEXT:    [[A3:%.*]] = extractelement <4 x float> [[A]], i{{32|64}} 3
; CHECK-NEXT:    [[C3:%.*]] = call float @ext(float [[A3]])
; CHECK-NEXT:    [[C:%.*]] = insertelement <4 x float> [[V2]], float [[C3]], i{{32|64}} 3
; The uniform-argument call still runs four times, with the scalar argument.
; CHECK-COUNT-4: call float @ext(float [[U]])
; CHECK-NOT:     call
; CHECK:         fmul <4 x float> [[C]],
; CHECK:         ret <4 x float>

; CHECK-LABEL: define <4 x float> @_ZGV_LLVM_N4vu_pure(
; CHECK-SAME:    <4 x float> [[X:%[^,]+]], float [[U:%[^)]+]])
; CHECK-NEXT:  {{^}}entry:
; CHECK-NEXT:    [[D:%.*]] = call float @puref(float [[U]])
; CHECK-NOT:     call
; CHECK:         insertelement <4 x float> poison, float [[D]], i{{32|64}} 0
; CHECK:         ret <4 x float>

; CHECK-LABEL: define void @_ZGV_LLVM_N4vv_st(
; CHECK-SAME:    <4 x ptr> [[P:%[^,]+]], <4 x float> [[X:%[^)]+]])
; CHECK-NEXT:  {{^}}entry:
; CHECK-NEXT:    call void @llvm.masked.scatter.v4f32.v4p0(<4 x float> [[X]], <4 x ptr> align 4 [[P]], <4 x i1> splat (i1 true))
; CHECK-NEXT:    ret void
; CHECK-NEXT:  }

; REPORT:      batchify: callext -> _ZGV_LLVM_N4vu_callext: 4 lanes, 2 vector instruction(s), 0 uniform, 2 per-lane, 0 divergent loop(s), 0 linearized level(s), 0 uniform branch region(s) kept
; REPORT-NEXT: batchify:   per-lane: call to `ext`
; REPORT-NEXT: batchify: pure -> _ZGV_LLVM_N4vu_pure: 4 lanes, 1 vector instruction(s), 1 uniform, 0 per-lane
; REPORT-NEXT: batchify: st -> _ZGV_LLVM_N4vv_st: 4 lanes, 1 vector instruction(s), 0 uniform, 0 per-lane,
; REPORT-NOT:  per-lane:
