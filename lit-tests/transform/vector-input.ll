; Input that is vector code already: a `<k x T>` value of a varying
; computation becomes one `<N·k x T>` vector (element-major: element e of
; lane j at e·N + j), not N scalar copies. Lane-wise operations act on the
; whole vector; a reduction over the k elements folds the k subvectors of
; N lanes with k-1 vector operations; a bit cast that changes the element
; count goes through the lane-major order. Checked at -O0, so the shape is
; the emitter's own.
;
; RUN: %batchify %s -S -O0 -o %t.ll --report --variant _ZGV_LLVM_N8uv_reduce --variant _ZGV_LLVM_N4uv_movemask 2> %t.report
; RUN: FileCheck %s < %t.ll
; RUN: FileCheck %s --check-prefix=REPORT < %t.report

define i32 @reduce(ptr %t, i32 %x) {
  %v = load <4 x i32>, ptr %t, align 4
  %ins = insertelement <4 x i32> poison, i32 %x, i64 0
  %splat = shufflevector <4 x i32> %ins, <4 x i32> poison, <4 x i32> zeroinitializer
  %m = xor <4 x i32> %v, %splat
  %s = call i32 @llvm.vector.reduce.add.v4i32(<4 x i32> %m)
  ret i32 %s
}

; The uniform table load stays one <4 x i32> load; the varying xor is one
; <32 x i32> xor; the reduction is three <8 x i32> adds of subvectors.
; CHECK-LABEL: define <8 x i32> @_ZGV_LLVM_N8uv_reduce(
; CHECK:         %v = load <4 x i32>, ptr %t, align 4
; CHECK:         [[M:%.*]] = xor <32 x i32>
; CHECK:         [[E0:%.*]] = shufflevector <32 x i32> [[M]], <32 x i32> poison, <8 x i32> <i32 0, i32 1, i32 2, i32 3, i32 4, i32 5, i32 6, i32 7>
; CHECK-NEXT:    [[E1:%.*]] = shufflevector <32 x i32> [[M]], <32 x i32> poison, <8 x i32> <i32 8, i32 9, i32 10, i32 11, i32 12, i32 13, i32 14, i32 15>
; CHECK-NEXT:    [[S1:%.*]] = add <8 x i32> [[E0]], [[E1]]
; CHECK:         [[S2:%.*]] = add <8 x i32> [[S1]],
; CHECK:         [[S3:%.*]] = add <8 x i32> [[S2]],
; CHECK-NOT:     extractelement
; CHECK:         ret <8 x i32> [[S3]]

define i32 @movemask(ptr %t, i32 %x) {
  %v = load <4 x i32>, ptr %t, align 4
  %ins = insertelement <4 x i32> poison, i32 %x, i64 0
  %splat = shufflevector <4 x i32> %ins, <4 x i32> poison, <4 x i32> zeroinitializer
  %c = icmp sge <4 x i32> %v, %splat
  %b = bitcast <4 x i1> %c to i4
  %r = zext i4 %b to i32
  ret i32 %r
}

; The comparison is one <16 x i1> vector; the bit cast to i4 reorders it
; lane-major and casts it to <4 x i4>, one i4 per lane.
; CHECK-LABEL: define <4 x i32> @_ZGV_LLVM_N4uv_movemask(
; CHECK:         [[C:%.*]] = icmp sge <16 x i32>
; CHECK:         [[LM:%.*]] = shufflevector <16 x i1> [[C]], <16 x i1> poison, <16 x i32> <i32 0, i32 4, i32 8, i32 12, i32 1, i32 5,
; CHECK-NEXT:    [[B:%.*]] = bitcast <16 x i1> [[LM]] to <4 x i4>
; CHECK-NEXT:    {{%.*}} = zext <4 x i4> [[B]] to <4 x i32>

; REPORT: reduce -> _ZGV_LLVM_N8uv_reduce: 8 lanes, {{[0-9]+}} vector instruction(s), {{[0-9]+}} uniform, 0 per-lane,
; REPORT: movemask -> _ZGV_LLVM_N4uv_movemask: 4 lanes, {{[0-9]+}} vector instruction(s), {{[0-9]+}} uniform, 0 per-lane,
