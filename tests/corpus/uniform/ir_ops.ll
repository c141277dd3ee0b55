; Uniform-control-flow corpus: functions written directly in LLVM IR.
;
; Covers things C cannot express easily: i1 parameters/returns, odd integer
; widths (i3, i17, i33), freeze, fneg, selects on per-lane conditions, integer
; and floating-point intrinsics, nsw/nuw flags that cannot overflow for any
; input, and phis in loops over a uniform trip count.
;
; Every value is defined for every input bit pattern: shift amounts are masked
; below the bit width, nsw/nuw are only used where overflow is impossible,
; freeze is only applied to values that are never poison, and no fast-math
; flags are used.

target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

; i1 parameters and i1 result: boolean algebra plus a select on i1.
define i1 @i1_logic(i1 %a, i1 %b, i1 %c) {
entry:
  %ab = and i1 %a, %b
  %x = xor i1 %ab, %c
  %o = or i1 %x, %b
  %s = select i1 %c, i1 %o, i1 %a
  %n = xor i1 %s, true
  ret i1 %n
}

; i3 arithmetic; the shift amount is reduced to 0..1 (< 3).
define i3 @odd_i3(i3 %a, i3 %b) {
entry:
  %m = mul i3 %a, %b
  %s = add i3 %m, 3
  %amt = and i3 %b, 1
  %sh = shl i3 %s, %amt
  %as = ashr i3 %a, %amt
  %r = xor i3 %sh, %as
  ret i3 %r
}

; i17 values widened to i35, multiplied (nuw nsw provably safe) and
; truncated back; sext of an i3 into i17.
define i17 @odd_i17(i17 %a, i17 %b, i3 %c) {
entry:
  %za = zext i17 %a to i35
  %zb = zext i17 %b to i35
  %p = mul nuw nsw i35 %za, %zb          ; <= (2^17-1)^2 < 2^34 = i35 signed max + 1: no wrap
  %hi = lshr i35 %p, 17
  %t = trunc i35 %hi to i17
  %sc = sext i3 %c to i17
  %r = add i17 %t, %sc
  ret i17 %r
}

; i33 shifts with a masked i8 amount; ashr/lshr/shl on an odd width.
define i33 @odd_i33(i33 %x, i8 %s) {
entry:
  %s5 = and i8 %s, 31
  %amt = zext i8 %s5 to i33
  %l = shl i33 %x, %amt
  %r = lshr i33 %x, %amt
  %a = ashr i33 %x, %amt
  %t = xor i33 %l, %r
  %u = sub i33 %t, %a
  ret i33 %u
}

; freeze of never-poison values, fneg on float and double, fpext/fptrunc.
define float @freeze_fneg(float %f, double %d, i32 %x) {
entry:
  %fx = freeze i32 %x
  %fi = sitofp i32 %fx to float
  %nf = fneg float %f
  %ff = freeze float %nf
  %nd = fneg double %d
  %t = fptrunc double %nd to float
  %m = fmul float %ff, %fi
  %r = fsub float %m, %t
  ret float %r
}

; select on a per-lane (varying) condition computed by fcmp/icmp.
define double @vselect(double %a, double %b, i32 %k) {
entry:
  %c1 = fcmp olt double %a, %b
  %c2 = icmp sgt i32 %k, 100
  %c = xor i1 %c1, %c2
  %s = select i1 %c, double %a, double %b
  %ext = sitofp i32 %k to double
  %c3 = fcmp uno double %s, %ext
  %r = select i1 %c3, double 0.0, double %s
  ret double %r
}

; integer min/max/abs/saturating intrinsics.
define i32 @int_minmax(i32 %a, i32 %b, i32 %c) {
entry:
  %mx = call i32 @llvm.smax.i32(i32 %a, i32 %b)
  %mn = call i32 @llvm.umin.i32(i32 %mx, i32 %c)
  %sm = call i32 @llvm.smin.i32(i32 %b, i32 %c)
  %um = call i32 @llvm.umax.i32(i32 %sm, i32 %a)
  %ab = call i32 @llvm.abs.i32(i32 %a, i1 false)
  %sat = call i32 @llvm.sadd.sat.i32(i32 %mn, i32 %um)
  %us = call i32 @llvm.usub.sat.i32(i32 %sat, i32 %ab)
  ret i32 %us
}

