; Regression: fuzz program seed 4030610 after default<O2>. The divisor `add nuw %p0, 1` is
; poison in inactive lanes (p0 = -1); LLVM's x86 backend treated it as never zero and
; speculated the division past the safe-divisor select (SIGFPE). Fixed by freezing
; divisors before the select.

; Function Attrs: mustprogress nofree norecurse nosync nounwind willreturn memory(none)
define double @fuzz_4030610(i64 %p0, i64 %p1, i64 %p2) local_unnamed_addr #0 {
entry:
  %t2 = trunc i64 %p1 to i32
  %t3 = or i32 %t2, 2147483647
  %t7 = add i32 %t3, %t2
  %t16 = icmp sgt i64 %p0, -1
  br i1 %t16, label %if.then1, label %if.end3

if.then1:                                         ; preds = %entry
  %t18 = add nuw i64 %p0, 1
  %t21 = tail call i64 @llvm.smax.i64(i64 %p2, i64 %p0)
  %t22 = sub i64 %t18, %t21
  %t24 = icmp slt i64 %t22, %p1
  br i1 %t24, label %div.ok10, label %if.end3

div.ok10:                                         ; preds = %if.then1
  %t33 = udiv i64 %p2, %t18
  %t38 = icmp eq i64 %p1, 0
  %t39 = icmp eq i64 %t33, -9223372036854775808
  %t40 = icmp eq i64 %p1, -1
  %t41 = and i1 %t40, %t39
  %t42 = or i1 %t38, %t41
  br i1 %t42, label %div.end13, label %div.ok12

div.ok12:                                         ; preds = %div.ok10
  %t43 = srem i64 %t33, %p1
  br label %div.end13

div.end13:                                        ; preds = %div.ok12, %div.ok10
  %t44 = phi i64 [ 0, %div.ok10 ], [ %t43, %div.ok12 ]
  %t70 = icmp eq i32 %t7, 0
  br i1 %t70, label %lor.rhs16, label %div.ok14

div.ok14:                                         ; preds = %div.end13
  %t69 = zext i32 %t7 to i64
  %t18.neg = xor i64 %p0, -1
  %t47 = add i64 %p1, %t18.neg
  %t48 = add i64 %t47, %t44
  %t75 = srem i64 %t48, %t69
  %0 = uitofp i64 %t75 to double
  %1 = tail call double @llvm.sqrt.f64(double %0)
  br label %lor.rhs16

lor.rhs16:                                        ; preds = %div.ok14, %div.end13
  %t76 = phi double [ 0.000000e+00, %div.end13 ], [ %1, %div.ok14 ]
  %t98 = icmp ult i32 %t7, 4
  %t103 = sitofp i64 %p1 to double
  %t104 = tail call double @llvm.fabs.f64(double %t103)
  %t105 = select i1 %t98, double %t76, double %t104
  br label %common.ret

common.ret:                                       ; preds = %if.end3, %lor.rhs16
  %common.ret.op = phi double [ %t105, %lor.rhs16 ], [ %t169, %if.end3 ]
  ret double %common.ret.op

if.end3:                                          ; preds = %entry, %if.then1
  %t169 = sitofp i64 %p0 to double
  br label %common.ret
}

; Function Attrs: mustprogress nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none)
declare double @llvm.fabs.f64(double) #1

; Function Attrs: mustprogress nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none)
declare double @llvm.sqrt.f64(double) #1

; Function Attrs: mustprogress nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none)
declare i64 @llvm.smax.i64(i64, i64) #1

attributes #0 = { mustprogress nofree norecurse nosync nounwind willreturn memory(none) }
attributes #1 = { mustprogress nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none) }
