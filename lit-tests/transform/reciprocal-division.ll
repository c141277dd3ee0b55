; Unsigned 32-bit remainder in a loop by a divisor that is a parameter
; (`modpow`'s `% m`): the clone computes the divisor's reciprocal in
; `double` once, in the entry block, and each trip multiplies by it,
; truncates, and corrects the quotient by one step (`r >= d`, which
; InstCombine writes as `r < d` picking 0), instead of
; dividing every trip (emit/division.rs has the proof that this is exact;
; crates/batchify-testkit's corpus `modpow_u32` and `remdiv_walk` check it
; by execution). A division outside any loop keeps the `fdiv`.
;
; RUN: %batchify %s -S -o %t.ll --function powmod --function once -n 8 --no-fallback
; RUN: FileCheck %s < %t.ll

define i32 @powmod(i32 %b0, i32 %e0, i32 %m) {
entry:
  %r0 = urem i32 1, %m
  br label %loop

loop:
  %b = phi i32 [ %b0, %entry ], [ %b1, %loop ]
  %e = phi i32 [ %e0, %entry ], [ %e1, %loop ]
  %r = phi i32 [ %r0, %entry ], [ %r1, %loop ]
  %bb = mul i32 %b, %b
  %b1 = urem i32 %bb, %m
  %rb = mul i32 %r, %b
  %r1 = urem i32 %rb, %m
  %e1 = lshr i32 %e, 1
  %more = icmp ne i32 %e1, 0
  br i1 %more, label %loop, label %done

done:
  ret i32 %r1
}

define i32 @once(i32 %a, i32 %d) {
  %q = udiv i32 %a, %d
  ret i32 %q
}

; CHECK-LABEL: define <8 x i32> @_ZGV_LLVM_N8vvv_powmod(
; CHECK-SAME:    <8 x i32> %e0, <8 x i32> [[M:%[^)]+]])
; CHECK:         [[MF:%.*]] = uitofp <8 x i32> [[M]] to <8 x double>
; CHECK:         [[INV:%.*]] = fdiv <8 x double> splat (double 1.000000e+00), [[MF]]
; CHECK:       loop.top:
; CHECK-NOT:     fdiv
; CHECK:         fmul <8 x double> {{.*}}[[INV]]
; CHECK-NOT:     fdiv
; CHECK:         icmp ult <8 x i32> {{%.*}}, [[M]]
; CHECK-NOT:     fdiv
; CHECK:         {{^}}}

; CHECK-LABEL: define <8 x i32> @_ZGV_LLVM_N8vv_once(
; CHECK-NOT:     fmul
; CHECK:         fdiv <8 x double>
; CHECK-NOT:     fmul
; CHECK:         {{^}}}