; funnel shifts (amount is taken modulo the width by definition), ctpop,
; ctlz/cttz with zero defined, bswap and bitreverse.
define i64 @bit_intrinsics(i64 %x, i64 %y, i32 %z) {
entry:
  %f1 = call i64 @llvm.fshl.i64(i64 %x, i64 %y, i64 %y)
  %f2 = call i32 @llvm.fshr.i32(i32 %z, i32 %z, i32 13)
  %pc = call i64 @llvm.ctpop.i64(i64 %x)
  %lz = call i32 @llvm.ctlz.i32(i32 %z, i1 false)
  %tz = call i64 @llvm.cttz.i64(i64 %y, i1 false)
  %bs = call i64 @llvm.bswap.i64(i64 %f1)
  %br = call i32 @llvm.bitreverse.i32(i32 %f2)
  %lz64 = zext i32 %lz to i64
  %br64 = zext i32 %br to i64
  %s1 = add i64 %pc, %lz64
  %s2 = add i64 %s1, %tz
  %s3 = xor i64 %s2, %bs
  %s4 = shl i64 %br64, 7
  %r = or i64 %s3, %s4
  ret i64 %r
}

; floating-point intrinsics: minnum/maximum/fmuladd/fma/fabs/copysign/sqrt.
define float @fp_intrinsics(float %a, float %b, float %c) {
entry:
  %mn = call float @llvm.minnum.f32(float %a, float %b)
  %mx = call float @llvm.maximum.f32(float %b, float %c)
  %fm = call float @llvm.fmuladd.f32(float %mn, float %mx, float %c)
  %fa = call float @llvm.fabs.f32(float %fm)
  %sq = call float @llvm.sqrt.f32(float %fa)
  %cs = call float @llvm.copysign.f32(float %sq, float %a)
  %r = call float @llvm.fma.f32(float %cs, float %b, float %a)
  ret float %r
}

; nsw/nuw flags that can never wrap: operands are zero-extended i8/i16.
define i32 @safe_flags(i8 %a, i8 %b, i16 %c, i16 %d) {
entry:
  %za = zext i8 %a to i32
  %zb = zext i8 %b to i32
  %zc = zext i16 %c to i32
  %zd = zext i16 %d to i32
  %s = add nuw nsw i32 %za, %zb           ; <= 510
  %p = mul nuw nsw i32 %za, %zb           ; <= 65025
  %q = sub nsw i32 %zc, %zd               ; in [-65535, 65535]
  %sh = shl nuw nsw i32 %za, 8            ; <= 65280
  %t = add nsw i32 %p, %q                 ; in [-65535, 130560]
  %u = or i32 %s, %sh
  %r = xor i32 %t, %u
  ret i32 %r
}

; odd-width conversions to floating point, and an i1 compare result.
define i1 @odd_to_fp(i17 %a, i33 %b, float %f) {
entry:
  %fa = uitofp i17 %a to float
  %db = sitofp i33 %b to double
  %fb = fptrunc double %db to float
  %s = fadd float %fa, %fb
  %c = fcmp ult float %s, %f
  ret i1 %c
}

; Loop over a uniform trip count with phis (x varying, n uniform).
; VARIANT-PARAMS: ir_powi vu
define float @ir_powi(float %x, i32 %n) {
entry:
  %m = and i32 %n, 31
  %z = icmp eq i32 %m, 0
  br i1 %z, label %exit, label %loop

loop:
  %i = phi i32 [ 0, %entry ], [ %i.next, %loop ]
  %acc = phi float [ 1.0, %entry ], [ %acc.next, %loop ]
  %acc.next = fmul float %acc, %x
  %i.next = add nuw nsw i32 %i, 1
  %done = icmp eq i32 %i.next, %m
  br i1 %done, label %exit, label %loop

exit:
  %r = phi float [ 1.0, %entry ], [ %acc.next, %loop ]
  ret float %r
}

