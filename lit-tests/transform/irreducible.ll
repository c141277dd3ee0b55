; An irreducible CFG (two blocks that jump into each other's loop, so the
; cycle has two entries, `a` and `b`) is made reducible by node splitting
; (prepare/node_split.rs: `b` gets a copy entered only from outside the
; cycle) and then vectorized like any divergent loop: no per-lane fallback,
; no warning, vector arithmetic in the clone, and the scalar function
; unchanged. The execution oracle checks such functions (corpus
; divergent/irreducible.c, the fuzzer's irreducible cycles).
;
; RUN: %batchify %s -S -o %t.ll --function irr -n 4 --no-fallback --report 2> %t.err
; RUN: FileCheck %s < %t.ll
; RUN: FileCheck %s --check-prefix=REPORT < %t.err

define i32 @irr(i32 %x, i32 %n) {
entry:
  %c = icmp sgt i32 %x, 0
  br i1 %c, label %a, label %b
a:
  %va = phi i32 [ %x, %entry ], [ %vb1, %b ]
  %va1 = add i32 %va, 3
  %ca = icmp slt i32 %va1, %n
  br i1 %ca, label %b, label %exit
b:
  %vb = phi i32 [ %n, %entry ], [ %va1, %a ]
  %vb1 = mul i32 %vb, 2
  %cb = icmp slt i32 %vb1, 100
  br i1 %cb, label %a, label %exit
exit:
  %r = phi i32 [ %va1, %a ], [ %vb1, %b ]
  ret i32 %r
}

; The scalar function keeps its CFG.
; CHECK-LABEL: define i32 @irr(
; CHECK:         br i1 %ca, label %b, label %exit
; CHECK:         br i1 %cb, label %a, label %exit
; CHECK-LABEL: define <4 x i32> @_ZGV_LLVM_N4vv_irr(
; CHECK-NOT:     call
; CHECK:         ret <4 x i32>
; CHECK-NOT:     call
; CHECK:         add <4 x i32>
; CHECK-NOT:     call
; CHECK:         {{mul|shl}} <4 x i32>
; CHECK-NOT:     call
; CHECK:       {{^}}}

; REPORT: batchify: irr -> _ZGV_LLVM_N4vv_irr: 4 lanes, {{[0-9]+}} vector instruction(s), {{.*}}, {{[1-9]}} divergent loop(s)
; REPORT-NOT: fallback
