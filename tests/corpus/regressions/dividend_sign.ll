; Regression: fuzz program seed 6046012 after default<O2>. In inactive lanes the dividend
; `mul nsw %x, %x` is poison; LLVM 22 took it as non-negative and skipped the sign
; extension before `idiv` (divide error while dividing by 1). Fixed by freezing
; dividends as well as divisors.

; Function Attrs: nofree norecurse nosync nounwind memory(none)
define i32 @fuzz_6046012(float %p0, float %p1, double %p2, i64 %p3) local_unnamed_addr #0 {
entry:
  %t8 = tail call i64 @llvm.umax.i64(i64 %p3, i64 1)
  %t9 = udiv i64 %p3, %t8
  %t10 = tail call i64 @llvm.smax.i64(i64 %t9, i64 0)
  %t12 = sitofp i64 %p3 to float
  %t14 = icmp sgt i64 %t9, 4
  %t17 = select i1 %t14, i64 %p3, i64 %t10
  %t19 = fcmp oge double %p2, 0xC1E0000000000000
  %t20 = fcmp olt double %p2, 0x41E0000000000000
  %t21 = and i1 %t19, %t20
  %t22 = fptosi double %p2 to i32
  %0 = sext i32 %t22 to i64
  %t24 = select i1 %t21, i64 %0, i64 0
  %t25 = tail call i64 @llvm.smax.i64(i64 %t17, i64 %t24)
  %t27.old = icmp slt i64 %p3, 9
  br i1 %t27.old, label %loop.body4.preheader, label %loop.exit6

loop.body4.preheader:                             ; preds = %entry
  %t74 = fcmp oge float %p0, 0xC1E0000000000000
  %t75 = fcmp olt float %p0, 0x41E0000000000000
  %t76 = and i1 %t74, %t75
  %t77 = fptosi float %p0 to i32
  %spec.select2 = select i1 %t76, i32 %t77, i32 -2147483648
  %t103 = fptrunc double %p2 to float
  br label %loop.body4

loop.body4:                                       ; preds = %loop.body4.preheader, %loop.latch5
  %x1.0 = phi float [ %t189, %loop.latch5 ], [ %p1, %loop.body4.preheader ]
  %x3.0 = phi i64 [ %x3.1, %loop.latch5 ], [ %p3, %loop.body4.preheader ]
  %it1.0 = phi i32 [ %t198, %loop.latch5 ], [ 0, %loop.body4.preheader ]
  %t30.not = icmp sgt i64 %t25, %x3.0
  br i1 %t30.not, label %if.end9, label %if.then7

if.then7:                                         ; preds = %loop.body4
  %t33 = tail call float @llvm.sqrt.f32(float %x1.0)
  %t34 = fdiv float %t12, %t33
  %t36 = fcmp ult float %t34, %x1.0
  br i1 %t36, label %if.then10, label %if.then19

if.then10:                                        ; preds = %if.then7
  %1 = sdiv i32 %t22, 31
  %t49 = select i1 %t21, i32 %1, i32 -69273666
  %t61 = select i1 %t76, i32 %t77, i32 42
  %t62 = icmp eq i32 %t61, 0
  br i1 %t62, label %div.end18, label %div.ok17

div.ok17:                                         ; preds = %if.then10
  %t51 = fcmp oge float %t12, 0xC1E0000000000000
  %t52 = fcmp olt float %t12, 0x41E0000000000000
  %t53 = and i1 %t51, %t52
  %t54 = fptosi float %t12 to i32
  %t55 = select i1 %t53, i32 %t54, i32 -2147483648
  %t63 = urem i32 %t55, %t61
  br label %div.end18

common.ret:                                       ; preds = %loop.exit6, %div.end18
  %common.ret.op = phi i32 [ %t65, %div.end18 ], [ %t224, %loop.exit6 ]
  ret i32 %common.ret.op

div.end18:                                        ; preds = %div.ok17, %if.then10
  %t64 = phi i32 [ 0, %if.then10 ], [ %t63, %div.ok17 ]
  %t65 = sub i32 %t49, %t64
  br label %common.ret

if.then19:                                        ; preds = %if.then7
  %t68 = fcmp oge float %x1.0, 0xC1E0000000000000
  %t69 = fcmp olt float %x1.0, 0x41E0000000000000
  %t70 = and i1 %t68, %t69
  %t71 = fptosi float %x1.0 to i32
  %t72 = select i1 %t70, i32 %t71, i32 -1
  %t79 = sub i32 %t72, %spec.select2
  %t80 = sext i32 %t79 to i64
  %t83 = mul nsw i64 %x3.0, %x3.0
  %t90 = tail call i64 @llvm.umax.i64(i64 %x3.0, i64 1)
  %t91 = srem i64 %t83, %t90
  %t92 = and i64 %t91, 63
  %t93 = ashr i64 %t80, %t92
  br label %if.end9

