; `--veclib sleef` in an AArch64 module: an Advanced SIMD clone calls
; libsleefgnuabi's `_ZGVn` function of the library call (4 floats or 2
; doubles per call: an 8-lane clone calls it twice, a 2-lane float clone
; pads), declared with the C convention (calling a function of the vector
; procedure call standard that way is safe: the caller then assumes more
; registers clobbered, never fewer). --report names each call and its
; bound. Without the library the
; call stays exact (per lane). SVE clones keep exact calls. The execution
; test is crates/batchify-cli/tests/aarch64_sleef.rs (qemu, glibc's scalar
; functions as the reference).
;
; RUN: %batchify %s -S -o %t.ll --variant _ZGVnN4v_f --variant _ZGVnN8v_f \
; RUN:   --variant _ZGVnN2vv_g --veclib sleef --report 2> %t.err
; RUN: FileCheck %s < %t.ll
; RUN: FileCheck %s --check-prefix=DECL < %t.ll
; RUN: FileCheck %s --check-prefix=REPORT < %t.err
; RUN: %batchify %s -S -o - --variant _ZGVnN4v_f | FileCheck %s --check-prefix=EXACT
; RUN: %batchify %s -S -o - --variant _ZGVsMxv_f --veclib sleef | FileCheck %s --check-prefix=SVE

target datalayout = "e-m:e-i8:8:32-i16:16:32-i64:64-i128:128-n32:64-S128-Fn32"
target triple = "aarch64-unknown-linux-gnu"

declare float @expf(float) #1
declare double @atan2(double, double) #1

define float @f(float %x) {
  %e = call float @expf(float %x)
  ret float %e
}

define double @g(double %y, double %x) {
  %a = call double @atan2(double %y, double %x)
  ret double %a
}

attributes #1 = { nounwind willreturn memory(none) }

; CHECK-LABEL: define aarch64_vector_pcs <4 x float> @_ZGVnN4v_f(<4 x float> %x)
; CHECK:         call <4 x float> @_ZGVnN4v_expf(<4 x float>
; CHECK-LABEL: define aarch64_vector_pcs <8 x float> @_ZGVnN8v_f(<8 x float> %x)
; CHECK-COUNT-2: call <4 x float> @_ZGVnN4v_expf(<4 x float>
; CHECK-LABEL: define aarch64_vector_pcs <2 x double> @_ZGVnN2vv_g(<2 x double> %y, <2 x double> %x)
; CHECK:         call <2 x double> @_ZGVnN2vv_atan2(<2 x double> {{.*}}, <2 x double>
; DECL: declare <4 x float> @_ZGVnN4v_expf(<4 x float>)
; DECL: declare <2 x double> @_ZGVnN2vv_atan2(<2 x double>, <2 x double>)

; REPORT: veclib: expf -> _ZGVnN4v_expf (sleef, at most 1 ulp)
; REPORT: veclib: atan2 -> _ZGVnN2vv_atan2 (sleef, at most 1 ulp)

; EXACT-NOT: _ZGVnN4v_expf
; EXACT:     call float @expf(float
; EXACT-NOT: _ZGVnN4v_expf

; SVE-NOT: _ZGVnN4v_expf
; SVE:     call float @expf(float
; SVE-NOT: _ZGVnN4v_expf
