; A search loop whose `i64` counter leaves the loop only as `trunc ... to
; i32` (clang widens `int` indices): `prepare` truncates it on the exit
; edges (`prepare/live_outs.rs`), so the divergent loop holds each lane's
; exit value in one `<8 x i32>` instead of an `<8 x i64>` (two AVX2
; registers, and a mask widened to 64 bits for every blend).
;
; RUN: %batchify %s -S -o %t.ll --variant _ZGVdN8uuv_lsearch --no-fallback
; RUN: FileCheck %s < %t.ll
;
; The scalar function is not touched.
; RUN: FileCheck %s --check-prefix=SCALAR < %t.ll

define i32 @lsearch(ptr %tab, i32 %len, i32 %key) {
entry:
  %pos = icmp sgt i32 %len, 0
  br i1 %pos, label %pre, label %done

pre:
  %n = zext nneg i32 %len to i64
  br label %loop

loop:
  %j = phi i64 [ 0, %pre ], [ %next, %latch ]
  %p = getelementptr inbounds nuw i32, ptr %tab, i64 %j
  %t = load i32, ptr %p, align 4
  %lt = icmp slt i32 %t, %key
  br i1 %lt, label %latch, label %found

latch:
  %next = add nuw nsw i64 %j, 1
  %end = icmp eq i64 %next, %n
  br i1 %end, label %done, label %loop

found:
  %r = trunc nuw nsw i64 %j to i32
  br label %done

done:
  %res = phi i32 [ 0, %entry ], [ %r, %found ], [ %len, %latch ]
  ret i32 %res
}

; SCALAR-LABEL: define i32 @lsearch(
; SCALAR:         found:
; SCALAR-NEXT:      %r = trunc nuw nsw i64 %j to i32

; CHECK-LABEL: define <8 x i32> @_ZGVdN8uuv_lsearch(
; CHECK-NOT:     <8 x i64>
; CHECK:         [[T:%.*]] = trunc i64 {{%.*}} to i32
; CHECK-NOT:     <8 x i64>
; CHECK:         select <8 x i1> {{%.*}}, <8 x i32> {{%.*}}, <8 x i32>
; CHECK-NOT:     <8 x i64>
; CHECK:         {{^}}}
