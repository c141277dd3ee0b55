; Fields of arrays of small structures read together are an interleave
; group (plan/interleave.rs, emit/interleave.rs): one wide load of the
; lanes' structures at the group's first load, and one shuffle per field,
; instead of a gather per field. The load's mask holds the fields the
; group reads in the active lanes: a plain load under a full mask with
; every field read; a constant mask with a gap; the execution mask spread
; over the fields in a masked clone. A store between two fields ends the
; group; a field alone at stride 3 stays a gather. Where the stride holds
; only after a run-time test (a 32-bit index), the group is tested once
; and gathered field by field if the test fails.
;
; RUN: %batchify %s -S -o %t.ll --no-cost-model --variant _ZGVdN8l12l12_dot3 --variant _ZGVdM8l12l12_dot3 --variant _ZGVdN8l16_len4 --variant _ZGVdN8l12_swap --variant _ZGVdN8ul_indexed --print-plan 2> %t.plan
; RUN: FileCheck %s < %t.ll
; RUN: FileCheck %s --check-prefix=PLAN < %t.plan

define float @dot3(ptr %a, ptr %b) {
  %a0 = load float, ptr %a, align 4
  %b0 = load float, ptr %b, align 4
  %a1p = getelementptr inbounds i8, ptr %a, i64 4
  %a1 = load float, ptr %a1p, align 4
  %b1p = getelementptr inbounds i8, ptr %b, i64 4
  %b1 = load float, ptr %b1p, align 4
  %m1 = fmul float %a1, %b1
  %s1 = call float @llvm.fmuladd.f32(float %a0, float %b0, float %m1)
  %a2p = getelementptr inbounds float, ptr %a, i64 2
  %a2 = load float, ptr %a2p, align 4
  %b2p = getelementptr inbounds float, ptr %b, i64 2
  %b2 = load float, ptr %b2p, align 4
  %s2 = call float @llvm.fmuladd.f32(float %a2, float %b2, float %s1)
  ret float %s2
}

define float @len4(ptr %p) {
  %x = load float, ptr %p, align 4
  %yp = getelementptr inbounds i8, ptr %p, i64 4
  %y = load float, ptr %yp, align 4
  %zp = getelementptr inbounds i8, ptr %p, i64 8
  %z = load float, ptr %zp, align 4
  %xx = fmul float %x, %x
  %s = call float @llvm.fmuladd.f32(float %y, float %y, float %xx)
  %t = call float @llvm.fmuladd.f32(float %z, float %z, float %s)
  ret float %t
}

define i32 @swap(ptr %p) {
  %a = load i32, ptr %p, align 4
  %bp = getelementptr inbounds i8, ptr %p, i64 4
  %a3 = mul i32 %a, 3
  store i32 %a3, ptr %bp, align 4
  %cp = getelementptr inbounds i8, ptr %p, i64 8
  %c = load i32, ptr %cp, align 4
  %r = add i32 %a, %c
  ret i32 %r
}

%struct.V3 = type { float, float, float }

define float @indexed(ptr %s, i32 %i) {
  %ix = sext i32 %i to i64
  %q = getelementptr inbounds %struct.V3, ptr %s, i64 %ix
  %x = load float, ptr %q, align 4
  %yp = getelementptr inbounds i8, ptr %q, i64 4
  %y = load float, ptr %yp, align 4
  %zp = getelementptr inbounds i8, ptr %q, i64 8
  %z = load float, ptr %zp, align 4
  %m = fmul float %y, %z
  %r = call float @llvm.fmuladd.f32(float %x, float %x, float %m)
  ret float %r
}

declare float @llvm.fmuladd.f32(float, float, float)

; Full mask, every field: two plain loads of 24 floats, three shuffles each.
; CHECK-LABEL: define <8 x float> @_ZGVdN8l12l12_dot3(
; CHECK-NOT:     gather
; CHECK:         load <24 x float>, ptr %a, align 4
; CHECK:         load <24 x float>, ptr %b, align 4
; CHECK-DAG:     shufflevector <24 x float> {{%.*}}, <24 x float> poison, <8 x i32> <i32 0, i32 3, i32 6, i32 9, i32 12, i32 15, i32 18, i32 21>
; CHECK-DAG:     shufflevector <24 x float> {{%.*}}, <24 x float> poison, <8 x i32> <i32 1, i32 4, i32 7, i32 10, i32 13, i32 16, i32 19, i32 22>
; CHECK-DAG:     shufflevector <24 x float> {{%.*}}, <24 x float> poison, <8 x i32> <i32 2, i32 5, i32 8, i32 11, i32 14, i32 17, i32 20, i32 23>
; CHECK-NOT:     gather
; CHECK:         {{^}}}

; Masked clone: the lanes' mask spread over their three fields.
; CHECK-LABEL: define <8 x float> @_ZGVdM8l12l12_dot3(
; CHECK-NOT:     gather
; CHECK:         shufflevector <8 x i1> {{%.*}}, <8 x i1> {{.*}}, <24 x i32> <i32 0, i32 0, i32 0, i32 1, i32 1, i32 1, i32 2,
; CHECK:         call <24 x float> @llvm.masked.load.v24f32.p0(ptr align 4 %a, <24 x i1>
; CHECK:         call <24 x float> @llvm.masked.load.v24f32.p0(ptr align 4 %b, <24 x i1>
; CHECK-NOT:     gather
; CHECK:         {{^}}}

; Three fields of four: the fourth is never read.
; CHECK-LABEL: define <8 x float> @_ZGVdN8l16_len4(
; CHECK:         call <32 x float> @llvm.masked.load.v32f32.p0(ptr align 4 %p, <32 x i1> <i1 true, i1 true, i1 true, i1 false, i1 true,
; CHECK-NOT:     gather
; CHECK:         {{^}}}

; The store splits the two loads: each is alone, a gather.
; CHECK-LABEL: define <8 x i32> @_ZGVdN8l12_swap(
; CHECK-NOT:     masked.load
; CHECK-COUNT-2: call <8 x i32> @llvm.masked.gather
; CHECK:         {{^}}}

; A 32-bit index: the wide load when no lane's index wrapped, else a
; gather per field.
; CHECK-LABEL: define <8 x float> @_ZGVdN8ul_indexed(
; CHECK:         load <24 x float>
; CHECK-COUNT-3: call <8 x float> @llvm.masked.gather
; CHECK:         {{^}}}

; PLAN-LABEL: plan of `dot3` for `_ZGVdN8l12l12_dot3`
; PLAN:         load interleaved access, field 0 of 3: %a0 = load float
; PLAN:         load interleaved access, field 1 of 3: %a1 = load float
; PLAN:         load interleaved access, field 2 of 3: %b2 = load float
; PLAN-LABEL: plan of `len4` for `_ZGVdN8l16_len4`
; PLAN:         load interleaved access, field 2 of 4: %z = load float
; PLAN-LABEL: plan of `swap` for `_ZGVdN8l12_swap`
; PLAN:         load gather (the stride is not 1 or 2 elements): %a = load i32
; PLAN:         load gather (the stride is not 1 or 2 elements): %c = load i32
; PLAN-LABEL: plan of `indexed` for `_ZGVdN8ul_indexed`
; PLAN:         load interleaved access, field 0 of 3, checked: %x = load float
