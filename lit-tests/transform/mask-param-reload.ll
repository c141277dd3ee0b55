; Mask parameters that gathers and scatters read are reloaded from a
; volatile stack slot, as an integer (finish/mask_params.rs): LLVM 22's EVEX
; compression erases the `vpmovb2m` that turns an `<N x i1>` parameter into
; a mask register when its first reader is a `kmov` to a general register
; (a gather that the tuning scalarizes, as znver4's does), although a
; scatter after it still reads that register (llvm/llvm-project#198197). A
; mask register filled from a general register is not the pass's pattern.
; A function that cannot have AVX-512 (an AVX2 CPU with its own feature
; list) keeps its parameter as it is.
;
; RUN: %batchify %s -S -o %t.ll --variant _ZGV_LLVM_M16vvv_f --variant _ZGV_LLVM_M16vvv_g
; RUN: FileCheck %s < %t.ll
; RUN: %llc -O2 -mcpu=znver4 %t.ll -o - | FileCheck %s --check-prefix=ASM

; CHECK-LABEL: define <16 x i32> @_ZGV_LLVM_M16vvv_f(
; CHECK-SAME: <16 x i1> %mask)
; CHECK: [[BITS:%[0-9a-z.]+]] = bitcast <16 x i1> %mask to i16
; CHECK: store volatile i16 [[BITS]], ptr [[SLOT:%[0-9a-z.]+]]
; CHECK: [[L:%[0-9a-z.]+]] = load volatile i16, ptr [[SLOT]]
; CHECK: [[M:%[0-9a-z.]+]] = bitcast i16 [[L]] to <16 x i1>
; CHECK: call <16 x i32> @llvm.masked.gather.v16i32.v16p0(<16 x ptr> {{.*}}, <16 x i1> [[M]],
; CHECK: call void @llvm.masked.scatter.v16i32.v16p0(<16 x i32> {{.*}}, <16 x i1> [[M]])
; CHECK-LABEL: define <16 x i32> @_ZGV_LLVM_M16vvv_g(
; CHECK-NOT: volatile
; CHECK: call <16 x i32> @llvm.masked.gather.v16i32.v16p0(<16 x ptr> {{.*}}, <16 x i1> %mask,
; CHECK-LABEL: attributes

; The gathers' and scatters' mask registers come from the reload.
; ASM-LABEL: _ZGV_LLVM_M16vvv_f:
; ASM: -{{[0-9]+}}(%rsp)
; ASM: movzwl -{{[0-9]+}}(%rsp), %e[[R:[a-z]+]]
; ASM: kmovd %e[[R]], %k
; ASM: vpscatter
; ASM-LABEL: .cfi_endproc

target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

define i32 @f(ptr %t, i32 %i, i32 %v) {
entry:
  %idx = sext i32 %i to i64
  %p = getelementptr inbounds i32, ptr %t, i64 %idx
  %x = load i32, ptr %p
  %j = and i32 %x, 255
  %jdx = zext i32 %j to i64
  %q = getelementptr inbounds i32, ptr %t, i64 %jdx
  store i32 %v, ptr %q
  ret i32 %x
}

define i32 @g(ptr %t, i32 %i, i32 %v) #0 {
entry:
  %idx = sext i32 %i to i64
  %p = getelementptr inbounds i32, ptr %t, i64 %idx
  %x = load i32, ptr %p
  ret i32 %x
}
attributes #0 = { "target-cpu"="haswell" "target-features"="+avx,+avx2,+fma" }
