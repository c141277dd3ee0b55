; A cost-model fallback says what would make the vector form pay
; (cost/mod.rs, FunctionEstimate::cure): per-lane calls of math functions that
; glibc's libmvec has point to `--veclib libmvec`, and to `-fno-math-errno`
; where the call may set `errno` (clang's default: `memory(errnomem:
; write)`); other per-lane calls point to `declare simd` bodies or promised
; variants.
;
; RUN: %batchify %s -o %t.ll --function f --isa avx2 2> %t.err
; RUN: FileCheck %s < %t.err
; RUN: %batchify %s -o %t2.ll --function g --isa avx2 2> %t2.err
; RUN: FileCheck %s --check-prefix=PURE < %t2.err
; `--no-cost-model` keeps the vector form and reports the estimate.
; RUN: %batchify %s -o %t3.ll --function f --isa avx2 --no-cost-model --report 2> %t3.err
; RUN: FileCheck %s --check-prefix=FORCED < %t3.err

; CHECK: batchify: warning: `f` -> `_ZGVdN8vv_f` is a per-lane loop over the scalar function: cost model: the per-lane loop is faster: function: est.
; CHECK-SAME: ; divergent loop %loop: est.
; CHECK-SAME: ; `expf` run once per lane: they may set `errno` (clang's default `-fmath-errno`); with `-fno-math-errno` and `--veclib libmvec` (plugin: `veclib=libmvec`) glibc's vector versions are called instead
; CHECK-SAME: ; `ext` run once per lane: a `declare simd` body in this module (or variants its declaration promises) makes them vector calls

; FORCED-NOT: per-lane loop over the scalar function
; FORCED: batchify: f -> _ZGVdN8vv_f: 8 lanes, 1 vector instruction(s)
; FORCED: batchify:   cost: function: est. 0.{{[0-9]+}}x over scalar calls

; PURE: batchify: warning: `g` -> `_ZGVdN8vv_g` is a per-lane loop
; PURE-SAME: ; `logf` run once per lane (exact): `--veclib libmvec` (plugin: `veclib=libmvec`) calls glibc's vector versions instead (at most 4 ulp from the exact result)

target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

declare float @expf(float) #0
declare float @ext(float)

define float @f(float %x, i32 %n) {
entry:
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i1, %loop ]
  %y = phi float [ %x, %entry ], [ %y2, %loop ]
  %y1 = call float @expf(float %y)
  %y2 = call float @ext(float %y1)
  %i1 = add i32 %i, 1
  %c = icmp slt i32 %i1, %n
  br i1 %c, label %loop, label %exit
exit:
  ret float %y2
}

declare float @logf(float) #1

define float @g(float %x, i32 %n) {
entry:
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i1, %loop ]
  %y = phi float [ %x, %entry ], [ %y2, %loop ]
  %y1 = call float @logf(float %y)
  %y2 = call float @ext(float %y1)
  %i1 = add i32 %i, 1
  %c = icmp slt i32 %i1, %n
  br i1 %c, label %loop, label %exit
exit:
  ret float %y2
}

attributes #1 = { nounwind willreturn memory(none) }
attributes #0 = { mustprogress nocallback nofree nounwind willreturn memory(errnomem: write) }
