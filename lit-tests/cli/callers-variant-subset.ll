; The caller side points calls only at variants that exist (callers.rs,
; `built_or_promised`): with `--variant` naming one clone, the recursive
; call in `fib` (a `declare simd` function defined here whose variants are
; not built) gets no `vector-function-abi-variant`, so the output links
; with no undefined `_ZGVdN8v_fib`. Calls of a function only declared here
; keep the variants its declaration promises (its own module builds them).
;
; RUN: %batchify %s -S -o %t.ll --variant _ZGVdN8uuv_smoothstep --report 2> %t.err
; RUN: FileCheck %s < %t.ll
; RUN: not grep -F '_ZGVdN8v_fib(' %t.ll
; RUN: FileCheck %s --check-prefix=NOTE < %t.err
; RUN: %llc -O2 -filetype=obj %t.ll -o %t.o
; RUN: llvm-nm-22 %t.o | FileCheck %s --check-prefix=SYMS
;
; Building every variant (no --variant) points fib's call at them.
; RUN: %batchify %s -S -o %t.all.ll
; RUN: FileCheck %s --check-prefix=ALL < %t.all.ll

; CHECK: define i32 @fib(
; CHECK: call i32 @ext({{.*}}) [[EXT:#[0-9]+]]
; CHECK: define <8 x float> @_ZGVdN8uuv_smoothstep(
; CHECK: attributes [[EXT]] = { {{.*}}"vector-function-abi-variant"="_ZGVbN4v_ext(_ZGVbN4v_ext)"

; NOTE: calls of `fib` do not use _ZGVdN8v_fib: not built in this module

; SYMS-NOT: U _ZGVdN8v_fib
; SYMS: T _ZGVdN8uuv_smoothstep
; SYMS-NOT: U _ZGVdN8v_fib

; ALL: define <8 x i32> @_ZGVdN8v_fib(
; ALL: "vector-function-abi-variant"="_ZGVdN8v_fib(_ZGVdN8v_fib)"

target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

define float @smoothstep(float %e0, float %e1, float %x) #0 {
  %d = fsub float %e1, %e0
  %n = fsub float %x, %e0
  %t = fdiv float %n, %d
  %c = call float @llvm.minnum.f32(float %t, float 1.0)
  %c0 = call float @llvm.maxnum.f32(float %c, float 0.0)
  %sq = fmul float %c0, %c0
  %k = fmul float %c0, -2.0
  %k3 = fadd float %k, 3.0
  %r = fmul float %sq, %k3
  ret float %r
}

define i32 @fib(i32 %n) #1 {
entry:
  %small = icmp slt i32 %n, 2
  br i1 %small, label %done, label %rec
rec:
  %a = add nsw i32 %n, -1
  %fa = call i32 @fib(i32 %a) #3
  %b = add nsw i32 %n, -2
  %fb = call i32 @fib(i32 %b) #3
  %s = add nsw i32 %fa, %fb
  %e = call i32 @ext(i32 %s) #3
  br label %done
done:
  %r = phi i32 [ %n, %entry ], [ %e, %rec ]
  ret i32 %r
}

declare i32 @ext(i32) #2
declare float @llvm.minnum.f32(float, float)
declare float @llvm.maxnum.f32(float, float)

attributes #0 = { nounwind "_ZGVdN8uuv_smoothstep" }
attributes #1 = { nounwind memory(none) "_ZGVdN8v_fib" "target-features"="+avx,+avx2" }
attributes #2 = { nounwind memory(none) "_ZGVbN4v_ext" }
attributes #3 = { nounwind memory(none) }
