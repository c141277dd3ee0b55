; libm calls that may write errno (clang's default -fmath-errno) of the functions
; that --for-autodiff clones compute with one vector intrinsic plus the real call
; in the lanes whose input may set errno (emit/libm.rs autodiff_math_call), under
; divergent branches and a divergent loop, double and float, with arguments scaled
; so that random inputs reach the poles, domain errors, overflows and underflows.
; The default mode runs these calls per lane. From errno_math.c below with
; clang-22 -O2 -fno-vectorize -fno-unroll-loops -S -emit-llvm:
;
; #include <math.h>
; double em_log_branch(double x, double y) {
;   double r = y;
;   if (x < 3.0) r = log(x) + log2(x - y) * log10(y);
;   return r;
; }
; double em_exp_loop(double x, double y) {
;   double s = 0.0;
;   int n = 0;
;   while (s < 4.0 && n < 12) {
;     s += 0.5 + exp(x * 100.0 * n) * 1e-300 + exp2(y * 200.0);
;     n++;
;   }
;   return s + n;
; }
; double em_trig(double x, double y) {
;   double r;
;   if (x > y) r = sin(x * 1e300) + cos(y) * tanh(x);
;   else r = asin(x * 0.7) + acos(y) + atan(x / y);
;   return r;
; }
; double em_hyp(double x, double y) {
;   return x > 0.0 ? sinh(x * 800.0) : cosh(y * 100.0) - pow(x, y);
; }
; float em_float(float x, float y) {
;   float r = 0.0f;
;   if (x > -2.0f) r = logf(x) + expf(y * 90.0f) + sinf(x) * asinf(y);
;   else r = tanhf(y) + coshf(x * 50.0f) + exp2f(y * 130.0f) + log10f(-x);
;   return r;
; }

target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

; Function Attrs: mustprogress nofree norecurse nounwind willreturn memory(errnomem: write) uwtable
define dso_local double @em_log_branch(double noundef %0, double noundef %1) local_unnamed_addr #0 {
  %3 = fcmp olt double %0, 3.000000e+00
  br i1 %3, label %4, label %10

4:                                                ; preds = %2
  %5 = tail call double @log(double noundef %0) #5, !tbaa !5
  %6 = fsub double %0, %1
  %7 = tail call double @log2(double noundef %6) #5, !tbaa !5
  %8 = tail call double @log10(double noundef %1) #5, !tbaa !5
  %9 = tail call double @llvm.fmuladd.f64(double %7, double %8, double %5)
  br label %10

10:                                               ; preds = %4, %2
  %11 = phi double [ %9, %4 ], [ %1, %2 ]
  ret double %11
}

; Function Attrs: mustprogress nocallback nofree nounwind willreturn memory(errnomem: write)
declare double @log(double noundef) local_unnamed_addr #1

; Function Attrs: mustprogress nocallback nofree nounwind willreturn memory(errnomem: write)
declare double @log2(double noundef) local_unnamed_addr #1

; Function Attrs: mustprogress nocallback nofree nounwind willreturn memory(errnomem: write)
declare double @log10(double noundef) local_unnamed_addr #1

; Function Attrs: mustprogress nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none)
declare double @llvm.fmuladd.f64(double, double, double) #2

; Function Attrs: nofree norecurse nounwind memory(errnomem: write) uwtable
define dso_local double @em_exp_loop(double noundef %0, double noundef %1) local_unnamed_addr #3 {
  %3 = fmul double %0, 1.000000e+02
  %4 = fmul double %1, 2.000000e+02
  br label %5

5:                                                ; preds = %2, %5
  %6 = phi i32 [ 0, %2 ], [ %15, %5 ]
  %7 = phi double [ 0.000000e+00, %2 ], [ %14, %5 ]
  %8 = uitofp nneg i32 %6 to double
  %9 = fmul double %3, %8
  %10 = tail call double @exp(double noundef %9) #5, !tbaa !5
  %11 = tail call double @llvm.fmuladd.f64(double %10, double 1.000000e-300, double 5.000000e-01)
  %12 = tail call double @exp2(double noundef %4) #5, !tbaa !5
  %13 = fadd double %11, %12
  %14 = fadd double %7, %13
  %15 = add nuw nsw i32 %6, 1
  %16 = fcmp olt double %14, 4.000000e+00
  %17 = icmp samesign ult i32 %6, 11
  %18 = select i1 %16, i1 %17, i1 false
  br i1 %18, label %5, label %19, !llvm.loop !9