if.end9:                                          ; preds = %if.then19, %loop.body4
  %x3.1 = phi i64 [ %t93, %if.then19 ], [ %x3.0, %loop.body4 ]
  %t101 = fadd float %p0, %x1.0
  %t104 = fdiv float %t101, %t103
  %t105 = fcmp oeq float %p0, %t104
  br i1 %t105, label %if.else34, label %irr.b28

if.else34:                                        ; preds = %if.end9, %irr.b28
  %x1.2 = phi float [ %x1.0, %if.end9 ], [ %t189, %irr.b28 ]
  %t148 = and i64 %t25, 63
  %t149 = lshr i64 4294966367, %t148
  %t150 = uitofp nneg i64 %t149 to double
  %t153 = fcmp oge float %x1.2, %p0
  %t155 = fcmp une float %x1.2, 0.000000e+00
  %t156.not = or i1 %t153, %t155
  %2 = xor i64 %t25, 42
  %t16629 = icmp ult i64 %2, 4294966367
  %t166 = select i1 %t156.not, i1 %t16629, i1 false
  br i1 %t166, label %loop.exit6, label %loop.latch5.thread

loop.latch5.thread:                               ; preds = %if.else34
  %t168 = fpext float %x1.2 to double
  %t173 = fsub double %t168, %t168
  %t174 = fadd double %p2, %t173
  %t175 = fadd double %t174, %t168
  %.pre = fptosi double %t175 to i32
  br label %loop.exit6

irr.b28:                                          ; preds = %if.end9
  %t183 = sitofp i64 %x3.1 to float
  %t184 = fneg float %t183
  %t188 = uitofp i64 %x3.1 to float
  %t189 = fmul float %t184, %t188
  %t195 = icmp ult i64 %x3.1, %t25
  br i1 %t195, label %if.else34, label %loop.latch5

loop.latch5:                                      ; preds = %irr.b28
  %t198 = add nuw nsw i32 %it1.0, 1
  %t199 = icmp samesign ult i32 %it1.0, 3
  %t27 = icmp slt i64 %x3.1, 9
  %or.cond = select i1 %t199, i1 %t27, i1 false
  br i1 %or.cond, label %loop.body4, label %loop.exit6

loop.exit6:                                       ; preds = %loop.latch5, %loop.latch5.thread, %if.else34, %entry
  %t215.pre-phi = phi i32 [ %t22, %entry ], [ %.pre, %loop.latch5.thread ], [ %t22, %if.else34 ], [ %t22, %loop.latch5 ]
  %x1.1 = phi float [ %p1, %entry ], [ %x1.2, %loop.latch5.thread ], [ %x1.2, %if.else34 ], [ %t189, %loop.latch5 ]
  %x2.1 = phi double [ %p2, %entry ], [ %t175, %loop.latch5.thread ], [ %p2, %if.else34 ], [ %p2, %loop.latch5 ]
  %x4.1 = phi double [ %p2, %entry ], [ %t168, %loop.latch5.thread ], [ %t150, %if.else34 ], [ %p2, %loop.latch5 ]
  %t202 = fadd float %p0, %x1.1
  %t204 = fcmp oge float %t202, 0xC1E0000000000000
  %t205 = fcmp olt float %t202, 0x41E0000000000000
  %t206 = and i1 %t204, %t205
  %t207 = fptosi float %t202 to i32
  %3 = and i32 %t207, 31
  %4 = shl i32 32, %3
  %t210 = select i1 %t206, i32 %4, i32 32768
  %t212 = fcmp oge double %x2.1, 0xC1E0000000000000
  %t213 = fcmp olt double %x2.1, 0x41E0000000000000
  %t214 = and i1 %t212, %t213
  %t216 = select i1 %t214, i32 %t215.pre-phi, i32 42
  %t217 = mul i32 %t210, %t216
  %t219 = fcmp oge double %x4.1, 0xC1E0000000000000
  %t220 = fcmp olt double %x4.1, 0x41E0000000000000
  %t221 = and i1 %t219, %t220
  %t222 = fptosi double %x4.1 to i32
  %t223 = select i1 %t221, i32 %t222, i32 -2147483648
  %t224 = mul i32 %t217, %t223
  br label %common.ret
}

; Function Attrs: mustprogress nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none)
declare float @llvm.sqrt.f32(float) #1

; Function Attrs: mustprogress nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none)
declare i64 @llvm.smax.i64(i64, i64) #1

; Function Attrs: nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none)
declare i64 @llvm.umax.i64(i64, i64) #2

attributes #0 = { nofree norecurse nosync nounwind memory(none) }
attributes #1 = { mustprogress nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none) }
attributes #2 = { nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none) }
