; GCC passes a vector of at most 32 bits (two shorts, four chars) as an
; integer in a general register (the psABI's INTEGER class), where LLVM
; would use an xmm register (abi::gcc_small_vector_int, docs/gcc-abi.md):
; the 2-lane SSE variants take and return <2 x i16> as i32, bitcast at the
; entry and at the return. 8-byte vectors (<2 x float>) stay vectors.
; Checked by execution in tests/simd-clone/50_small_vectors.c.
;
; RUN: %batchify %s -S -o %t.ll --variant _ZGVbN2vv_mix --variant _ZGVbN2v_narrow --variant _ZGVbN4vv_pack
; RUN: FileCheck %s < %t.ll
; RUN: %llc -O2 %t.ll -o - | FileCheck %s --check-prefix=ASM

; CHECK: define <2 x double> @_ZGVbN2vv_mix(<2 x float> %0, i32 %1)
; CHECK-NEXT: entry:
; CHECK-NEXT: bitcast i32 %1 to <2 x i16>
; CHECK: define i32 @_ZGVbN2v_narrow(<2 x double> %0)
; CHECK: [[BITS:%.*]] = bitcast <2 x i16> {{%.*}} to i32
; CHECK-NEXT: ret i32 [[BITS]]
; CHECK: define <4 x i32> @_ZGVbN4vv_pack(i32 %0, i32 %1)

; The two shorts arrive in edi; the result leaves in eax.
; ASM-LABEL: _ZGVbN2vv_mix:
; ASM: %edi
; ASM-LABEL: _ZGVbN2v_narrow:
; ASM: %eax
; ASM: retq

target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

define double @mix(float %f, i16 %s) #0 {
  %a = fpext float %f to double
  %b = sitofp i16 %s to double
  %r = fadd double %a, %b
  ret double %r
}

define i16 @narrow(double %d) #0 {
  %r = fptosi double %d to i16
  ret i16 %r
}

attributes #0 = { nounwind "target-cpu"="x86-64" }

define i32 @pack(i8 %a, i8 %b) #0 {
  %x = sext i8 %a to i32
  %y = sext i8 %b to i32
  %m = mul i32 %x, 3
  %r = sub i32 %m, %y
  ret i32 %r
}
