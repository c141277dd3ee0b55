; A division under a divergent branch runs on all lanes once the branch is
; linearized, so it must not trap (or be UB) in the lanes that did not take
; the branch: its divisor is `select` of the branch's mask with the real
; divisor (frozen: it may be poison in inactive lanes, and LLVM would
; otherwise take "nonzero or poison" as nonzero and speculate the division)
; in active lanes and `splat (i64 1)` in the others. The IR is what
; clang -O0 + mem2reg gives for `d != 0 ? n / d : 0` (a real branch), on
; `long`: 64-bit division stays integer division. (Varying divisions of 32
; bits or fewer go through exact floating-point division instead, with the
; same guard: float-division.ll.)
;
; -O0: the guard as built, for udiv, sdiv and srem.
; RUN: %batchify %s -S -O0 -o %t0.ll --function gdiv --function gsdiv -n 4 --no-fallback
; RUN: FileCheck %s --check-prefix=O0 < %t0.ll
; -O2: for `d != 0` InstCombine folds the guard `d != 0 ? d : 1` into
; `umax(d, 1)`; with a mask that is not about `d` (`n > 5 ? n / d : 0`) it
; stays a select. The divisor is never `d` itself.
; RUN: %batchify %s -S -o %t2.ll --function gdiv --function gsdiv2 -n 4 --no-fallback
; RUN: FileCheck %s --check-prefix=O2 < %t2.ll

define i64 @gdiv(i64 %n, i64 %d) {
entry:
  %nz = icmp ne i64 %d, 0
  br i1 %nz, label %div, label %join
div:
  %q = udiv i64 %n, %d
  br label %join
join:
  %r = phi i64 [ %q, %div ], [ 0, %entry ]
  ret i64 %r
}

define i64 @gsdiv(i64 %n, i64 %d) {
entry:
  %nz = icmp ne i64 %d, 0
  br i1 %nz, label %div, label %join
div:
  %q = sdiv i64 %n, %d
  %m = srem i64 %n, %d
  %s = add i64 %q, %m
  br label %join
join:
  %r = phi i64 [ %s, %div ], [ 0, %entry ]
  ret i64 %r
}

define i64 @gsdiv2(i64 %n, i64 %d) {
entry:
  %big = icmp sgt i64 %n, 5
  br i1 %big, label %div, label %join
div:
  %q = sdiv i64 %n, %d
  br label %join
join:
  %r = phi i64 [ %q, %div ], [ 0, %entry ]
  ret i64 %r
}

; O0-LABEL: define <4 x i64> @_ZGV_LLVM_N4vv_gdiv(
; O0-SAME:    <4 x i64> [[N:%[^,]+]], <4 x i64> [[D:%[^)]+]])
; O0:         [[NZ:%.*]] = icmp ne <4 x i64> [[D]], zeroinitializer
; O0:         [[FN:%.*]] = freeze <4 x i64> [[N]]
; O0-NEXT:    [[FD:%.*]] = freeze <4 x i64> [[D]]
; O0-NEXT:    [[DIVISOR:%.*]] = select <4 x i1> [[M:%.*]], <4 x i64> [[FD]], <4 x i64> splat (i64 1)
; O0-NEXT:    [[Q:%.*]] = udiv <4 x i64> [[FN]], [[DIVISOR]]
; O0:         select <4 x i1> [[M]], <4 x i64> [[Q]], <4 x i64>
; O0-NOT:     udiv
; O0:         ret <4 x i64>

; O0-LABEL: define <4 x i64> @_ZGV_LLVM_N4vv_gsdiv(
; O0-SAME:    <4 x i64> [[N:%[^,]+]], <4 x i64> [[D:%[^)]+]])
; O0:         [[FN:%.*]] = freeze <4 x i64> [[N]]
; O0-NEXT:    [[FD:%.*]] = freeze <4 x i64> [[D]]
; O0-NEXT:    [[DIVISOR:%.*]] = select <4 x i1> [[M:%.*]], <4 x i64> [[FD]], <4 x i64> splat (i64 1)
; O0-NEXT:    sdiv <4 x i64> [[FN]], [[DIVISOR]]
; O0-NEXT:    [[FN2:%.*]] = freeze <4 x i64> [[N]]
; O0-NEXT:    [[FD2:%.*]] = freeze <4 x i64> [[D]]
; O0-NEXT:    [[DIVISOR2:%.*]] = select <4 x i1> [[M]], <4 x i64> [[FD2]], <4 x i64> splat (i64 1)
; O0-NEXT:    srem <4 x i64> [[FN2]], [[DIVISOR2]]
; O0-NOT:     {{sdiv|srem}}
; O0:         ret <4 x i64>

; O2-LABEL: define <4 x i64> @_ZGV_LLVM_N4vv_gdiv(
; O2-SAME:    <4 x i64> [[N:%[^,]+]], <4 x i64> [[D:%[^)]+]])
; O2-NOT:     br i1
; O2:         [[FD:%.*]] = freeze <4 x i64> [[D]]
; O2:         [[FN:%.*]] = freeze <4 x i64> [[N]]
; O2-NEXT:    [[DIVISOR:%.*]] = call <4 x i64> @llvm.umax.v4i64(<4 x i64> [[FD]], <4 x i64> splat (i64 1))
; O2-NEXT:    [[Q:%.*]] = udiv <4 x i64> [[FN]], [[DIVISOR]]
; O2-NEXT:    select <4 x i1> {{%.*}}, <4 x i64> {{.*}}[[Q]]
; O2-NOT:     br i1
; O2:         ret <4 x i64>

; O2-LABEL: define <4 x i64> @_ZGV_LLVM_N4vv_gsdiv2(
; O2-SAME:    <4 x i64> [[N:%[^,]+]], <4 x i64> [[D:%[^)]+]])
; O2-NEXT:  {{^}}entry:
; O2-NEXT:    [[FN:%.*]] = freeze <4 x i64> [[N]]
; O2-NEXT:    [[BIG:%.*]] = icmp sgt <4 x i64> [[FN]], splat (i64 5)
; O2-NEXT:    [[FD:%.*]] = freeze <4 x i64> [[D]]
; O2-NEXT:    [[DIVISOR:%.*]] = select <4 x i1> [[BIG]], <4 x i64> [[FD]], <4 x i64> splat (i64 1)
; O2-NEXT:    [[Q:%.*]] = sdiv <4 x i64> [[FN]], [[DIVISOR]]
; O2-NEXT:    [[R:%.*]] = select <4 x i1> [[BIG]], <4 x i64> [[Q]], <4 x i64> zeroinitializer
; O2-NEXT:    ret <4 x i64> [[R]]
; O2-NEXT:  }
