; Issue 6, defect 1: the per-lane fallback's calls must carry the scalar
; function's calling convention and parameter attributes. A `fastcc` callee
; called with the C convention is undefined behaviour, which LLVM folds to
; `unreachable`: the whole clone became an empty body. rustc makes every
; internal function `fastcc`; clang does the same for `static` functions.
;
; RUN: %batchify %s -S -o %t.ll --function f --function t --function c -n 4 --report 2> %t.report
; RUN: FileCheck %s < %t.ll
; RUN: FileCheck %s --check-prefix=REPORT < %t.report

; Inline assembly forces the fallback.
define internal fastcc i32 @f(i32 signext %x) {
  %y = call i32 asm "lea 1($1), $0", "=r,r"(i32 %x)
  ret i32 %y
}

define tailcc float @t(float %x) {
  %y = call float asm "", "=x,0"(float %x)
  ret float %y
}

define coldcc i64 @c(i64 %x) {
  %y = call i64 asm "", "=r,0"(i64 %x)
  ret i64 %y
}

; CHECK-LABEL: define internal <4 x i32> @_ZGV_LLVM_N4v_f(<4 x i32> %x)
; CHECK-COUNT-4: call fastcc i32 @f(i32 signext
; CHECK-NOT:     unreachable
; CHECK:         ret <4 x i32>

; CHECK-LABEL: define <4 x float> @_ZGV_LLVM_N4v_t(
; CHECK-COUNT-4: call tailcc float @t(float
; CHECK:         ret <4 x float>

; CHECK-LABEL: define <4 x i64> @_ZGV_LLVM_N4v_c(
; CHECK-COUNT-4: call coldcc i64 @c(i64
; CHECK:         ret <4 x i64>

; REPORT: f -> _ZGV_LLVM_N4v_f: 4 lanes, per-lane fallback: inline assembly
