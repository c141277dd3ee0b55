; The module of the documented opt commands (tests/doc-commands/README.md):
; a `declare simd` function `kern` and an `__enzyme_batch` call of `f`.
; From clang-22 -O2 -std=c23 -fopenmp-simd -march=x86-64-v3 -S -emit-llvm.
source_filename = "in_src.c"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

%struct.f64x4 = type { [4 x double] }

@enzyme_width = external local_unnamed_addr global i32, align 4
@enzyme_vector = external local_unnamed_addr global i32, align 4
@enzyme_scalar = external local_unnamed_addr global i32, align 4

; Function Attrs: nofree norecurse nosync nounwind memory(none) uwtable
define dso_local float @kern(float noundef %0, float noundef %1) local_unnamed_addr #0 {
  %3 = fcmp ogt float %0, %1
  br i1 %3, label %4, label %10

4:                                                ; preds = %2, %4
  %5 = phi float [ %8, %4 ], [ 0.000000e+00, %2 ]
  %6 = phi float [ %7, %4 ], [ %0, %2 ]
  %7 = fmul float %6, 5.000000e-01
  %8 = fadd float %5, 1.000000e+00
  %9 = fcmp ogt float %7, %1
  br i1 %9, label %4, label %10, !llvm.loop !8

10:                                               ; preds = %4, %2
  %11 = phi float [ %0, %2 ], [ %7, %4 ]
  %12 = phi float [ 0.000000e+00, %2 ], [ %8, %4 ]
  %13 = fadd float %11, %12
  ret float %13
}

; Function Attrs: mustprogress nocallback nofree nosync nounwind willreturn memory(argmem: readwrite)
declare void @llvm.lifetime.start.p0(ptr captures(none)) #1

; Function Attrs: mustprogress nocallback nofree nosync nounwind willreturn memory(argmem: readwrite)
declare void @llvm.lifetime.end.p0(ptr captures(none)) #1

; Function Attrs: nofree noinline norecurse nosync nounwind memory(none) uwtable
define dso_local double @f(double noundef %0, double noundef %1) #2 {
  %3 = fcmp ogt double %0, %1
  br i1 %3, label %4, label %14

4:                                                ; preds = %2, %4
  %5 = phi i32 [ %8, %4 ], [ 0, %2 ]
  %6 = phi double [ %7, %4 ], [ %0, %2 ]
  %7 = tail call double @llvm.fmuladd.f64(double %6, double 5.000000e-01, double 1.000000e-01)
  %8 = add nuw nsw i32 %5, 1
  %9 = fcmp ogt double %7, %1
  %10 = icmp samesign ult i32 %5, 99
  %11 = select i1 %9, i1 %10, i1 false
  br i1 %11, label %4, label %12, !llvm.loop !10

12:                                               ; preds = %4
  %13 = uitofp nneg i32 %8 to double
  br label %14

14:                                               ; preds = %12, %2
  %15 = phi double [ %0, %2 ], [ %7, %12 ]
  %16 = phi double [ 0.000000e+00, %2 ], [ %13, %12 ]
  %17 = fadd double %15, %16
  ret double %17
}

; Function Attrs: mustprogress nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none)
declare double @llvm.fmuladd.f64(double, double, double) #3

; Function Attrs: nounwind uwtable
define dso_local double @batch4(double noundef %0, double noundef %1, double noundef %2, double noundef %3, double noundef %4) local_unnamed_addr #4 {
  %6 = alloca %struct.f64x4, align 8
  call void @llvm.lifetime.start.p0(ptr nonnull %6) #6
  %7 = load i32, ptr @enzyme_width, align 4, !tbaa !4
  %8 = load i32, ptr @enzyme_vector, align 4, !tbaa !4
  %9 = load i32, ptr @enzyme_scalar, align 4, !tbaa !4
  call void (ptr, ...) @__enzyme_batch(ptr dead_on_unwind nonnull writable sret(%struct.f64x4) align 8 %6, ptr noundef nonnull @f, i32 noundef %7, i32 noundef 4, i32 noundef %8, double noundef %0, double noundef %1, double noundef %2, double noundef %3, i32 noundef %9, double noundef %4) #6
  %10 = load double, ptr %6, align 8, !tbaa !11
  %11 = getelementptr inbounds nuw i8, ptr %6, i64 8
  %12 = load double, ptr %11, align 8, !tbaa !11
  %13 = fadd double %10, %12
  %14 = getelementptr inbounds nuw i8, ptr %6, i64 16
  %15 = load double, ptr %14, align 8, !tbaa !11
  %16 = fadd double %13, %15
  %17 = getelementptr inbounds nuw i8, ptr %6, i64 24
  %18 = load double, ptr %17, align 8, !tbaa !11
  %19 = fadd double %16, %18
  call void @llvm.lifetime.end.p0(ptr nonnull %6) #6
  ret double %19
}

declare void @__enzyme_batch(ptr dead_on_unwind writable sret(%struct.f64x4) align 8, ...) local_unnamed_addr #5

attributes #0 = { nofree norecurse nosync nounwind memory(none) uwtable "_ZGVbN4vv_kern" "_ZGVcN8vv_kern" "_ZGVdN8vv_kern" "_ZGVeN16vv_kern" "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64-v3" "target-features"="+avx,+avx2,+bmi,+bmi2,+cmov,+crc32,+cx16,+cx8,+f16c,+fma,+fxsr,+lzcnt,+mmx,+movbe,+popcnt,+sahf,+sse,+sse2,+sse3,+sse4.1,+sse4.2,+ssse3,+x87,+xsave" }
attributes #1 = { mustprogress nocallback nofree nosync nounwind willreturn memory(argmem: readwrite) }
attributes #2 = { nofree noinline norecurse nosync nounwind memory(none) uwtable "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64-v3" "target-features"="+avx,+avx2,+bmi,+bmi2,+cmov,+crc32,+cx16,+cx8,+f16c,+fma,+fxsr,+lzcnt,+mmx,+movbe,+popcnt,+sahf,+sse,+sse2,+sse3,+sse4.1,+sse4.2,+ssse3,+x87,+xsave" }
attributes #3 = { mustprogress nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none) }
attributes #4 = { nounwind uwtable "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64-v3" "target-features"="+avx,+avx2,+bmi,+bmi2,+cmov,+crc32,+cx16,+cx8,+f16c,+fma,+fxsr,+lzcnt,+mmx,+movbe,+popcnt,+sahf,+sse,+sse2,+sse3,+sse4.1,+sse4.2,+ssse3,+x87,+xsave" }
attributes #5 = { "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64-v3" "target-features"="+avx,+avx2,+bmi,+bmi2,+cmov,+crc32,+cx16,+cx8,+f16c,+fma,+fxsr,+lzcnt,+mmx,+movbe,+popcnt,+sahf,+sse,+sse2,+sse3,+sse4.1,+sse4.2,+ssse3,+x87,+xsave" }
attributes #6 = { nounwind }

!llvm.errno.tbaa = !{!4}

!4 = !{!5, !5, i64 0}
!5 = !{!"int", !6, i64 0}
!6 = !{!"omnipotent char", !7, i64 0}
!7 = !{!"Simple C/C++ TBAA"}
!8 = distinct !{!8, !9}
!9 = !{!"llvm.loop.mustprogress"}
!10 = distinct !{!10, !9}
!11 = !{!12, !12, i64 0}
!12 = !{!"double", !6, i64 0}