; Uniform loop with a uniform branch inside the body and varying phis.
; VARIANT-PARAMS: ir_uniform_diamond vvu
define i32 @ir_uniform_diamond(i32 %x, i32 %y, i32 %n) {
entry:
  %m = and i32 %n, 15
  br label %header

header:
  %i = phi i32 [ 0, %entry ], [ %i.next, %latch ]
  %a = phi i32 [ %x, %entry ], [ %a.next, %latch ]
  %cont = icmp ult i32 %i, %m
  br i1 %cont, label %body, label %exit

body:
  %bit = and i32 %i, 1
  %odd = icmp ne i32 %bit, 0
  br i1 %odd, label %then, label %else

then:
  %t1 = mul i32 %a, 3
  %t2 = add i32 %t1, %y
  br label %latch

else:
  %e1 = xor i32 %a, %y
  %e2 = call i32 @llvm.fshl.i32(i32 %e1, i32 %e1, i32 5)
  br label %latch

latch:
  %a.next = phi i32 [ %t2, %then ], [ %e2, %else ]
  %i.next = add nuw nsw i32 %i, 1
  br label %header

exit:
  ret i32 %a
}

; Constant-trip-count loop (uniform with every parameter varying).
define i64 @ir_const_loop(i64 %x) {
entry:
  br label %loop

loop:
  %i = phi i32 [ 0, %entry ], [ %i.next, %loop ]
  %h = phi i64 [ 1469598103934665603, %entry ], [ %h.next, %loop ]
  %hx = xor i64 %h, %x
  %h.next = mul i64 %hx, 1099511628211
  %i.next = add nuw nsw i32 %i, 1
  %done = icmp eq i32 %i.next, 6
  br i1 %done, label %exit, label %loop

exit:
  ret i64 %h.next
}

declare i32 @llvm.smax.i32(i32, i32)
declare i32 @llvm.smin.i32(i32, i32)
declare i32 @llvm.umax.i32(i32, i32)
declare i32 @llvm.umin.i32(i32, i32)
declare i32 @llvm.abs.i32(i32, i1)
declare i32 @llvm.sadd.sat.i32(i32, i32)
declare i32 @llvm.usub.sat.i32(i32, i32)
declare i64 @llvm.fshl.i64(i64, i64, i64)
declare i32 @llvm.fshl.i32(i32, i32, i32)
declare i32 @llvm.fshr.i32(i32, i32, i32)
declare i64 @llvm.ctpop.i64(i64)
declare i32 @llvm.ctlz.i32(i32, i1)
declare i64 @llvm.cttz.i64(i64, i1)
declare i64 @llvm.bswap.i64(i64)
declare i32 @llvm.bitreverse.i32(i32)
declare float @llvm.minnum.f32(float, float)
declare float @llvm.maximum.f32(float, float)
declare float @llvm.fmuladd.f32(float, float, float)
declare float @llvm.fma.f32(float, float, float)
declare float @llvm.fabs.f32(float)
declare float @llvm.sqrt.f32(float)
declare float @llvm.copysign.f32(float, float)

; C++ `linear(ref(x):1)` on `float &x` (GCC mangles it `R4`): lane k's
; reference is `&x + 4k` bytes, one pointer in the clone's signature.
; VARIANT-PARAMS: ir_ref_double R4
define float @ir_ref_double(ptr %x) {
  %v = load float, ptr %x, align 4
  %d = fmul float %v, 2.0
  store float %d, ptr %x, align 4
  %r = fadd float %v, 1.0
  ret float %r
}

; C++ `linear(val(x):1)` on `int &x` (GCC mangles it `L`): every lane has its
; own reference (GCC passes a vector of pointers).
; VARIANT-PARAMS: ir_val_inc L
define i32 @ir_val_inc(ptr %x) {
  %v = load i32, ptr %x, align 4
  %r = add i32 %v, 1
  ret i32 %r
}
