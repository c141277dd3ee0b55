; A pointer with a variable linear step (`ls<pos>`, OpenMP's `linear(p:s)`
; with a uniform `s`): the step counts elements of the pointee type (GCC
; 12's clones multiply it by the element's size: `_ZGVbN4uls0_f` reads
; lane k at p + 4*k*s for a float *p), and LLVM IR's pointers do not say
; that size, so batchify builds no such clone. Named, it is one error line
; and no output; asked for by the function's `declare simd` attributes, it
; is skipped with a warning and the function's other variants are built. An
; integer index with a variable step (`ls` on an i32) is built.
;
; RUN: rm -f %t.out && not %batchify %s -o %t.out --variant _ZGVbN4uls0_f 2> %t.err
; RUN: count 1 < %t.err && test ! -e %t.out
; RUN: FileCheck %s --check-prefix=NAMED < %t.err
; RUN: %batchify %s -S -o %t.ll 2> %t.auto.err
; RUN: FileCheck %s --check-prefix=AUTO < %t.ll
; RUN: FileCheck %s --check-prefix=AUTO-WARN < %t.auto.err

target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

define float @f(i32 %s, ptr %p) #0 {
  %v = load float, ptr %p, align 4
  ret float %v
}

define float @g(ptr %t, i32 %i, i32 %s) #1 {
  %w = sext i32 %i to i64
  %a = getelementptr inbounds float, ptr %t, i64 %w
  %v = load float, ptr %a, align 4
  ret float %v
}

attributes #0 = { "_ZGVbN4uls0_f" "_ZGVbN4vv_f" }
attributes #1 = { "_ZGVbN4uls2u_g" }

; NAMED: {{^}}batchify: error: variant `_ZGVbN4uls0_f` does not fit its scalar function: parameter 1 is a pointer with a variable linear step (`ls`), which counts elements of the pointee type (GCC's clones multiply it by the element's size), and LLVM IR does not say that size; use a constant step (`linear(p:2)`) or a uniform pointer with a linear integer index{{$}}

; AUTO-NOT:  @_ZGVbN4uls0_f(
; AUTO:      define {{.*}}<4 x float> @_ZGVbN4vv_f(
; AUTO:      define {{.*}}<4 x float> @_ZGVbN4uls2u_g(
; AUTO-WARN: batchify: warning: variant `_ZGVbN4uls0_f` does not fit its scalar function: parameter 1 is a pointer with a variable linear step