19:                                               ; preds = %5
  %20 = uitofp nneg i32 %15 to double
  %21 = fadd double %14, %20
  ret double %21
}

; Function Attrs: mustprogress nocallback nofree nounwind willreturn memory(errnomem: write)
declare double @exp(double noundef) local_unnamed_addr #1

; Function Attrs: mustprogress nocallback nofree nounwind willreturn memory(errnomem: write)
declare double @exp2(double noundef) local_unnamed_addr #1

; Function Attrs: mustprogress nofree norecurse nounwind willreturn memory(errnomem: write) uwtable
define dso_local double @em_trig(double noundef %0, double noundef %1) local_unnamed_addr #0 {
  %3 = fcmp ogt double %0, %1
  br i1 %3, label %4, label %10

4:                                                ; preds = %2
  %5 = fmul double %0, 1.000000e+300
  %6 = tail call double @sin(double noundef %5) #5, !tbaa !5
  %7 = tail call double @cos(double noundef %1) #5, !tbaa !5
  %8 = tail call double @tanh(double noundef %0) #5, !tbaa !5
  %9 = tail call double @llvm.fmuladd.f64(double %7, double %8, double %6)
  br label %18

10:                                               ; preds = %2
  %11 = fmul double %0, 0x3FE6666666666666
  %12 = tail call double @asin(double noundef %11) #5, !tbaa !5
  %13 = tail call double @acos(double noundef %1) #5, !tbaa !5
  %14 = fadd double %12, %13
  %15 = fdiv double %0, %1
  %16 = tail call double @atan(double noundef %15) #5, !tbaa !5
  %17 = fadd double %14, %16
  br label %18

18:                                               ; preds = %10, %4
  %19 = phi double [ %9, %4 ], [ %17, %10 ]
  ret double %19
}

; Function Attrs: mustprogress nocallback nofree nounwind willreturn memory(errnomem: write)
declare double @sin(double noundef) local_unnamed_addr #1

; Function Attrs: mustprogress nocallback nofree nounwind willreturn memory(errnomem: write)
declare double @cos(double noundef) local_unnamed_addr #1

; Function Attrs: mustprogress nocallback nofree nounwind willreturn memory(errnomem: write)
declare double @tanh(double noundef) local_unnamed_addr #1

; Function Attrs: mustprogress nocallback nofree nounwind willreturn memory(errnomem: write)
declare double @asin(double noundef) local_unnamed_addr #1

; Function Attrs: mustprogress nocallback nofree nounwind willreturn memory(errnomem: write)
declare double @acos(double noundef) local_unnamed_addr #1

; Function Attrs: mustprogress nocallback nofree nounwind willreturn memory(errnomem: write)
declare double @atan(double noundef) local_unnamed_addr #1

; Function Attrs: mustprogress nofree norecurse nounwind willreturn memory(errnomem: write) uwtable
define dso_local double @em_hyp(double noundef %0, double noundef %1) local_unnamed_addr #0 {
  %3 = fcmp ogt double %0, 0.000000e+00
  br i1 %3, label %4, label %7

4:                                                ; preds = %2
  %5 = fmul double %0, 8.000000e+02
  %6 = tail call double @sinh(double noundef %5) #5, !tbaa !5
  br label %12

7:                                                ; preds = %2
  %8 = fmul double %1, 1.000000e+02
  %9 = tail call double @cosh(double noundef %8) #5, !tbaa !5
  %10 = tail call double @pow(double noundef %0, double noundef %1) #5, !tbaa !5
  %11 = fsub double %9, %10
  br label %12

12:                                               ; preds = %7, %4
  %13 = phi double [ %6, %4 ], [ %11, %7 ]
  ret double %13
}

; Function Attrs: mustprogress nocallback nofree nounwind willreturn memory(errnomem: write)
declare double @sinh(double noundef) local_unnamed_addr #1

