; Issue 6, defect 3: a `byval` parameter is the function's private copy of
; the caller's object. The vectorized clone wrote through it into the
; caller's object; now such functions take the per-lane loop, whose calls
; carry `byval(T)` so each lane gets its own copy. A uniform `byval`
; parameter keeps `byval` on the clone (it is part of the calling
; convention, as for the scalar function).
;
; RUN: %batchify %s -S -o %t.ll --variant _ZGV_LLVM_N4v_bump --variant _ZGV_LLVM_N4uv_bumpu --report 2> %t.report
; RUN: FileCheck %s < %t.ll
; RUN: FileCheck %s --check-prefix=REPORT < %t.report

%struct.S = type { i32, i32 }

define i32 @bump(ptr byval(%struct.S) align 4 %s) {
  %v = load i32, ptr %s, align 4
  %w = add i32 %v, 1
  store i32 %w, ptr %s, align 4
  ret i32 %w
}

define i32 @bumpu(ptr byval(%struct.S) align 4 %s, i32 %x) {
  %v = load i32, ptr %s, align 4
  %w = add i32 %v, %x
  store i32 %w, ptr %s, align 4
  ret i32 %w
}

; CHECK-LABEL: define <4 x i32> @_ZGV_LLVM_N4v_bump(<4 x ptr> %s)
; CHECK-COUNT-4: call i32 @bump(ptr {{.*}}byval(%struct.S) align 4
; CHECK-NOT:     store
; CHECK:         ret <4 x i32>

; CHECK-LABEL: define <4 x i32> @_ZGV_LLVM_N4uv_bumpu(ptr byval(%struct.S) align 4 %s, <4 x i32> %x)
; CHECK-COUNT-4: call i32 @bumpu(ptr {{.*}}byval(%struct.S) align 4 %s, i32
; CHECK-NOT:     store
; CHECK:         ret <4 x i32>

; REPORT: bump -> _ZGV_LLVM_N4v_bump: 4 lanes, per-lane fallback: parameter 0 is passed `byval`
