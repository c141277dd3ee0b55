; --print-plan with --for-autodiff: the memory recipes are lane-wise (no
; masked intrinsic, which Enzyme cannot differentiate: a plain vector access
; under a full mask, else one scalar access per active element); without
; the option the same accesses use the masked intrinsics.
;
; RUN: %batchify %s -o /dev/null --print-plan --for-autodiff --variant _ZGV_LLVM_M4ul_get 2> %t
; RUN: FileCheck %s --check-prefix=AD < %t
; RUN: %batchify %s -o /dev/null --print-plan --variant _ZGV_LLVM_M4ul_get 2> %t.plain
; RUN: FileCheck %s --check-prefix=PLAIN < %t.plain

define double @get(ptr %t, i64 %i) {
  %p = getelementptr inbounds double, ptr %t, i64 %i
  %v = load double, ptr %p, align 8
  %q = getelementptr inbounds double, ptr %t, i64 100
  %r = getelementptr inbounds double, ptr %q, i64 %i
  store double %v, ptr %r, align 8
  ret double %v
}

; AD:      load vector access, lane-wise: %v = load double
; AD:      store vector access, lane-wise: store double %v
; PLAIN:   load vector access: %v = load double
; PLAIN:   store vector access: store double %v
