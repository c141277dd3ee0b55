; A function with inline assembly (here `irr`, its name from when an
; irreducible CFG was the example; those are vectorized now, see
; irreducible.ll) is not vectorized: the clone is the per-lane
; fallback, which calls the scalar function once per lane, in lane order,
; with that lane's arguments (uniform ones passed as they are), and builds
; the result vector from the calls. batchify says so with one
; `batchify: warning:` line and exits 0; the scalar function is unchanged.
; A masked variant calls the scalar function only for the active lanes.
; With --no-fallback the same input is an error (see also
; cli/errors-unsupported.ll).
;
; RUN: %batchify %s -S -o %t.ll --function irr -n 4 2> %t.err
; RUN: count 1 < %t.err
; RUN: FileCheck %s --check-prefix=WARN < %t.err
; RUN: FileCheck %s --implicit-check-not='{{ call }}' < %t.ll
;
; RUN: %batchify %s -S -o %t.m.ll --variant _ZGV_LLVM_M4vu_irr --report 2> %t.m.err
; RUN: FileCheck %s --check-prefix=MASKED --implicit-check-not='{{ call }}' < %t.m.ll
; RUN: FileCheck %s --check-prefix=MWARN < %t.m.err
;
; RUN: rm -f %t.out
; RUN: not %batchify %s -o %t.out --function irr -n 4 --no-fallback 2> %t.nf.err
; RUN: count 1 < %t.nf.err
; RUN: FileCheck %s --check-prefix=NOFB < %t.nf.err
; RUN: test ! -e %t.out

define i32 @irr(i32 %x, i32 %n) {
entry:
  %c = icmp sgt i32 %x, 0
  br i1 %c, label %a, label %exit
a:
  %v = call i32 asm "", "=r,0"(i32 %x)
  %s = add i32 %v, %n
  br label %exit
exit:
  %r = phi i32 [ %s, %a ], [ %n, %entry ]
  ret i32 %r
}

; WARN: {{^}}batchify: warning: `irr` -> `_ZGV_LLVM_N4vv_irr` is a per-lane loop over the scalar function: inline assembly {{.*}}{{$}}

; The scalar function is unchanged.
; CHECK-LABEL: define i32 @irr(
; CHECK:         call i32 asm "", "=r,0"(i32 %x)
; CHECK-LABEL: define <4 x i32> @_ZGV_LLVM_N4vv_irr(
; CHECK-SAME:    <4 x i32> [[X:%[^,]+]], <4 x i32> [[N:%[^)]+]])
; CHECK-NOT:     add <4 x i32>
; CHECK-NOT:     mul <4 x i32>
; CHECK-DAG:     [[X0:%.*]] = extractelement <4 x i32> [[X]], i64 0
; CHECK-DAG:     [[N0:%.*]] = extractelement <4 x i32> [[N]], i64 0
; CHECK:         [[R0:%.*]] = call i32 @irr(i32 [[X0]], i32 [[N0]])
; CHECK-DAG:     [[X1:%.*]] = extractelement <4 x i32> [[X]], i64 1
; CHECK-DAG:     [[N1:%.*]] = extractelement <4 x i32> [[N]], i64 1
; CHECK:         [[R1:%.*]] = call i32 @irr(i32 [[X1]], i32 [[N1]])
; CHECK-DAG:     [[X2:%.*]] = extractelement <4 x i32> [[X]], i64 2
; CHECK-DAG:     [[N2:%.*]] = extractelement <4 x i32> [[N]], i64 2
; CHECK:         [[R2:%.*]] = call i32 @irr(i32 [[X2]], i32 [[N2]])
; CHECK-DAG:     [[X3:%.*]] = extractelement <4 x i32> [[X]], i64 3
; CHECK-DAG:     [[N3:%.*]] = extractelement <4 x i32> [[N]], i64 3
; CHECK:         [[R3:%.*]] = call i32 @irr(i32 [[X3]], i32 [[N3]])
; CHECK-NOT:     call
; CHECK:         [[V0:%.*]] = insertelement <4 x i32> poison, i32 [[R0]], i64 0
; CHECK-NEXT:    [[V1:%.*]] = insertelement <4 x i32> [[V0]], i32 [[R1]], i64 1
; CHECK-NEXT:    [[V2:%.*]] = insertelement <4 x i32> [[V1]], i32 [[R2]], i64 2
; CHECK-NEXT:    [[V3:%.*]] = insertelement <4 x i32> [[V2]], i32 [[R3]], i64 3
; CHECK-NEXT:    ret <4 x i32> [[V3]]
; CHECK-NEXT:  }

; Masked: lane k's call happens only if mask bit k is set; the uniform `n`
; goes to every call as it is.
; MASKED-LABEL: define i32 @irr(
; MASKED:         call i32 asm "", "=r,0"(i32 %x)
; MASKED-LABEL: define <4 x i32> @_ZGV_LLVM_M4vu_irr(
; MASKED-SAME:    <4 x i32> [[X:%[^,]+]], i32 [[N:%[^,]+]], <4 x i1> [[M:%[^)]+]])
; MASKED:         [[M0:%.*]] = extractelement <4 x i1> [[M]], i64 0
; MASKED-NEXT:    br i1 [[M0]], label %[[LANE0:[^,]+]], label
; MASKED:       {{^}}[[LANE0]]:
; MASKED:         call i32 @irr(i32 {{%.*}}, i32 [[N]])
; MASKED:         [[M1:%.*]] = extractelement <4 x i1> [[M]], i64 1
; MASKED-NEXT:    br i1 [[M1]], label
; MASKED:         call i32 @irr(i32 {{%.*}}, i32 [[N]])
; MASKED:         [[M2:%.*]] = extractelement <4 x i1> [[M]], i64 2
; MASKED-NEXT:    br i1 [[M2]], label
; MASKED:         call i32 @irr(i32 {{%.*}}, i32 [[N]])
; MASKED:         [[M3:%.*]] = extractelement <4 x i1> [[M]], i64 3
; MASKED-NEXT:    br i1 [[M3]], label
; MASKED:         call i32 @irr(i32 {{%.*}}, i32 [[N]])
; MASKED-NOT:     call
; MASKED:         ret <4 x i32>

; With --report the warning comes first, then the report line.
; MWARN:      {{^}}batchify: warning: `irr` -> `_ZGV_LLVM_M4vu_irr` is a per-lane loop over the scalar function: inline assembly
; MWARN-NEXT: {{^}}batchify: irr -> _ZGV_LLVM_M4vu_irr: 4 lanes, per-lane fallback: inline assembly
; MWARN-NOT:  batchify

; NOFB: {{^}}batchify: error: cannot batchify `irr`: inline assembly `%v = call i32 asm "", "=r,0"(i32 %x)` is not supported{{$}}
