; Regression: fuzz program seed 8010719 after default<O2>. The scalar code divides a
; uniform <2 x i32> vector (SLP-vectorized); the safe-divisor select for a masked clone
; used an integer constant 1 of the vector type (an i0), which is invalid IR. Fixed with a
; vector of ones.

define range(i32 -2147483647, -2147483648) i32 @fuzz_8010719(i32 %p0) local_unnamed_addr #0 {
entry:
  %t12 = shl i32 %p0, 1
  %t13.i = tail call double @llvm.sqrt.f64(double 0xFFF8000000000000)
  %t57.i = fcmp oge double %t13.i, 0xC1E0000000000000
  %t58.i = fcmp olt double %t13.i, 0x41E0000000000000
  %t59.i = and i1 %t57.i, %t58.i
  %t60.i = fptosi double %t13.i to i32
  %t61.i = select i1 %t59.i, i32 %t60.i, i32 -2147483648
  %t63.i = tail call i32 @llvm.umax.i32(i32 %t61.i, i32 1)
  %0 = insertelement <2 x i32> <i32 31, i32 poison>, i32 %t61.i, i64 1
  %1 = insertelement <2 x i32> <i32 poison, i32 14>, i32 %t63.i, i64 0
  %2 = urem <2 x i32> %0, %1
  %3 = extractelement <2 x i32> %2, i64 0
  %4 = extractelement <2 x i32> %2, i64 1
  %t96.i = xor i32 %4, 9
  %t97.i = or i32 %3, %t96.i
  %t17 = zext nneg i32 %t97.i to i64
  %t87.i = tail call i32 @llvm.umax.i32(i32 %t97.i, i32 1)
  %t88.i86 = urem i32 %t61.i, %t87.i
  %t95.i = add nsw i32 %t97.i, -5
  %t96.i87 = xor i32 %t95.i, %t88.i86
  %t97.i88 = or i32 %t96.i87, %3
  %t38 = mul i32 %t97.i88, %p0
  %t38.fr = freeze i32 %t38
  %t43 = icmp ugt i32 %t12, 327679
  br i1 %t43, label %if.then1, label %sw.end32

if.then1:                                         ; preds = %entry
  %t45.inv.not = icmp eq i32 %t97.i, 0
  %t51 = select i1 %t45.inv.not, i32 0, i32 %t38.fr
  %t52 = or i32 %t51, %p0
  %t53 = icmp sgt i32 %t52, 154
  %p0.t12 = select i1 %t53, i32 %p0, i32 %t12
  %.t12 = select i1 %t53, i32 5, i32 %t12
  %t62 = icmp slt i32 %t38.fr, 1
  %t65 = select i1 %t62, i32 %p0.t12, i32 %t38.fr
  %t66 = and i32 %t65, %p0.t12
  %t67.not = icmp eq i32 %p0.t12, %t66
  br i1 %t67.not, label %if.end9, label %loop.exit13.split

loop.exit13.split:                                ; preds = %if.then1
  %t88.i108 = urem i32 %t61.i, 13
  %t96.i109 = xor i32 %t88.i108, 8
  %t97.i110 = or i32 %3, %t96.i109
  %t97.i99 = or i32 %3, -4
  %5 = mul nsw i32 %t97.i99, %t97.i110
  %t73 = sub nsw i32 0, %5
  %t70.i123 = tail call i32 @llvm.smax.i32(i32 %t38.fr, i32 0)
  %t87.i124 = tail call i32 @llvm.smax.i32(i32 %t38.fr, i32 1)
  %t88.i125 = urem i32 %t61.i, %t87.i124
  %t95.i126 = add nsw i32 %t70.i123, -5
  %t96.i127 = xor i32 %t88.i125, %t95.i126
  %t97.i128 = or i32 %t96.i127, %3
  br label %if.end9

if.end9:                                          ; preds = %loop.exit13.split, %if.then1
  %x0.1 = phi i32 [ %t38.fr, %loop.exit13.split ], [ %p0.t12, %if.then1 ]
  %x1.1 = phi i64 [ 6033908172882872918, %loop.exit13.split ], [ 0, %if.then1 ]
  %x2.2 = phi i32 [ %t73, %loop.exit13.split ], [ %.t12, %if.then1 ]
  %x4.1 = phi i32 [ %t97.i128, %loop.exit13.split ], [ %t38.fr, %if.then1 ]
  %t110 = mul nuw nsw i64 %t17, %t17
  %t111 = mul i64 %t110, %x1.1
  %t112.not = icmp ugt i64 %t111, %t17
  br i1 %t112.not, label %if.end21, label %if.then19

if.then19:                                        ; preds = %if.end9
  %t118 = icmp eq i32 %x2.2, 6
  %t125 = uitofp i32 %x4.1 to float
  %t126 = fcmp oge float %t125, 0xC1E0000000000000
  %t127 = fcmp olt float %t125, 0x41E0000000000000
  %t128 = and i1 %t126, %t127
  %t129 = fptosi float %t125 to i32
  %spec.select = select i1 %t128, i32 %t129, i32 -1
  %t131 = select i1 %t118, i32 -3, i32 %spec.select
  %t132.not = icmp ugt i32 %x4.1, %t131
  %spec.select77 = select i1 %t132.not, i32 %x4.1, i32 %x2.2
  br label %if.end21

if.end21:                                         ; preds = %if.then19, %if.end9
  %x4.2 = phi i32 [ %x4.1, %if.end9 ], [ %spec.select77, %if.then19 ]
  %t136 = mul i32 %x4.2, %x4.2
  %t139 = and i32 %x2.2, %x0.1
  %t140 = xor i32 %t136, %t139
  br label %sw.end32

sw.end32:                                         ; preds = %if.end21, %entry
  %x2.0 = phi i32 [ %t140, %if.end21 ], [ %t12, %entry ]
  %x4.0 = phi i32 [ %x4.2, %if.end21 ], [ %t38.fr, %entry ]
  %t146 = and i32 %x4.0, 31
  %t147 = shl i32 %x2.0, %t146
  %t201 = or i32 %t147, %x2.0
  %t208 = tail call i32 @llvm.umax.i32(i32 %x2.0, i32 1)
  %t209 = srem i32 %t201, %t208
  ret i32 %t209
}

declare double @llvm.sqrt.f64(double) #1

declare i32 @llvm.umax.i32(i32, i32) #2

declare i32 @llvm.smax.i32(i32, i32) #2

attributes #0 = { mustprogress nofree norecurse nosync nounwind willreturn memory(none) }
attributes #1 = { mustprogress nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none) }
attributes #2 = { nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none) }
