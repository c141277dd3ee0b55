; A `switch` on a varying value is linearized: at -O2 the clone has no
; `switch` and no conditional branch, and picks each lane's result with
; `select <8 x i1>`; nothing goes per lane, nothing falls back (it builds with
; --no-fallback and prints nothing). This used to be an error whose message
; quoted the multi-line `switch` (4 lines on stderr).
;
; RUN: %batchify %s -S -o %t.ll --function sw --no-fallback 2> %t.err
; RUN: count 0 < %t.err
; RUN: FileCheck %s < %t.ll
; RUN: %batchify %s -S -o %t.r.ll --function sw --report 2> %t.report
; RUN: FileCheck %s --check-prefix=REPORT < %t.report

define i32 @sw(i32 %x) {
entry:
  switch i32 %x, label %def [ i32 0, label %a
                              i32 1, label %b ]
a:
  br label %j
b:
  br label %j
def:
  br label %j
j:
  %r = phi i32 [ 10, %a ], [ 20, %b ], [ 30, %def ]
  ret i32 %r
}

; CHECK-LABEL: define <8 x i32> @_ZGV_LLVM_N8v_sw(
; CHECK-SAME:    <8 x i32> [[X:%[^)]+]])
; CHECK-NOT:     switch
; CHECK-NOT:     br i1
; CHECK-DAG:     icmp {{.*}}<8 x i32> [[X]],
; CHECK-DAG:     select <8 x i1> {{%.*}}, <8 x i32> splat (i32 10), <8 x i32> splat (i32 20)
; CHECK-DAG:     select <8 x i1> {{%.*}}, <8 x i32> splat (i32 30), <8 x i32>
; CHECK-NOT:     switch
; CHECK-NOT:     br i1
; CHECK:         ret <8 x i32>
; CHECK-NEXT:  }

; REPORT: batchify: sw -> _ZGV_LLVM_N8v_sw: 8 lanes, {{.*}}, 0 per-lane, 0 divergent loop(s), 1 linearized level(s),
