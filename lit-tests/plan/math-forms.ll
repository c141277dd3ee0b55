; --print-plan: math calls. A correctly rounded libm function (`sqrtf`)
; is exact vector code; `expf` runs once per lane by default and calls
; libmvec's `_ZGVdN8v_expf` with `--veclib libmvec`; `llvm.exp` keeps its
; vector intrinsic; a varying `frem` is exact vector code; a 32-bit
; division by a varying divisor goes through `double`, a 64-bit one is a
; guarded division (divisor 1 in inactive lanes).
;
; RUN: %batchify %s -o /dev/null --print-plan --variant _ZGVdN8vv_math 2> %t
; RUN: FileCheck %s --check-prefixes=CHECK,EXACT < %t
; RUN: %batchify %s -o /dev/null --print-plan --veclib libmvec --variant _ZGVdN8vv_math 2> %t.mvec
; RUN: FileCheck %s --check-prefixes=CHECK,MVEC < %t.mvec

declare float @sqrtf(float) #0
declare float @expf(float) #0
declare float @llvm.exp.f32(float)

define float @math(float %x, i32 %k) {
  %s = call float @sqrtf(float %x)
  %e = call float @expf(float %s)
  %f = call float @llvm.exp.f32(float %e)
  %r = frem float %f, %x
  %q = sdiv i32 %k, %k
  %k64 = sext i32 %k to i64
  %q64 = udiv i64 %k64, %k64
  %t = trunc i64 %q64 to i32
  %u = add i32 %q, %t
  %uf = sitofp i32 %u to float
  %out = fadd float %r, %uf
  ret float %out
}

attributes #0 = { nounwind willreturn memory(none) }

; CHECK-LABEL: plan of `math` for `_ZGVdN8vv_math`
; CHECK-NEXT:  #0: mask full
; CHECK:         widen exact math: %s = call float @sqrtf(float %x)
; EXACT-NEXT:    per lane: %e = call float @expf(float %s)
; MVEC-NEXT:     widen vector math: %e = call float @expf(float %s)
; CHECK-NEXT:    widen vector math: %f = call float @llvm.exp.f32(float %e)
; CHECK-NEXT:    widen frem (exact): %r = frem float %f, %x
; CHECK-NEXT:    widen division through double: %q = sdiv i32 %k, %k
; CHECK:         widen guarded division: %q64 = udiv i64 %k64, %k64
