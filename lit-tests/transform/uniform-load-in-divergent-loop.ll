; A search loop over a uniform table: the loop is divergent (lanes leave
; when the table entry reaches their own `%x`), but the counter `%i` is the
; same in every lane still in the loop, so it stays a scalar, and the table
; read `table[i]` is one scalar load (guarded by "some lane is in the body"),
; not a gather. Only the result, read after lanes left at different
; iterations, is varying: each lane keeps the counter's value (a splat) from
; the iteration where it left.
;
; RUN: %batchify %s -o /dev/null --variant _ZGV_LLVM_N8uuv_search --print-analysis 2>&1 | FileCheck %s --check-prefix=ANALYSIS
; RUN: %batchify %s -S -o %t.ll --variant _ZGV_LLVM_N8uuv_search --no-fallback
; RUN: llvm-extract --func=_ZGV_LLVM_N8uuv_search -S %t.ll -o %t.clone.ll
; RUN: FileCheck %s --implicit-check-not=llvm.masked.gather < %t.clone.ll

define i32 @search(ptr %table, i32 %n, float %x) {
entry:
  br label %head
head:
  %i = phi i32 [ 0, %entry ], [ %i.next, %latch ]
  %in = icmp slt i32 %i, %n
  br i1 %in, label %body, label %exit
body:
  %idx = sext i32 %i to i64
  %p = getelementptr inbounds float, ptr %table, i64 %idx
  %t = load float, ptr %p, align 4
  %below = fcmp olt float %t, %x
  br i1 %below, label %latch, label %exit
latch:
  %i.next = add nsw i32 %i, 1
  br label %head
exit:
  %r = phi i32 [ %i, %head ], [ %i, %body ]
  ret i32 %r
}

; ANALYSIS:      %x: varying
; ANALYSIS:      uniform %i = phi i32 [ 0, %entry ], [ %i.next, %latch ]
; ANALYSIS:      uniform %t = load float, ptr %p, align 4
; ANALYSIS-NEXT: varying %below = fcmp olt float %t, %x
; ANALYSIS:      varying %r = phi i32 [ %i, %head ], [ %i, %body ]
; ANALYSIS:      uniform %i.next = add nsw i32 %i, 1
; ANALYSIS:      loop %head: divergent, depth 1, in function, 3 block(s)

; CHECK-LABEL: define <8 x i32> @_ZGV_LLVM_N8uuv_search(
; CHECK-SAME:    ptr [[TABLE:%[^,]+]], i32 [[N:%[^,]+]], <8 x float> [[X:%[^)]+]])
; CHECK:         [[I:%.*]] = phi i32 [ 0, %entry ], [ [[INEXT:%[^,]+]], %{{[^ ]+}} ]
; CHECK:         [[P:%.*]] = getelementptr {{.*}}float, ptr [[TABLE]], i64 {{%[^ ]+}}
; CHECK-NEXT:    [[T:%.*]] = load float, ptr [[P]], align 4
; CHECK:         fcmp olt <8 x float> {{%[^,]+}}, [[X]]
; CHECK:         [[INEXT]] = add {{.*}}i32 [[I]], 1
