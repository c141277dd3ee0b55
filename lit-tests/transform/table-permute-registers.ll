; Constant tables of two to four registers (emit/tables.rs): on AVX2 one
; `vpermd`/`vpermps` per 8-element register of the table and a select by
; index bit 3 (and bit 4 for three or four registers); on AVX-512 one
; two-source `vpermi2var` per pair of 16-element registers (index bits 0-4)
; and a select by bit 5. Fewer lanes than a register read one register of
; indices; more lanes read a register of indices at a time. Past four
; registers (64 floats on AVX2) the load stays a gather.
;
; RUN: %batchify %s -S -o %t.ll --variant _ZGVdN8v_two --variant _ZGVdN4v_two --variant _ZGVdN16v_two --variant _ZGVdN8v_three --variant _ZGVeN16v_three --variant _ZGVeN16v_four --variant _ZGVdN8v_four --print-plan 2> %t.plan
; RUN: FileCheck %s < %t.ll
; RUN: FileCheck %s --check-prefix=PLAN < %t.plan

@t16 = internal constant [16 x i32] [i32 0, i32 1, i32 2, i32 3, i32 4, i32 5, i32 6, i32 7, i32 8, i32 9, i32 10, i32 11, i32 12, i32 13, i32 14, i32 15]
@t20 = internal constant [20 x i32] [i32 0, i32 1, i32 2, i32 3, i32 4, i32 5, i32 6, i32 7, i32 8, i32 9, i32 10, i32 11, i32 12, i32 13, i32 14, i32 15, i32 16, i32 17, i32 18, i32 19]
@t64 = internal constant [64 x float] [float 0.0, float 1.0, float 2.0, float 3.0, float 4.0, float 5.0, float 6.0, float 7.0, float 8.0, float 9.0, float 10.0, float 11.0, float 12.0, float 13.0, float 14.0, float 15.0, float 16.0, float 17.0, float 18.0, float 19.0, float 20.0, float 21.0, float 22.0, float 23.0, float 24.0, float 25.0, float 26.0, float 27.0, float 28.0, float 29.0, float 30.0, float 31.0, float 32.0, float 33.0, float 34.0, float 35.0, float 36.0, float 37.0, float 38.0, float 39.0, float 40.0, float 41.0, float 42.0, float 43.0, float 44.0, float 45.0, float 46.0, float 47.0, float 48.0, float 49.0, float 50.0, float 51.0, float 52.0, float 53.0, float 54.0, float 55.0, float 56.0, float 57.0, float 58.0, float 59.0, float 60.0, float 61.0, float 62.0, float 63.0]

define i32 @two(i32 %k) {
  %m = and i32 %k, 15
  %i = zext nneg i32 %m to i64
  %p = getelementptr inbounds i32, ptr @t16, i64 %i
  %t = load i32, ptr %p, align 4
  ret i32 %t
}

define i32 @three(i32 %k) {
  %i = urem i32 %k, 20
  %p = getelementptr inbounds [20 x i32], ptr @t20, i32 0, i32 %i
  %t = load i32, ptr %p, align 4
  ret i32 %t
}

define float @four(i32 %k) {
  %m = and i32 %k, 63
  %p = getelementptr inbounds float, ptr @t64, i32 %m
  %t = load float, ptr %p, align 4
  ret float %t
}

; Two registers on AVX2: two permutes, a select by bit 3.
; CHECK-LABEL: define <8 x i32> @_ZGVdN8v_two(
; CHECK-NOT:     gather
; CHECK:         [[LO:%.*]] = call <8 x i32> @llvm.x86.avx2.permd(<8 x i32> <i32 0, i32 1, i32 2, i32 3, i32 4, i32 5, i32 6, i32 7>, <8 x i32> [[IDX:%.*]])
; CHECK-NEXT:    [[HI:%.*]] = call <8 x i32> @llvm.x86.avx2.permd(<8 x i32> <i32 8, i32 9, i32 10, i32 11, i32 12, i32 13, i32 14, i32 15>, <8 x i32> [[IDX]])
; CHECK-NEXT:    [[BIT:%.*]] = and <8 x i32> {{%.*}}, splat (i32 8)
; CHECK-NEXT:    [[CLEAR:%.*]] = icmp eq <8 x i32> [[BIT]], zeroinitializer
; CHECK-NEXT:    select <8 x i1> [[CLEAR]], <8 x i32> [[LO]], <8 x i32> [[HI]]
; CHECK-NOT:     gather
; CHECK:         {{^}}}

