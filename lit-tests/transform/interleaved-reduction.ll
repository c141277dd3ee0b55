; clang's vectorizer interleaves a reduction into several vector
; accumulators (here two `<4 x i32>`, summed after the loop). Batched at N
; lanes each would be N registers (element-major `<N·4 x i32>`), so
; `prepare` merges them first (`prepare/reductions.rs`): one accumulator,
; updated with the sum of the trip's increments (wrapping integer `add` is
; associative, so the result is the same bit for bit).
;
; RUN: %batchify %s -S -o %t.ll --variant _ZGV_LLVM_N8uv_count --no-fallback
; RUN: FileCheck %s < %t.ll
;
; A group that the loop also reads (here the second accumulator's value
; feeds a store) is left alone.
; RUN: %batchify %s -S -o %t2.ll --variant _ZGV_LLVM_N8uv_keep --no-fallback
; RUN: FileCheck %s --check-prefix=KEEP < %t2.ll

define i32 @count(ptr %a, i32 %x) {
entry:
  %xi = insertelement <4 x i32> poison, i32 %x, i64 0
  %xs = shufflevector <4 x i32> %xi, <4 x i32> poison, <4 x i32> zeroinitializer
  br label %body

body:
  %i = phi i64 [ 0, %entry ], [ %i.next, %body ]
  %acc0 = phi <4 x i32> [ zeroinitializer, %entry ], [ %add0, %body ]
  %acc1 = phi <4 x i32> [ zeroinitializer, %entry ], [ %add1, %body ]
  %p0 = getelementptr inbounds i32, ptr %a, i64 %i
  %p1 = getelementptr inbounds i8, ptr %p0, i64 16
  %v0 = load <4 x i32>, ptr %p0, align 4
  %v1 = load <4 x i32>, ptr %p1, align 4
  %c0 = icmp slt <4 x i32> %v0, %xs
  %c1 = icmp slt <4 x i32> %v1, %xs
  %z0 = zext <4 x i1> %c0 to <4 x i32>
  %z1 = zext <4 x i1> %c1 to <4 x i32>
  %add0 = add <4 x i32> %acc0, %z0
  %add1 = add nuw nsw <4 x i32> %z1, %acc1
  %i.next = add nuw i64 %i, 8
  %done = icmp eq i64 %i.next, 64
  br i1 %done, label %exit, label %body

exit:
  %sum = add <4 x i32> %add1, %add0
  %r = call i32 @llvm.vector.reduce.add.v4i32(<4 x i32> %sum)
  ret i32 %r
}

define i32 @keep(ptr %a, i32 %x) {
entry:
  %xi = insertelement <4 x i32> poison, i32 %x, i64 0
  %xs = shufflevector <4 x i32> %xi, <4 x i32> poison, <4 x i32> zeroinitializer
  br label %body

body:
  %i = phi i64 [ 0, %entry ], [ %i.next, %body ]
  %acc0 = phi <4 x i32> [ zeroinitializer, %entry ], [ %add0, %body ]
  %acc1 = phi <4 x i32> [ zeroinitializer, %entry ], [ %add1, %body ]
  %p0 = getelementptr inbounds i32, ptr %a, i64 %i
  %v0 = load <4 x i32>, ptr %p0, align 4
  %c0 = icmp slt <4 x i32> %v0, %xs
  %z0 = zext <4 x i1> %c0 to <4 x i32>
  %add0 = add <4 x i32> %acc0, %z0
  %add1 = add <4 x i32> %acc1, %z0
  store <4 x i32> %add1, ptr %p0, align 4
  %i.next = add nuw i64 %i, 4
  %done = icmp eq i64 %i.next, 64
  br i1 %done, label %exit, label %body

exit:
  %sum = add <4 x i32> %add1, %add0
  %r = call i32 @llvm.vector.reduce.add.v4i32(<4 x i32> %sum)
  ret i32 %r
}

declare i32 @llvm.vector.reduce.add.v4i32(<4 x i32>)

; One accumulator phi of <32 x i32> (8 lanes × 4), updated once per trip.
; CHECK-LABEL: define <8 x i32> @_ZGV_LLVM_N8uv_count(
; CHECK:       {{^}}body:
; CHECK:         phi <32 x i32>
; CHECK-NOT:     phi <32 x i32>
; CHECK:         add <32 x i32>
; CHECK:         br i1
; CHECK:       {{^}}}

; KEEP-LABEL: define <8 x i32> @_ZGV_LLVM_N8uv_keep(
; KEEP:       {{^}}body:
; KEEP:         phi <32 x i32>
; KEEP:         phi <32 x i32>
; KEEP:       {{^}}}
