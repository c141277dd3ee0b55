; Linear parameters: a scalar base in the signature; lane k sees
; base + k*step. `l` is step 1, `l4` step 4, `ls1` takes the step from the
; uniform parameter 1 (an integer; on a pointer `ls` is refused:
; cli/linear-pointer-var-step.ll); for a pointer `l<step>` is in bytes.
; Checked at -O0, where the lane offsets are still one constant vector
; (added in the entry block, which then branches to the body).
;
; RUN: %batchify %s -S -O0 -o %t.ll --variant _ZGV_LLVM_N4lv_lin --variant _ZGV_LLVM_N4l4v_lin \
; RUN:   --variant _ZGV_LLVM_N8l_lin64 --variant _ZGV_LLVM_N4l4_ld --variant _ZGV_LLVM_N4ls1u_varstep
; RUN: FileCheck %s < %t.ll
;
; A masked access through a linear pointer loads from the parameter itself
; (lane 0's address, defined whether or not lane 0 is active): no search
; for the first active lane.
; RUN: %batchify %s -S -o - --variant _ZGV_LLVM_M4l4_ld | FileCheck %s --check-prefix=MASKED

define i32 @lin(i32 %i, i32 %x) {
  %s = mul i32 %i, 3
  %r = add i32 %s, %x
  ret i32 %r
}

define i64 @lin64(i64 %i) {
  %r = shl i64 %i, 1
  ret i64 %r
}

define float @ld(ptr %p) {
  %v = load float, ptr %p
  ret float %v
}

define i32 @varstep(i32 %i, i32 %s) {
  %r = add i32 %i, 7
  ret i32 %r
}

; CHECK-LABEL: define <4 x i32> @_ZGV_LLVM_N4lv_lin(
; CHECK-SAME:    i32 [[I:%[^,]+]], <4 x i32> [[X:%[^)]+]])
; CHECK-NEXT:  {{^}}entry:
; CHECK-NEXT:    [[INS:%.*]] = insertelement <4 x i32> poison, i32 [[I]], i32 0
; CHECK-NEXT:    [[SPL:%.*]] = shufflevector <4 x i32> [[INS]], <4 x i32> poison, <4 x i32> zeroinitializer
; CHECK-NEXT:    [[LIN:%.*]] = add <4 x i32> [[SPL]], <i32 0, i32 1, i32 2, i32 3>
; CHECK:         [[S:%.*]] = mul <4 x i32> [[LIN]], splat (i32 3)
; CHECK-NEXT:    [[R:%.*]] = add <4 x i32> [[S]], [[X]]
; CHECK-NEXT:    ret <4 x i32> [[R]]

; CHECK-LABEL: define <4 x i32> @_ZGV_LLVM_N4l4v_lin(
; CHECK-SAME:    i32 [[I:%[^,]+]], <4 x i32> [[X:%[^)]+]])
; CHECK-NEXT:  {{^}}entry:
; CHECK-NEXT:    [[INS:%.*]] = insertelement <4 x i32> poison, i32 [[I]], i32 0
; CHECK-NEXT:    [[SPL:%.*]] = shufflevector <4 x i32> [[INS]], <4 x i32> poison, <4 x i32> zeroinitializer
; CHECK-NEXT:    [[LIN:%.*]] = add <4 x i32> [[SPL]], <i32 0, i32 4, i32 8, i32 12>
; CHECK:         [[S:%.*]] = mul <4 x i32> [[LIN]], splat (i32 3)

; CHECK-LABEL: define <8 x i64> @_ZGV_LLVM_N8l_lin64(
; CHECK-SAME:    i64 [[I:%[^)]+]])
; CHECK:         [[LIN:%.*]] = add <8 x i64> {{%.*}}, <i64 0, i64 1, i64 2, i64 3, i64 4, i64 5, i64 6, i64 7>
; CHECK:         [[R:%.*]] = shl <8 x i64> [[LIN]], splat (i64 1)
; CHECK-NEXT:    ret <8 x i64> [[R]]

; A linear pointer is a vector of addresses 4 bytes apart; the load through
; it is one contiguous vector load from lane 0's address (not a gather),
; which is the scalar parameter itself (emit/lane_scalar.rs: not extracted
; from the address vector).
; CHECK-LABEL: define <4 x float> @_ZGV_LLVM_N4l4_ld(
; CHECK-SAME:    ptr [[P:%[^)]+]])
; CHECK-NEXT:  {{^}}entry:
; CHECK-NEXT:    [[PS:%.*]] = getelementptr i8, ptr [[P]], <4 x i64> <i64 0, i64 4, i64 8, i64 12>
; CHECK-NOT:     gather
; CHECK-NOT:     extractelement
; CHECK:         [[V:%.*]] = load <4 x float>, ptr [[P]], align 4
; CHECK-NOT:     gather
; CHECK:         ret <4 x float> [[V]]

; The variable step is sign-extended and multiplied by the lane numbers.
; CHECK-LABEL: define <4 x i32> @_ZGV_LLVM_N4ls1u_varstep(
; CHECK-SAME:    i32 [[I:%[^,]+]], i32 [[S:%[^)]+]])
; CHECK-NEXT:  {{^}}entry:
; CHECK-NEXT:    [[S64:%.*]] = sext i32 [[S]] to i64
; CHECK-NEXT:    [[INS:%.*]] = insertelement <4 x i64> poison, i64 [[S64]], i32 0
; CHECK-NEXT:    [[SPL:%.*]] = shufflevector <4 x i64> [[INS]], <4 x i64> poison, <4 x i32> zeroinitializer
; CHECK-NEXT:    [[OFF:%.*]] = mul <4 x i64> <i64 0, i64 1, i64 2, i64 3>, [[SPL]]
; CHECK-NEXT:    [[OFF32:%.*]] = trunc <4 x i64> [[OFF]] to <4 x i32>
; CHECK-NEXT:    [[BI:%.*]] = insertelement <4 x i32> poison, i32 [[I]], i32 0
; CHECK-NEXT:    [[BS:%.*]] = shufflevector <4 x i32> [[BI]], <4 x i32> poison, <4 x i32> zeroinitializer
; CHECK-NEXT:    [[LIN:%.*]] = add <4 x i32> [[BS]], [[OFF32]]
; CHECK:         [[R:%.*]] = add <4 x i32> [[LIN]], splat (i32 7)
; CHECK-NEXT:    ret <4 x i32> [[R]]

; MASKED-LABEL: define <4 x float> @_ZGV_LLVM_M4l4_ld(ptr %p, <4 x i1> %mask)
; MASKED-NOT:     cttz
; MASKED:         call <4 x float> @llvm.masked.load.v4f32.p0(ptr align 4 %p, <4 x i1> %mask, <4 x float> poison)
; MASKED-NOT:     cttz