; Function Attrs: mustprogress nocallback nofree nounwind willreturn memory(errnomem: write)
declare double @cosh(double noundef) local_unnamed_addr #1

; Function Attrs: mustprogress nocallback nofree nounwind willreturn memory(errnomem: write)
declare double @pow(double noundef, double noundef) local_unnamed_addr #1

; Function Attrs: mustprogress nofree norecurse nounwind willreturn memory(errnomem: write) uwtable
define dso_local float @em_float(float noundef %0, float noundef %1) local_unnamed_addr #0 {
  %3 = fcmp ogt float %0, -2.000000e+00
  br i1 %3, label %4, label %12

4:                                                ; preds = %2
  %5 = tail call float @logf(float noundef %0) #5, !tbaa !5
  %6 = fmul float %1, 9.000000e+01
  %7 = tail call float @expf(float noundef %6) #5, !tbaa !5
  %8 = fadd float %5, %7
  %9 = tail call float @sinf(float noundef %0) #5, !tbaa !5
  %10 = tail call float @asinf(float noundef %1) #5, !tbaa !5
  %11 = tail call float @llvm.fmuladd.f32(float %9, float %10, float %8)
  br label %23

12:                                               ; preds = %2
  %13 = tail call float @tanhf(float noundef %1) #5, !tbaa !5
  %14 = fmul float %0, 5.000000e+01
  %15 = tail call float @coshf(float noundef %14) #5, !tbaa !5
  %16 = fadd float %13, %15
  %17 = fmul float %1, 1.300000e+02
  %18 = tail call float @exp2f(float noundef %17) #5, !tbaa !5
  %19 = fadd float %16, %18
  %20 = fneg float %0
  %21 = tail call float @llvm.log10.f32(float %20), !tbaa !5
  %22 = fadd float %21, %19
  br label %23

23:                                               ; preds = %12, %4
  %24 = phi float [ %11, %4 ], [ %22, %12 ]
  ret float %24
}

; Function Attrs: mustprogress nocallback nofree nounwind willreturn memory(errnomem: write)
declare float @logf(float noundef) local_unnamed_addr #1

; Function Attrs: mustprogress nocallback nofree nounwind willreturn memory(errnomem: write)
declare float @expf(float noundef) local_unnamed_addr #1

; Function Attrs: mustprogress nocallback nofree nounwind willreturn memory(errnomem: write)
declare float @sinf(float noundef) local_unnamed_addr #1

; Function Attrs: mustprogress nocallback nofree nounwind willreturn memory(errnomem: write)
declare float @asinf(float noundef) local_unnamed_addr #1

; Function Attrs: mustprogress nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none)
declare float @llvm.fmuladd.f32(float, float, float) #2

; Function Attrs: mustprogress nocallback nofree nounwind willreturn memory(errnomem: write)
declare float @tanhf(float noundef) local_unnamed_addr #1

; Function Attrs: mustprogress nocallback nofree nounwind willreturn memory(errnomem: write)
declare float @coshf(float noundef) local_unnamed_addr #1

; Function Attrs: mustprogress nocallback nofree nounwind willreturn memory(errnomem: write)
declare float @exp2f(float noundef) local_unnamed_addr #1

; Function Attrs: nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none)
declare float @llvm.log10.f32(float) #4

attributes #0 = { mustprogress nofree norecurse nounwind willreturn memory(errnomem: write) uwtable "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #1 = { mustprogress nocallback nofree nounwind willreturn memory(errnomem: write) "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #2 = { mustprogress nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none) }
attributes #3 = { nofree norecurse nounwind memory(errnomem: write) uwtable "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #4 = { nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none) }
attributes #5 = { nounwind }

!llvm.errno.tbaa = !{!5}

!5 = !{!6, !6, i64 0}
!6 = !{!"int", !7, i64 0}
!7 = !{!"omnipotent char", !8, i64 0}
!8 = !{!"Simple C/C++ TBAA"}
!9 = distinct !{!9, !10, !11}
!10 = !{!"llvm.loop.mustprogress"}
!11 = !{!"llvm.loop.unroll.disable"}
