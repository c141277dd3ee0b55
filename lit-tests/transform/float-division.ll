; Varying integer division of 32 bits or fewer goes through exact
; floating-point division (emit/division.rs): i32 through `double`, i16 and
; i8 through `float`, where the quotient's truncation is provably the
; integer quotient. The x86 backend would otherwise run one `div`/`idiv` per
; lane. Inactive lanes divide by 1 (the divisor is selected before the
; conversion; InstCombine moves the select past it at -O2); the remainder
; is `n - q*d`. Unsigned i32 quotients are read from the low bits of
; `q + 2^52` (the nearest integer), less one where that rounded up (no
; `llvm.trunc`: without SSE4.1 it is a libm call per lane). A constant divisor keeps the integer `sdiv` (the
; backend multiplies by a magic number), and so does i64 (guarded-division.ll).
; Bit-exactness is checked by crates/batchify-testkit/tests/exact_math.rs.
;
; RUN: %batchify %s -S -o %t.ll --function sd --function ud16 --function bykonst -n 4 --no-fallback
; RUN: FileCheck %s < %t.ll

define i32 @sd(i32 %n, i32 %d) {
entry:
  %big = icmp sgt i32 %n, 5
  br i1 %big, label %div, label %join
div:
  %q = sdiv i32 %n, %d
  %r = urem i32 %n, %d
  %s = add i32 %q, %r
  br label %join
join:
  %v = phi i32 [ %s, %div ], [ 0, %entry ]
  ret i32 %v
}

define i16 @ud16(i16 %n, i16 %d) {
  %q = udiv i16 %n, %d
  ret i16 %q
}

define i32 @bykonst(i32 %n) {
  %q = sdiv i32 %n, 7
  ret i32 %q
}

; CHECK-LABEL: define <4 x i32> @_ZGV_LLVM_N4vv_sd(
; CHECK-SAME:    <4 x i32> [[N:%[^,]+]], <4 x i32> [[D:%[^)]+]])
; CHECK:         [[FN:%.*]] = freeze <4 x i32> [[N]]
; CHECK:         [[BIG:%.*]] = icmp sgt <4 x i32> [[FN]], splat (i32 5)
; CHECK:         [[FD:%.*]] = freeze <4 x i32> [[D]]
; CHECK-NEXT:    [[DIVISOR:%.*]] = select <4 x i1> [[BIG]], <4 x i32> [[FD]], <4 x i32> splat (i32 1)
; CHECK-NEXT:    [[A:%.*]] = sitofp <4 x i32> [[FN]] to <4 x double>
; CHECK-NEXT:    [[B:%.*]] = sitofp <4 x i32> [[DIVISOR]] to <4 x double>
; CHECK-NEXT:    [[QF:%.*]] = fdiv <4 x double> [[A]], [[B]]
; CHECK-NEXT:    [[Q:%.*]] = fptosi <4 x double> [[QF]] to <4 x i32>
; CHECK:         [[UQF:%.*]] = fdiv <4 x double>
; CHECK-NEXT:    [[BIASED:%.*]] = fadd <4 x double> [[UQF]], splat (double 0x4330000000000000)
; CHECK-NEXT:    [[BACK:%.*]] = fadd <4 x double> [[BIASED]], splat (double 0xC330000000000000)
; CHECK-NEXT:    [[UP:%.*]] = fcmp ogt <4 x double> [[BACK]], [[UQF]]
; CHECK-NEXT:    [[ENC:%.*]] = bitcast <4 x double> [[BIASED]] to <4 x i64>
; CHECK-NEXT:    [[NEAREST:%.*]] = trunc <4 x i64> [[ENC]] to <4 x i32>
; CHECK-NEXT:    [[MINUS:%.*]] = sext <4 x i1> [[UP]] to <4 x i32>
; CHECK-NEXT:    [[UQ:%.*]] = add <4 x i32> [[NEAREST]], [[MINUS]]
; CHECK-NEXT:    [[P:%.*]] = mul <4 x i32> [[UQ]], [[DIVISOR]]
; CHECK-NEXT:    sub <4 x i32> [[FN]], [[P]]
; CHECK-NOT:     {{[su](div|rem)}}
; CHECK:         ret <4 x i32>

; CHECK-LABEL: define <4 x i16> @_ZGV_LLVM_N4vv_ud16(
; CHECK:         uitofp <4 x i16> {{%.*}} to <4 x float>
; CHECK:         fdiv <4 x float>
; CHECK:         fptosi <4 x float> {{%.*}} to <4 x i32>
; CHECK-NOT:     udiv
; CHECK:         ret <4 x i16>

; CHECK-LABEL: define <4 x i32> @_ZGV_LLVM_N4v_bykonst(
; CHECK:         sdiv <4 x i32> %n, splat (i32 7)
