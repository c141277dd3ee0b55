; The plugin and the CLI are one transform: for the same module and the same
; requests, `opt -passes=batchify` and `batchify` write the same module.
;
; RUN: %batchify %s -o %t.cli.ll -S
; RUN: %opt -load-pass-plugin=%plugin -passes=batchify %s -S -o %t.plugin.ll
; RUN: grep -v -e '^; ModuleID' -e '^source_filename' %t.cli.ll > %t.cli.body
; RUN: grep -v -e '^; ModuleID' -e '^source_filename' %t.plugin.ll > %t.plugin.body
; RUN: diff %t.cli.body %t.plugin.body
; RUN: FileCheck %s < %t.plugin.ll
;
; Explicit functions: `--function` in the CLI, `function=` in the pass.
; RUN: %batchify %s -o %t.cli2.ll -S --function count -n 4 --isa avx2
; RUN: %opt -load-pass-plugin=%plugin -passes='batchify<function=count;width=4;isa=avx2>' %s -S -o %t.plugin2.ll
; RUN: grep -v -e '^; ModuleID' -e '^source_filename' %t.cli2.ll > %t.cli2.body
; RUN: grep -v -e '^; ModuleID' -e '^source_filename' %t.plugin2.ll > %t.plugin2.body
; RUN: diff %t.cli2.body %t.plugin2.body
; RUN: FileCheck %s --check-prefix=EXPLICIT < %t.plugin2.ll

; CHECK-DAG: define <8 x i32> @_ZGVdN8vl4u_count(<8 x float> %x, ptr %p, float %limit)
; CHECK-DAG: define <8 x i32> @_ZGVdM8vl4u_count(<8 x float> %x, ptr %p, float %limit, <8 x i32> %mask)
; EXPLICIT: define <4 x i32> @_ZGVdN4vvv_count(<4 x float> %x, <4 x ptr> %p, <4 x float> %limit)

target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

; A divergent loop (its trip count differs between lanes) with a load
; through a linear pointer.
define i32 @count(float %x, ptr %p, float %limit) #0 {
entry:
  %v = load float, ptr %p, align 4
  %start = fadd float %x, %v
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i.next, %loop ]
  %y = phi float [ %start, %entry ], [ %y.next, %loop ]
  %y.next = fmul float %y, 1.5
  %i.next = add i32 %i, 1
  %more = fcmp olt float %y.next, %limit
  %cap = icmp ult i32 %i.next, 64
  %go = and i1 %more, %cap
  br i1 %go, label %loop, label %exit
exit:
  ret i32 %i.next
}

attributes #0 = { "_ZGVdN8vl4u_count" "_ZGVdM8vl4u_count" }
