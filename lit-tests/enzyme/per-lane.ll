; A function batchify cannot clone (here: variadic) still gets its
; `batch_<f>`: one scalar call per lane, with a warning; width 1 calls the
; function itself through `batch_<f>` with scalar arguments (Enzyme's rule:
; at width 1 every argument is scalar).
; RUN: %batchify %s -o - -S --report 2>%t.err | FileCheck %s
; RUN: FileCheck --check-prefix=WARN %s < %t.err

declare [2 x double] @__enzyme_batch(...)
declare double @__enzyme_batch1(...)

define double @vf(double %x, ...) {
  %m = fmul double %x, 3.0
  ret double %m
}

define double @sq(double %x) {
  %m = fmul double %x, %x
  ret double %m
}

define [2 x double] @caller(double %a, double %b) {
  %r = call [2 x double] (...) @__enzyme_batch(ptr @vf, metadata !"enzyme_width", i64 2, double %a, double %b)
  ret [2 x double] %r
}

define double @one(double %a) {
  %r = call double (...) @__enzyme_batch1(ptr @sq, metadata !"enzyme_width", i64 1, double %a)
  ret double %r
}

; CHECK-LABEL: define [2 x double] @caller(
; CHECK: call [2 x double] @batch_vf([2 x double]
; CHECK-LABEL: define double @one(
; CHECK: call double @batch_sq(double %a)
; CHECK-LABEL: define internal [2 x double] @batch_vf([2 x double] %0)
; CHECK: extractvalue [2 x double] %0, 0
; CHECK: call double (double, ...) @vf(double
; CHECK: extractvalue [2 x double] %0, 1
; CHECK: call double (double, ...) @vf(double
; CHECK: ret [2 x double]
; CHECK-LABEL: define internal double @batch_sq(double %0)
; CHECK: call double @sq(double %0)
; CHECK-NOT: __enzyme_batch

; WARN: warning: `__enzyme_batch` of `vf` calls it once per lane: variant `_ZGV_LLVM_N2v_vf` does not fit its scalar function: variadic functions cannot be batched
; WARN: caller: __enzyme_batch(vf, width 2) -> `batch_vf` (calls `vf` once per lane)
; WARN: one: __enzyme_batch(sq, width 1) -> `batch_sq` (calls `sq` once per lane)
