; ModuleID = 'particle_inf.c'
source_filename = "particle_inf.c"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

; Function Attrs: nofree norecurse nosync nounwind memory(none) uwtable
define dso_local double @particle(double noundef %0, double noundef %1, double noundef %2, double noundef %3) local_unnamed_addr #0 {
  br label %5

5:                                                ; preds = %4, %39
  %6 = phi double [ %0, %4 ], [ %40, %39 ]
  %7 = phi double [ %1, %4 ], [ %41, %39 ]
  %8 = phi double [ %2, %4 ], [ %47, %39 ]
  %9 = phi double [ %3, %4 ], [ %46, %39 ]
  %10 = phi i32 [ 0, %4 ], [ %48, %39 ]
  %11 = phi double [ 1.000000e+00, %4 ], [ %42, %39 ]
  %12 = fcmp ogt double %8, 0.000000e+00
  br i1 %12, label %13, label %16

13:                                               ; preds = %5
  %14 = fsub double 1.000000e+00, %6
  %15 = fdiv double %14, %8
  br label %21

16:                                               ; preds = %5
  %17 = fcmp olt double %8, 0.000000e+00
  %18 = fneg double %6
  %19 = fdiv double %18, %8
  %20 = select i1 %17, double %19, double 0x7FF0000000000000
  br label %21

21:                                               ; preds = %16, %13
  %22 = phi double [ %15, %13 ], [ %20, %16 ]
  %23 = fcmp ogt double %9, 0.000000e+00
  br i1 %23, label %24, label %27

24:                                               ; preds = %21
  %25 = fsub double 1.000000e+00, %7
  %26 = fdiv double %25, %9
  br label %32

27:                                               ; preds = %21
  %28 = fcmp olt double %9, 0.000000e+00
  %29 = fneg double %7
  %30 = fdiv double %29, %9
  %31 = select i1 %28, double %30, double 0x7FF0000000000000
  br label %32

32:                                               ; preds = %27, %24
  %33 = phi double [ %26, %24 ], [ %31, %27 ]
  %34 = tail call double @llvm.minnum.f64(double %22, double %33)
  %35 = fcmp ult double %34, %11
  br i1 %35, label %39, label %36

36:                                               ; preds = %32
  %37 = tail call double @llvm.fmuladd.f64(double %8, double %11, double %6)
  %38 = tail call double @llvm.fmuladd.f64(double %9, double %11, double %7)
  br label %52

39:                                               ; preds = %32
  %40 = tail call double @llvm.fmuladd.f64(double %8, double %34, double %6)
  %41 = tail call double @llvm.fmuladd.f64(double %9, double %34, double %7)
  %42 = fsub double %11, %34
  %43 = fcmp ugt double %22, %33
  %44 = fmul double %8, -9.000000e-01
  %45 = fmul double %9, -9.000000e-01
  %46 = select i1 %43, double %45, double %9
  %47 = select i1 %43, double %8, double %44
  %48 = add nuw nsw i32 %10, 1
  %49 = fcmp ogt double %42, 0.000000e+00
  %50 = icmp samesign ult i32 %10, 15
  %51 = select i1 %49, i1 %50, i1 false
  br i1 %51, label %5, label %52

52:                                               ; preds = %39, %36
  %53 = phi double [ %9, %36 ], [ %46, %39 ]
  %54 = phi double [ %8, %36 ], [ %47, %39 ]
  %55 = phi double [ %38, %36 ], [ %41, %39 ]
  %56 = phi double [ %37, %36 ], [ %40, %39 ]
  %57 = fmul double %53, %53
  %58 = tail call double @llvm.fmuladd.f64(double %54, double %54, double %57)
  %59 = fmul double %58, 5.000000e-01
  %60 = tail call double @llvm.fmuladd.f64(double %55, double 5.000000e-01, double %56)
  %61 = tail call double @llvm.fmuladd.f64(double %59, double 1.000000e-01, double %60)
  ret double %61
}

; Function Attrs: mustprogress nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none)
declare double @llvm.minnum.f64(double, double) #1

; Function Attrs: mustprogress nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none)
declare double @llvm.fmuladd.f64(double, double, double) #1

attributes #0 = { nofree norecurse nosync nounwind memory(none) uwtable "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+avx,+avx2,+cmov,+crc32,+cx8,+fxsr,+mmx,+popcnt,+sse,+sse2,+sse3,+sse4.1,+sse4.2,+ssse3,+x87,+xsave" "tune-cpu"="generic" }
attributes #1 = { mustprogress nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none) }

!llvm.module.flags = !{!0, !1, !2, !3}
!llvm.ident = !{!4}
!llvm.errno.tbaa = !{!5}

!0 = !{i32 1, !"wchar_size", i32 4}
!1 = !{i32 8, !"PIC Level", i32 2}
!2 = !{i32 7, !"PIE Level", i32 2}
!3 = !{i32 7, !"uwtable", i32 2}
!4 = !{!"Debian clang version 22.1.8 (1~deb12u1)"}
!5 = !{!6, !6, i64 0}
!6 = !{!"int", !7, i64 0}
!7 = !{!"omnipotent char", !8, i64 0}
!8 = !{!"Simple C/C++ TBAA"}
