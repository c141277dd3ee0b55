; Clone parameters keep the scalar function's names (`%e0, %e1, %x`, not
; `%0, %1, %2`), with --variant and --function alike; instruction names are
; kept too. A masked variant's extra parameter is `%mask` (LLVM makes it
; `%mask1` when the scalar function already has a `%mask`).
;
; RUN: %batchify %s -S -o %t.ll --variant _ZGVdN8uuv_lerp --variant _ZGVdM8uuv_lerp \
; RUN:   --variant _ZGV_LLVM_M4vv_clash
; RUN: FileCheck %s < %t.ll
; RUN: %batchify %s -S -o %t.f.ll --function lerp -n 4
; RUN: FileCheck %s --check-prefix=FUNC < %t.f.ll

define float @lerp(float %e0, float %e1, float %x) {
  %d = fsub float %e1, %e0
  %m = fmul float %d, %x
  %r = fadd float %m, %e0
  ret float %r
}

define float @clash(float %mask, float %x) {
  %r = fmul float %mask, %x
  ret float %r
}

; CHECK-LABEL: define <8 x float> @_ZGVdN8uuv_lerp(float %e0, float %e1, <8 x float> %x)
; CHECK:         %d = fsub float %e1, %e0
; CHECK:         %m = fmul <8 x float> {{%.*}}, %x
; CHECK-LABEL: define <8 x float> @_ZGVdM8uuv_lerp(float %e0, float %e1, <8 x float> %x, <8 x float> %mask)
; CHECK:         %d = fsub float %e1, %e0
; CHECK-LABEL: define <4 x float> @_ZGV_LLVM_M4vv_clash(<4 x float> %mask, <4 x float> %x, <4 x i1> %mask1)
; CHECK:         fmul <4 x float> %mask, %x

; FUNC-LABEL: define <4 x float> @_ZGV_LLVM_N4vvv_lerp(<4 x float> %e0, <4 x float> %e1, <4 x float> %x)
; FUNC:         %d = fsub <4 x float> %e1, %e0
