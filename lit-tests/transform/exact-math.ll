; Exact math as vector code (emit/libm.rs, emit/fmod.rs): `frem float` and a
; `memory(none)` call of libm's `fmodf` on varying values become vector
; code: a loop on the significands (`fmod.loop`, run while any lane has
; exponent steps left) that takes up to 28 steps per iteration through an
; exact `double` division, with no scalar `fmodf` call and no `frem` left. Calls of libm's `floorf` and `fminf` become `llvm.floor.v8f32` and
; glibc's `minss` sequence. A function of the module that is merely called
; `fabsf` (it has a body) is not libm: batchify calls its clone, as for any
; function of the module (checked
; at -O0: at -O2 InstCombine itself folds the call of a function named
; `fabsf` into `llvm.fabs`, as C reserves the name).
; Bit-exactness is checked by crates/batchify-testkit/tests/exact_math.rs.
;
; RUN: %batchify %s -S -o %t.ll --function fm -n 8 --no-fallback
; RUN: FileCheck %s < %t.ll
; RUN: %batchify %s -S -O0 -o %t0.ll --function fm --function calls -n 8 --no-fallback --report 2> %t.report
; RUN: FileCheck %s --check-prefix=CALLS < %t0.ll
; RUN: FileCheck %s --check-prefix=REPORT < %t.report

define float @fm(float %x, float %y) {
entry:
  %c = fcmp ogt float %x, 1.0
  br i1 %c, label %a, label %join
a:
  %r1 = frem float %x, %y
  %r2 = call float @fmodf(float %r1, float %x) #0
  br label %join
join:
  %r = phi float [ %r2, %a ], [ %x, %entry ]
  ret float %r
}

define float @calls(float %x, float %y) {
  %f = call float @floorf(float %x) #0
  %m = call float @fminf(float %f, float %y) #0
  %u = call float @fabsf(float %m) #0
  ret float %u
}

declare float @fmodf(float, float)
declare float @floorf(float)
declare float @fminf(float, float)

; Not libm: a function of the module that happens to be called fabsf.
define float @fabsf(float %x) {
  %r = fadd float %x, 1.0
  ret float %r
}

attributes #0 = { nounwind willreturn memory(none) }

; CHECK-LABEL: define <8 x float> @_ZGV_LLVM_N8vv_fm(
; CHECK-NOT:     frem
; CHECK-NOT:     @fmodf
; CHECK:         call {{.*}}<8 x i32> @llvm.ctlz.v8i32(
; CHECK:       {{^}}fmod.loop:
; CHECK:       {{^}}fmod.step:
; CHECK:         call <8 x i32> @llvm.umin.v8i32(<8 x i32> {{%.*}}, <8 x i32> splat (i32 28))
; CHECK:         [[Q:%.*]] = fdiv <8 x double>
; CHECK-NEXT:    fadd <8 x double> [[Q]], splat (double 0x4330000000000000)
; CHECK:       {{^}}fmod.done:
; CHECK-NOT:     frem
; CHECK-NOT:     @fmodf
; CHECK:       {{^}}fmod.loop{{[0-9]+}}:
; CHECK-NOT:     frem
; CHECK-NOT:     @fmodf
; CHECK:       {{^}}}

; CALLS-LABEL: define <8 x float> @_ZGV_LLVM_N8vv_calls(
; CALLS-NOT:     @floorf
; CALLS:         call <8 x float> @llvm.floor.v8f32(
; CALLS-NOT:     @fminf
; CALLS:         fcmp olt <8 x float>
; CALLS-NOT:     @fminf
; CALLS-NOT:     @llvm.fabs
; CALLS:         call <8 x float> @__batchify._ZGV_LLVM_N8v_fabsf(
; CALLS:         ret <8 x float>

; REPORT: batchify: fm -> _ZGV_LLVM_N8vv_fm: 8 lanes, {{.*}}, 0 per-lane,
; REPORT: batchify: calls -> _ZGV_LLVM_N8vv_calls: 8 lanes, 3 vector instruction(s), 0 uniform, 0 per-lane,
; REPORT-NEXT: batchify:   batched: call to `fabsf` -> `__batchify._ZGV_LLVM_N8v_fabsf`
