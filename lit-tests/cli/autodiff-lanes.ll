; The lanes of `--function` clones with `--for-autodiff` (docs/cli.md, -n):
; without -n, one register of the characteristic type on x86 ISAs (4
; doubles or 8 floats on AVX2, 8 doubles on AVX-512, 2 doubles on SSE),
; 8 for the target-independent ISA and without --for-autodiff; -n wins.
; The same through the plugin (`width=` wins there).
;
; RUN: %batchify %s -S -o - --function f --function g --isa avx2 --for-autodiff | FileCheck %s --check-prefix=AVX2
; RUN: %batchify %s -S -o - --function f --function g --isa avx512 --for-autodiff | FileCheck %s --check-prefix=AVX512
; RUN: %batchify %s -S -o - --function f --isa sse --for-autodiff | FileCheck %s --check-prefix=SSE
; RUN: %batchify %s -S -o - --function f --for-autodiff | FileCheck %s --check-prefix=GENERIC
; RUN: %batchify %s -S -o - --function f --isa avx2 | FileCheck %s --check-prefix=DEFAULT
; RUN: %batchify %s -S -o - --function f --isa avx2 --for-autodiff -n 8 | FileCheck %s --check-prefix=DEFAULT
; The plugin's function= clones take the same default.
; RUN: %opt -load-pass-plugin=%plugin -passes='batchify<function=f;function=g;isa=avx2;for-autodiff>' %s -S | FileCheck %s --check-prefix=AVX2
; RUN: %opt -load-pass-plugin=%plugin -passes='batchify<function=f;isa=avx2;for-autodiff;width=8>' %s -S | FileCheck %s --check-prefix=DEFAULT

; AVX2: define <4 x double> @_ZGVdN4vv_f(
; AVX2: define <8 x float> @_ZGVdN8v_g(
; AVX512: define <8 x double> @_ZGVeN8vv_f(
; AVX512: define <16 x float> @_ZGVeN16v_g(
; SSE: define <2 x double> @_ZGVbN2vv_f(
; GENERIC: define <8 x double> @_ZGV_LLVM_N8vv_f(
; DEFAULT: define void @_ZGVdN8vv_f(

define double @f(double %x, double %y) {
  %m = fmul double %x, %y
  ret double %m
}

define float @g(float %x) {
  %h = fmul float %x, 0.5
  ret float %h
}
