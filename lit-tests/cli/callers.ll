; The caller side of `declare simd` (callers.rs): a module that calls a
; function whose variants clang lists (`"_ZGVdN8vv_kern"` on its
; declaration) gets `vector-function-abi-variant` on the call, the variants
; declared and kept in @llvm.compiler.used, and an internal adapter for the
; masked variant (GCC's <8 x float> mask from LLVM's <8 x i1>); the loop
; vectorizer then calls the AVX2 variant. Nothing to build here: a note, exit 0.
;
; RUN: %batchify %s -S -o %t.ll --report 2> %t.err
; RUN: FileCheck %s < %t.ll
; RUN: FileCheck %s --check-prefix=NOTE < %t.err
; RUN: %opt -passes=loop-vectorize -S %t.ll -o - | FileCheck %s --check-prefix=VEC
;
; Idempotent: a second run changes nothing.
; RUN: %batchify %t.ll -S -o %t2.ll
; RUN: grep -v ModuleID %t.ll > %t.a
; RUN: grep -v ModuleID %t2.ll > %t.b
; RUN: diff %t.a %t.b
;
; --no-callers leaves the module as it was.
; RUN: %batchify %s -S -o %t3.ll --no-callers
; RUN: FileCheck %s --check-prefix=OFF < %t3.ll
; RUN: %llvm-as %s -o - | %llvm-dis -o - | grep -v ModuleID > %t.in.ll
; RUN: %llvm-as %t3.ll -o - | %llvm-dis -o - | grep -v ModuleID > %t.out.ll
; RUN: diff %t.in.ll %t.out.ll

target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

define void @loop(ptr noalias %r, ptr %x, ptr %y, i64 %n) #0 {
entry:
  br label %body
body:
  %i = phi i64 [ 0, %entry ], [ %i.next, %body ]
  %px = getelementptr inbounds float, ptr %x, i64 %i
  %py = getelementptr inbounds float, ptr %y, i64 %i
  %a = load float, ptr %px, align 4
  %b = load float, ptr %py, align 4
  %c = call float @kern(float %a, float %b) #2
  %pr = getelementptr inbounds float, ptr %r, i64 %i
  store float %c, ptr %pr, align 4
  %i.next = add nuw nsw i64 %i, 1
  %done = icmp eq i64 %i.next, %n
  br i1 %done, label %exit, label %body
exit:
  ret void
}

declare float @kern(float, float) #1

attributes #0 = { nounwind "target-cpu"="x86-64-v3" "target-features"="+avx,+avx2,+fma,+sse4.2" }
attributes #1 = { "_ZGVbM4vv_kern" "_ZGVbN4vv_kern" "_ZGVcM8vv_kern" "_ZGVcN8vv_kern" "_ZGVdM8vv_kern" "_ZGVdN8vv_kern" "_ZGVeM16vv_kern" "_ZGVeN16vv_kern" "target-cpu"="x86-64-v3" }
attributes #2 = { nounwind }

; CHECK: @llvm.compiler.used = appending global [{{[0-9]+}} x ptr] [ptr @_ZGVdN8vv_kern, ptr @_ZGVdM8vv_kern, ptr @__batchify.call._ZGVdM8vv_kern,
; CHECK-SAME: section "llvm.metadata"
; CHECK: call float @kern(float %a, float %b) #[[CALL:[0-9]+]]
; CHECK-DAG: declare <8 x float> @_ZGVdN8vv_kern(<8 x float>, <8 x float>)
; CHECK-DAG: declare <8 x float> @_ZGVdM8vv_kern(<8 x float>, <8 x float>, <8 x float>)
; CHECK-DAG: define internal <8 x float> @__batchify.call._ZGVdM8vv_kern(<8 x float> %0, <8 x float> %1, <8 x i1> %2)
; The AVX-512 variants are not for an AVX2 caller.
; CHECK-NOT: declare {{.*}}_ZGVe
; CHECK: attributes #[[CALL]] = { nounwind "vector-function-abi-variant"="_ZGVdN8vv_kern(_ZGVdN8vv_kern),_ZGVdM8vv_kern(__batchify.call._ZGVdM8vv_kern),_ZGVbN4vv_kern(_ZGVbN4vv_kern),_ZGVbM4vv_kern(__batchify.call._ZGVbM4vv_kern)" }

; NOTE: batchify: note: no clone to build
; NOTE: batchify: caller `loop`: calls of `kern` may use _ZGVdN8vv_kern, _ZGVdM8vv_kern, _ZGVbN4vv_kern, _ZGVbM4vv_kern

; VEC-LABEL: define void @loop(
; VEC: call <8 x float> @_ZGVdN8vv_kern(<8 x float>

; OFF-NOT: vector-function-abi-variant
; OFF-NOT: compiler.used
; OFF-NOT: _ZGVdN8vv_kern(
