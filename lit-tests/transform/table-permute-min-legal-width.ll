; A table permute on 512-bit registers in a clone whose own signature is
; 256 bits wide (8 lanes of i32 on AVX-512, read through one 16-element
; register): the clone's "min-legal-vector-width" covers the permute
; (vector_widths.rs covers x86 target intrinsics as clang does), so the
; back end under an Intel tuning, which prefers 256-bit vectors, keeps the
; 512-bit intrinsic instead of stopping with "Do not know how to split the
; result of this operator" (batchify-fuzz seed 6235 at --cpu
; skylake-avx512 and icelake-server).
;
; RUN: %batchify %s -S -o %t.ll --variant _ZGVeN8v_pick16
; RUN: FileCheck %s < %t.ll
; RUN: llc-22 -O2 -mcpu=skylake-avx512 %t.ll -o - | FileCheck %s --check-prefix=ASM

@t16 = internal constant [16 x i32] [i32 0, i32 1, i32 2, i32 3, i32 4, i32 5, i32 6, i32 7, i32 8, i32 9, i32 10, i32 11, i32 12, i32 13, i32 14, i32 15]

define i32 @pick16(i32 %k) {
  %m = and i32 %k, 15
  %p = getelementptr inbounds i32, ptr @t16, i32 %m
  %t = load i32, ptr %p, align 4
  ret i32 %t
}

; CHECK-LABEL: define <8 x i32> @_ZGVeN8v_pick16(
; CHECK:         call <16 x i32> @llvm.x86.avx512.permvar.si.512(
; CHECK:       attributes [[A:#[0-9]+]] = {{.*}}"min-legal-vector-width"="512"

; ASM-LABEL: _ZGVeN8v_pick16:
; ASM:         vperm{{d|ps}} {{.*}}%zmm
