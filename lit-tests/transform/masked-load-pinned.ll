; A value read from the lane's own slot, which the branch then overwrites,
; leaves a divergent branch through a `select` on the branch's mask. LLVM 22's
; instcombine folds `select(m, masked.load(p, m, _), x)` into a new masked
; load built at the select, below the store, which then reads the stored
; value (llvm/llvm-project#215453). batchify freezes the loaded value
; (`finish/masked_loads.rs`), which the fold does not match, so the load
; stays above the store in batchify's output and after the user's -O2.
;
; RUN: %batchify %s -S -o %t.ll --variant _ZGV_LLVM_M8l8v_swap_slot_masked --no-fallback
; RUN: FileCheck %s < %t.ll
; RUN: %opt -passes='default<O2>' -S %t.ll | FileCheck %s
;
; A clone that writes no memory needs no freeze.
; RUN: %batchify %s -S -o %t.ro.ll --variant _ZGV_LLVM_M8l8v_read_slot_masked --no-fallback
; RUN: FileCheck %s --check-prefix=READONLY < %t.ro.ll

; CHECK-LABEL: define {{.*}} @_ZGV_LLVM_M8l8v_swap_slot_masked(
; CHECK:       [[OLD:%.*]] = {{.*}}call <8 x double> @llvm.masked.load.v8f64.p0(ptr align 8 [[P:%.*]], <8 x i1> [[M:%.*]], <8 x double> poison)
; CHECK-NEXT:  [[PINNED:%.*]] = freeze <8 x double> [[OLD]]
; CHECK:       call void @llvm.masked.store.v8f64.p0(<8 x double> {{%.*}}, ptr align 8 [[P]], <8 x i1> [[M]])
; CHECK:       select <8 x i1> [[M]], <8 x double> [[PINNED]],

; READONLY-LABEL: define {{.*}} @_ZGV_LLVM_M8l8v_read_slot_masked(
; READONLY:       [[V:%.*]] = call <8 x double> @llvm.masked.load.v8f64.p0(
; READONLY-NEXT:  fmul <8 x double> [[V]],
; READONLY-NOT:   freeze

define double @swap_slot_masked(ptr noundef captures(none) %0, double noundef %1) {
  %3 = fcmp ogt double %1, 0.000000e+00
  br i1 %3, label %4, label %7

4:                                                ; preds = %2
  %5 = load double, ptr %0, align 8
  %6 = tail call double @llvm.fmuladd.f64(double %1, double 5.000000e-01, double -2.500000e+00)
  store double %6, ptr %0, align 8
  br label %9

7:                                                ; preds = %2
  %8 = fadd double %1, 1.000000e+00
  br label %9

9:                                                ; preds = %7, %4
  %10 = phi double [ %5, %4 ], [ %8, %7 ]
  ret double %10
}

define double @read_slot_masked(ptr %p, double %x) {
entry:
  %c = fcmp ogt double %x, 0.0
  br i1 %c, label %then, label %join

then:
  %v = load double, ptr %p, align 8
  %w = fmul double %v, %x
  br label %join

join:
  %r = phi double [ %w, %then ], [ %x, %entry ]
  ret double %r
}

declare double @llvm.fmuladd.f64(double, double, double)
