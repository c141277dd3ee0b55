; A contiguous access through a linear `int` index (`p[i]`, `p[i + 1]`
; with `i` linear, as in a stencil): the clone checks at run time that the
; 32-bit index did not wrap between lane 0 and lane N-1, then loads one
; vector from lane 0's address. Both the check and the address are
; computed in scalar code from the parameter (emit/lane_scalar.rs), not
; extracted from the vector of indices or addresses, so the loads do not
; wait for the vector computation; the gather path keeps the vectors.
; The check is one compare: lane N-1's index is lane 0's plus N-1, so
; they are N-1 apart after sign extension exactly when lane 0's index is
; at most INT_MAX - (N-1). The check's branch is weighted towards the fast path, so that block
; placement keeps the vector loads and the rest of the function in one
; straight line and moves the gathers out of it.
;
; RUN: %batchify %s -S -o %t.ll --variant _ZGV_LLVM_N4ul_pair
; RUN: FileCheck %s < %t.ll

define float @pair(ptr %p, i32 %i) {
  %w = sext i32 %i to i64
  %a = getelementptr inbounds float, ptr %p, i64 %w
  %x = load float, ptr %a, align 4
  %j = add nsw i32 %i, 1
  %v = sext i32 %j to i64
  %b = getelementptr inbounds float, ptr %p, i64 %v
  %y = load float, ptr %b, align 4
  %r = fadd float %x, %y
  ret float %r
}

; CHECK-LABEL: define <4 x float> @_ZGV_LLVM_N4ul_pair(
; CHECK-SAME:    ptr [[P:%[^,]+]], i32 [[I:%[^)]+]])
; CHECK-NOT:     extractelement
; CHECK:         [[OK:%.*]] = icmp slt i32 [[I]], 2147483645
; CHECK:         br i1 [[OK]], label %shape.fast, label %shape.slow, !prof [[WEIGHTS:![0-9]+]]
; CHECK-NOT:     extractelement
; CHECK:         [[LO:%.*]] = sext i32 [[I]] to i64
; CHECK:         getelementptr float, ptr [[P]], i64 [[LO]]
; CHECK-NOT:     extractelement
; CHECK:         load <4 x float>
; CHECK:         call <4 x float> @llvm.masked.gather
; CHECK: [[WEIGHTS]] = !{!"branch_weights", i32 2000, i32 1}
