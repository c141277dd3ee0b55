; A load from a small constant table at a varying index is one register
; permute of the table on AVX2 (8 lanes: `vpermps`) and AVX-512 (16 lanes),
; not a gather (emit/tables.rs): every active lane's index is inside the
; table (reading outside it would be undefined in the scalar code), and a
; permute touches no memory. Target-independent clones keep the gather; a
; table the linker could replace (`weak`) is gathered too.
;
; RUN: %batchify %s -S -o %t.ll --variant _ZGVdN8vv_pick --variant _ZGVeN16vv_pick --variant _ZGV_LLVM_N8vv_pick --variant _ZGVdN8v_weak_pick
; RUN: FileCheck %s < %t.ll

@w = internal constant [8 x float] [float 0.5, float -1.25, float 3.0, float 7.5, float -0.0, float 1.0, float 42.0, float -9.75]
@v = weak constant [8 x i32] [i32 1, i32 2, i32 3, i32 4, i32 5, i32 6, i32 7, i32 8]

define float @pick(i32 %k, float %x) {
  %m = and i32 %k, 7
  %i = zext nneg i32 %m to i64
  %p = getelementptr inbounds [8 x float], ptr @w, i64 0, i64 %i
  %t = load float, ptr %p, align 4
  %r = fmul float %x, %t
  ret float %r
}

define i32 @weak_pick(i32 %k) {
  %m = and i32 %k, 7
  %i = zext nneg i32 %m to i64
  %p = getelementptr inbounds i32, ptr @v, i64 %i
  %t = load i32, ptr %p, align 4
  ret i32 %t
}

; CHECK-LABEL: define <8 x float> @_ZGVdN8vv_pick(
; CHECK-NOT:     gather
; CHECK:         call <8 x float> @llvm.x86.avx2.permps(<8 x float> <float 5.000000e-01, float -1.250000e+00, float 3.000000e+00, float 7.500000e+00, float -0.000000e+00, float 1.000000e+00, float 4.200000e+01, float -9.750000e+00>, <8 x i32>
; CHECK-NOT:     gather
; CHECK:         {{^}}}

; CHECK-LABEL: define <16 x float> @_ZGVeN16vv_pick(
; CHECK-NOT:     gather
; CHECK:         call <16 x float> @llvm.x86.avx512.permvar.sf.512(
; CHECK-NOT:     gather
; CHECK:         {{^}}}

; CHECK-LABEL: define <8 x float> @_ZGV_LLVM_N8vv_pick(
; CHECK:         call <8 x float> @llvm.masked.gather

; CHECK-LABEL: define <8 x i32> @_ZGVdN8v_weak_pick(
; CHECK-NOT:     perm
; CHECK:         call <8 x i32> @llvm.masked.gather
