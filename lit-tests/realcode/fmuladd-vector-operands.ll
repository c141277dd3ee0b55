; Issue 6, items 4 and 9: `llvm.fmuladd` in AVX-512 clones.
; * `f` pins a target without FMA, so its scalar code computes a*b+c unfused;
;   the AVX-512 clone (which has FMA) must round the same way: fmuladd
;   becomes fmul + fadd, also on operands that are already vectors (the
;   unfusing path used to build `fmul` on lane arrays: "Floating-point
;   arithmetic operators only work with floating-point types"), and no
;   `contract` flag survives to let the backend fuse the pair again.
; * `g` pins no target: it fuses wherever it is compiled for a target with
;   FMA (the oracle's host), like the clone, so its fmuladd is kept.
;
; RUN: %batchify %s -S -o %t.ll --variant _ZGVeN16v_f --variant _ZGVeN16v_g --variant _ZGVeN16v_h --no-fallback
; RUN: FileCheck %s < %t.ll

define double @f(double %x) #0 {
  %v = insertelement <2 x double> poison, double %x, i64 0
  %w = insertelement <2 x double> %v, double 3.0, i64 1
  %m = call <2 x double> @llvm.fmuladd.v2f64(<2 x double> %w, <2 x double> %w, <2 x double> splat (double 1.0))
  %a = extractelement <2 x double> %m, i64 0
  %b = extractelement <2 x double> %m, i64 1
  %s = call double @llvm.fmuladd.f64(double %a, double %x, double %b)
  %t = fmul contract double %s, %x
  %u = fadd contract double %t, 1.0
  ret double %u
}

define double @g(double %x) {
  %s = call double @llvm.fmuladd.f64(double %x, double %x, double 1.0)
  ret double %s
}

; A uniform fmuladd (no varying operand) is unfused too.
define double @h(double %x) #0 {
  %k = call double @llvm.fmuladd.f64(double 0x3FB999999999999A, double 3.0, double 1.0)
  %r = fadd double %x, %k
  ret double %r
}

declare <2 x double> @llvm.fmuladd.v2f64(<2 x double>, <2 x double>, <2 x double>)
declare double @llvm.fmuladd.f64(double, double, double)

attributes #0 = { "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+sse,+sse2,+x87" }

; 16 doubles are wider than a zmm register: GCC's ABI returns them in memory.
; CHECK-LABEL: define void @_ZGVeN16v_f(ptr noalias sret(<16 x double>) align 64
; CHECK-NOT:     fmuladd
; CHECK-NOT:     contract
; CHECK:         fmul <16 x double>
; CHECK-NOT:     fmuladd
; CHECK-NOT:     contract
; CHECK:         store <16 x double>

; CHECK-LABEL: define void @_ZGVeN16v_g(ptr noalias sret(<16 x double>) align 64
; CHECK:         call <16 x double> @llvm.fmuladd.v16f64(

; CHECK-LABEL: define void @_ZGVeN16v_h(ptr noalias sret(<16 x double>) align 64
; CHECK-NOT:     fmuladd
; CHECK:         store <16 x double>
