; Pass parameters, -batchify-* options, idempotence and parameter errors.
;
; Parameters choose the explicit clones (like the CLI's --function, -n, --isa).
; RUN: %opt -load-pass-plugin=%plugin -passes='batchify<function=twice;width=4;isa=avx2>' %s -S \
; RUN:   | FileCheck %s --check-prefix=PARAMS
; PARAMS: define <4 x float> @_ZGVdN4v_twice(<4 x float> %x)
; PARAMS-NOT: define {{.*}}@_ZGVbN2v_twice
;
; The same as command-line options (clang: -mllvm -batchify-...).
; RUN: %opt -load-pass-plugin=%plugin -passes=batchify -batchify-function=twice -batchify-width=4 \
; RUN:   -batchify-isa=avx2 %s -S | FileCheck %s --check-prefix=PARAMS
;
; `for-autodiff` (docs/autodiff.md) is a flag parameter and an option.
; RUN: %opt -load-pass-plugin=%plugin -passes='batchify<function=twice;width=4;isa=avx2;for-autodiff>' %s -S \
; RUN:   | FileCheck %s --check-prefix=PARAMS
; RUN: %opt -load-pass-plugin=%plugin -passes=batchify -batchify-function=twice -batchify-width=4 \
; RUN:   -batchify-isa=avx2 -batchify-for-autodiff %s -S | FileCheck %s --check-prefix=PARAMS
; RUN: not %opt -load-pass-plugin=%plugin -passes='batchify<for-autodiff=1>' %s -disable-output 2>&1 \
; RUN:   | FileCheck %s --check-prefix=FLAG
; FLAG: batchify: error: unknown pass parameter `for-autodiff=1`
;
; `isa=` alone restricts the attribute-requested variants to one ISA.
; RUN: %opt -load-pass-plugin=%plugin -passes='batchify<isa=sse>' %s -S | FileCheck %s --check-prefix=ISA
; ISA: define <2 x float> @_ZGVbN2v_twice(
; ISA-NOT: define {{.*}}@_ZGVdN8v_twice(
;
; Running twice changes nothing the second time.
; RUN: %opt -load-pass-plugin=%plugin -passes=batchify %s -S -o %t.once.ll
; RUN: %opt -load-pass-plugin=%plugin -passes=batchify,batchify %s -S -o %t.twice.ll
; RUN: diff %t.once.ll %t.twice.ll
;
; `report` prints the CLI's --report lines on stderr.
; RUN: %opt -load-pass-plugin=%plugin -passes='batchify<report>' %s -disable-output 2>&1 \
; RUN:   | FileCheck %s --check-prefix=REPORT
; REPORT: batchify: twice -> _ZGVbN2v_twice: 2 lanes
; REPORT: batchify: twice -> _ZGVdN8v_twice: 8 lanes
;
; A bad parameter is one error line, and opt rejects the pipeline.
; RUN: not %opt -load-pass-plugin=%plugin -passes='batchify<width=0>' %s -disable-output 2>&1 \
; RUN:   | FileCheck %s --check-prefix=BAD
; BAD: batchify: error: pass parameter `width=0` is out of range 1..=1024
; RUN: not %opt -load-pass-plugin=%plugin -passes='batchify<lanes=8>' %s -disable-output 2>&1 \
; RUN:   | FileCheck %s --check-prefix=UNKNOWN
; UNKNOWN: batchify: error: unknown pass parameter `lanes=8`

target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

define float @twice(float %x) #0 {
  %r = fadd float %x, %x
  ret float %r
}

attributes #0 = { "_ZGVbN2v_twice" "_ZGVdN8v_twice" }
