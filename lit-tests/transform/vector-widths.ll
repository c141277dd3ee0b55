; Calls agree on vector registers (vector_widths.rs, docs/gcc-abi.md
; "Vector registers across calls"): every function batchify creates or
; changes gets a "min-legal-vector-width" covering the vector types of the
; calls it makes. A width-8 clone of 32-bit lanes has a 256-bit signature;
; when it calls a helper clone or a libmvec function whose signature holds a
; 512-bit vector, it must be 512 too, or under the prefer-256-bit tuning of
; Intel's AVX-512 CPUs (and x86-64-v4) it passes that vector in two ymm
; registers while the callee reads one zmm. The same holds for a loop whose
; calls the caller side points at `_ZGVeN8vvv_bar` (<8 x i64> argument).
;
; RUN: %batchify %s -S -o %t1.ll --function f -n 8
; RUN: FileCheck %s --check-prefix=HELPER < %t1.ll
; RUN: %batchify %s -S -o %t2.ll --variant _ZGVeN8v_h --veclib libmvec
; RUN: FileCheck %s --check-prefix=LIBMVEC < %t2.ll
; RUN: %batchify %s -S -o %t3.ll
; RUN: FileCheck %s --check-prefix=CALLER < %t3.ll
;
; The clone calling the helper, compiled for Intel tuning, passes the
; <8 x i64> in one zmm register (no ymm pair).
; RUN: %llc -O2 -mcpu=skylake-avx512 %t1.ll -o - | FileCheck %s --check-prefix=ASM

; HELPER: define <8 x i32> @_ZGV_LLVM_N8v_f(<8 x i32> %x) [[CLONE:#[0-9]+]]
; HELPER: call <8 x i64> @__batchify._ZGV_LLVM_N8v_widen(<8 x i64>
; HELPER: define internal <8 x i64> @__batchify._ZGV_LLVM_N8v_widen(<8 x i64> %v) [[HELP:#[0-9]+]]
; HELPER-DAG: attributes [[CLONE]] = { {{.*}}"min-legal-vector-width"="512"
; HELPER-DAG: attributes [[HELP]] = { {{.*}}"min-legal-vector-width"="512"

; LIBMVEC: define <8 x float> @_ZGVeN8v_h(<8 x float> %x) [[CLONE:#[0-9]+]]
; LIBMVEC: call <8 x double> @_ZGVeN8v_exp(<8 x double>
; LIBMVEC: attributes [[CLONE]] = { {{.*}}"min-legal-vector-width"="512"

; CALLER: define void @loop({{.*}}) [[LOOP:#[0-9]+]]
; CALLER: call i64 @bar({{.*}}) [[SITE:#[0-9]+]]
; CALLER-DAG: attributes [[LOOP]] = { {{.*}}"min-legal-vector-width"="512"
; CALLER-DAG: attributes [[SITE]] = { {{.*}}"vector-function-abi-variant"="_ZGVeN8vvv_bar(_ZGVeN8vvv_bar)"

; ASM-LABEL: _ZGV_LLVM_N8v_f:
; ASM: vpmovsxdq %ymm0, %zmm0
; ASM-NEXT: callq __batchify._ZGV_LLVM_N8v_widen

target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

define internal i64 @widen(i64 %v) {
  %m = mul i64 %v, 3
  ret i64 %m
}

define i32 @f(i32 %x) #0 {
  %w = sext i32 %x to i64
  %r = call i64 @widen(i64 %w)
  %t = trunc i64 %r to i32
  ret i32 %t
}

define float @h(float %x) #0 {
  %d = fpext float %x to double
  %e = call double @exp(double %d)
  %t = fptrunc double %e to float
  ret float %t
}
declare double @exp(double) #4

define void @loop(ptr noalias %out, ptr %a, i64 %n) #1 {
entry:
  br label %body
body:
  %i = phi i64 [ 0, %entry ], [ %i.next, %body ]
  %pa = getelementptr inbounds i32, ptr %a, i64 %i
  %x = load i32, ptr %pa, align 4
  %w = sext i32 %x to i64
  %c = call i64 @bar(i32 %x, i32 %x, i64 %w) #3
  %po = getelementptr inbounds i64, ptr %out, i64 %i
  store i64 %c, ptr %po, align 8
  %i.next = add nuw i64 %i, 1
  %done = icmp eq i64 %i.next, %n
  br i1 %done, label %exit, label %body, !llvm.loop !0
exit:
  ret void
}
declare i64 @bar(i32, i32, i64) #2

attributes #0 = { nounwind "min-legal-vector-width"="0" }
attributes #1 = { nounwind "min-legal-vector-width"="0" "target-cpu"="x86-64-v4" "target-features"="+avx,+avx2,+avx512bw,+avx512cd,+avx512dq,+avx512f,+avx512vl,+cmov,+cx8,+f16c,+fma,+sse,+sse2,+sse3,+sse4.1,+sse4.2,+ssse3,+x87" }
attributes #2 = { "_ZGVeN8vvv_bar" "_ZGVdN8vvv_bar" "_ZGVbN8vvv_bar" }
attributes #3 = { nounwind memory(none) }
attributes #4 = { nounwind willreturn memory(none) }
!0 = distinct !{!0, !1}
!1 = !{!"llvm.loop.vectorize.enable", i1 true}