; Four lanes: the indices widened to one register with zeros, the result's
; first four lanes kept.
; CHECK-LABEL: define <4 x i32> @_ZGVdN4v_two(
; CHECK:         shufflevector <4 x i32> {{%.*}}, <4 x i32> <i32 0, {{.*}}>, <8 x i32> <i32 0, i32 1, i32 2, i32 3, i32 4, i32 4, i32 4, i32 4>
; CHECK-COUNT-2: call <8 x i32> @llvm.x86.avx2.permd(
; CHECK:         shufflevector <8 x i32> {{%.*}}, <8 x i32> poison, <4 x i32> <i32 0, i32 1, i32 2, i32 3>
; CHECK-NOT:     gather
; CHECK:         {{^}}}

; Sixteen lanes (two AVX2 registers in GCC's ABI): each register of
; indices permuted twice and selected.
; CHECK-LABEL: define void @_ZGVdN16v_two(
; CHECK-COUNT-2: call <8 x i32> @llvm.x86.avx2.permd(
; CHECK:         select <8 x i1>
; CHECK-COUNT-2: call <8 x i32> @llvm.x86.avx2.permd(
; CHECK:         select <8 x i1>
; CHECK-NOT:     gather
; CHECK:         {{^}}}

; Three registers (the last padded with zeros): a select by bit 3, then
; one by bit 4 (which the cleanup turns into `< 16`, the index being below
; 20).
; CHECK-LABEL: define <8 x i32> @_ZGVdN8v_three(
; CHECK-COUNT-3: call <8 x i32> @llvm.x86.avx2.permd(
; CHECK:         and <8 x i32> {{%.*}}, splat (i32 8)
; CHECK-COUNT-2: select <8 x i1>
; CHECK-NOT:     gather
; CHECK:         {{^}}}

; AVX-512, two registers: one two-source permute, no select.
; CHECK-LABEL: define <16 x i32> @_ZGVeN16v_three(
; CHECK:         call <16 x i32> @llvm.x86.avx512.vpermi2var.d.512(<16 x i32> <i32 0, {{.*}}, i32 15>, <16 x i32> {{%.*}}, <16 x i32> <i32 16, i32 17, i32 18, i32 19, i32 0,
; CHECK-NOT:     select
; CHECK-NOT:     gather
; CHECK:         {{^}}}

; AVX-512, four registers: two two-source permutes, a select by bit 5.
; CHECK-LABEL: define <16 x float> @_ZGVeN16v_four(
; CHECK-COUNT-2: call <16 x float> @llvm.x86.avx512.vpermi2var.ps.512(
; CHECK:         select <16 x i1>
; CHECK-NOT:     gather
; CHECK:         {{^}}}

; 64 floats are eight AVX2 registers: a gather.
; CHECK-LABEL: define <8 x float> @_ZGVdN8v_four(
; CHECK-NOT:     perm
; CHECK:         call <8 x float> @llvm.masked.gather

; PLAN-LABEL: plan of `two` for `_ZGVdN8v_two`
; PLAN:         load table permute, 2 registers: %t = load i32
; PLAN-LABEL: plan of `three` for `_ZGVdN8v_three`
; PLAN:         load table permute, 3 registers: %t = load i32
; PLAN-LABEL: plan of `three` for `_ZGVeN16v_three`
; PLAN:         load table permute, 2 registers: %t = load i32
; PLAN-LABEL: plan of `four` for `_ZGVeN16v_four`
; PLAN:         load table permute, 4 registers: %t = load float
; PLAN-LABEL: plan of `four` for `_ZGVdN8v_four`
; PLAN:         load gather (the address has no constant stride): %t = load float
