; --print-plan: a load and a store at addresses one element apart per lane
; are one vector access each; a step of minus one element is a reversed
; vector access; a linear `i32` index that is sign-extended is a vector
; access checked at run time (a gather where the extension wrapped).
;
; RUN: %batchify %s -o /dev/null --print-plan --variant _ZGVdN8ul_copy --variant _ZGVdN8ul_rev \
; RUN:   --variant _ZGVdN8ul_narrow 2> %t
; RUN: FileCheck %s < %t

define void @copy(ptr %t, i64 %i) {
  %p = getelementptr inbounds float, ptr %t, i64 %i
  %v = load float, ptr %p, align 4
  %w = fadd float %v, 1.0
  %q = getelementptr inbounds float, ptr %p, i64 64
  store float %w, ptr %q, align 4
  ret void
}

define float @rev(ptr %t, i64 %i) {
  %j = sub i64 100, %i
  %p = getelementptr inbounds float, ptr %t, i64 %j
  %v = load float, ptr %p, align 4
  ret float %v
}

define float @narrow(ptr %t, i32 %i) {
  %x = sext i32 %i to i64
  %p = getelementptr inbounds float, ptr %t, i64 %x
  %v = load float, ptr %p, align 4
  ret float %v
}

; CHECK-LABEL: plan of `copy` for `_ZGVdN8ul_copy`
; CHECK-NEXT:  #0: mask full
; CHECK-NEXT:    widen address: %p = getelementptr
; CHECK-NEXT:    load vector access: %v = load float
; CHECK-NEXT:    widen arithmetic: %w = fadd float
; CHECK-NEXT:    widen address: %q = getelementptr
; CHECK-NEXT:    store vector access: store float %w
; CHECK-NEXT:    control: ret void

; CHECK-LABEL: plan of `rev` for `_ZGVdN8ul_rev`
; CHECK:         load reversed vector access: %v = load float

; CHECK-LABEL: plan of `narrow` for `_ZGVdN8ul_narrow`
; CHECK:         widen conversion: %x = sext i32 %i to i64
; CHECK:         load vector access, checked: %v = load float
