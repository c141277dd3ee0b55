; The plugin speaks through LLVM's diagnostics: a built clone is a remark
; for -pass-remarks=batchify (clang: -Rpass=batchify), a per-lane fallback
; a missed remark (-Rpass-missed=batchify) with the reason, and the
; clone's details (gathers, per-lane calls) analysis remarks.
;
; RUN: %opt -load-pass-plugin=%plugin -passes=batchify -disable-output %s \
; RUN:   -pass-remarks=batchify -pass-remarks-missed=batchify -pass-remarks-analysis=batchify 2>&1 \
; RUN:   | FileCheck %s
; Without the remark options, nothing is printed.
; RUN: %opt -load-pass-plugin=%plugin -passes=batchify -disable-output %s 2>&1 | count 0
; The same through clang.
; RUN: %clang -O2 -c -x ir %s -o /dev/null -fpass-plugin=%plugin -Rpass=batchify -Rpass-missed=batchify 2>&1 \
; RUN:   | FileCheck %s --check-prefix=CLANG

; CHECK-DAG: remark: {{.*}}built _ZGVdN8vv_gather: 8 lanes
; CHECK-DAG: remark: {{.*}}_ZGVdN8vv_gather: memory: {{.*}}gather
; CHECK-DAG: remark: {{.*}}_ZGVdN8v_vla is a per-lane loop over the scalar function: {{.*}}stack memory of a computed size
; CLANG-DAG: remark: {{.*}}built _ZGVdN8vv_gather: 8 lanes{{.*}}[-Rpass=batchify]
; CLANG-DAG: remark: {{.*}}_ZGVdN8v_vla is a per-lane loop{{.*}}[-Rpass-missed=batchify]

target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

; A load at a varying index: a gather.
define float @gather(ptr %t, i32 %i) #0 {
  %p = getelementptr float, ptr %t, i32 %i
  %v = load float, ptr %p, align 4
  ret float %v
}

; Stack memory of a varying size: not vectorized yet.
define i32 @vla(i32 %n) #1 {
  %a = alloca i32, i32 %n, align 4
  store volatile i32 %n, ptr %a, align 4
  %v = load volatile i32, ptr %a, align 4
  ret i32 %v
}

attributes #0 = { "_ZGVdN8vv_gather" }
attributes #1 = { "_ZGVdN8v_vla" }
