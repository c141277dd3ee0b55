; `--map --map-form grouped` builds `<f>_map(n, arrays..., out)` on the
; named clone (the other forms: map-refill.ll): full
; groups are one call of the unmasked variant on contiguous vector loads
; and stores (no gathers), the tail one call of the masked twin with
; masked loads and a masked store under `lane < n % N`; uniform
; parameters pass through, linear ones advance by `i * step`. The map's
; results are checked by execution in crates/batchify-testkit/tests/map_entry.rs.
;
; RUN: %batchify %s -o %t.ll -S --variant _ZGVdN8vu_f --variant _ZGVeN16l4v_g --map --map-form grouped --report 2> %t.err
; RUN: FileCheck %s < %t.ll
; RUN: FileCheck %s --check-prefix=REPORT < %t.err

; REPORT: batchify: map: f_map over 8 lanes of _ZGVdN8vu_f
; REPORT: batchify: map: g_map over 16 lanes of _ZGVeN16l4v_g

; Both twins are built.
; CHECK-DAG: define {{.*}}<8 x float> @_ZGVdN8vu_f(
; CHECK-DAG: define {{.*}}<8 x float> @_ZGVdM8vu_f(

; CHECK-LABEL: define void @f_map(i64 %n, ptr %x, float %k, ptr %out)
; CHECK: urem i64 %n, 8
; CHECK: group:
; CHECK: [[AT:%.*]] = getelementptr float, ptr %x, i64 [[I:%.*]]
; CHECK-NEXT: [[V:%.*]] = load <8 x float>, ptr [[AT]], align 4
; CHECK-NEXT: [[R:%.*]] = call <8 x float> @_ZGVdN8vu_f(<8 x float> [[V]], float %k)
; CHECK-NEXT: [[OUT:%.*]] = getelementptr float, ptr %out, i64 [[I]]
; CHECK-NEXT: store <8 x float> [[R]], ptr [[OUT]], align 4
; CHECK: add i64 [[I]], 8
; CHECK: tail:
; CHECK: [[ON:%.*]] = icmp ult <8 x i64> <i64 0, i64 1, i64 2, i64 3, i64 4, i64 5, i64 6, i64 7>
; CHECK: call <8 x float> @llvm.masked.load.v8f32.p0(ptr align 4 {{%.*}}, <8 x i1> [[ON]], <8 x float> zeroinitializer)
; CHECK: call <8 x float> @_ZGVdM8vu_f(
; CHECK: call void @llvm.masked.store.v8f32.p0(<8 x float> {{%.*}}, ptr align 4 {{%.*}}, <8 x i1> [[ON]])
; CHECK-NOT: gather
; CHECK: ret void

; The linear parameter: element i gets `%i + i * 4`.
; CHECK-LABEL: define void @g_map(i64 %n, i32 %i, ptr %y, ptr %out)
; CHECK: group:
; CHECK: [[J:%.*]] = phi i64
; CHECK: [[OFF:%.*]] = mul i64 [[J]], 4
; CHECK-NEXT: [[T:%.*]] = trunc i64 [[OFF]] to i32
; CHECK-NEXT: [[BASE:%.*]] = add i32 %i, [[T]]
; CHECK: call <16 x i32> @_ZGVeN16l4v_g(i32 [[BASE]], <16 x i32>
; CHECK: tail:
; CHECK: call <16 x i32> @_ZGVeM16l4v_g(i32 {{%.*}}, <16 x i32> {{%.*}}, i16
; CHECK: call void @llvm.masked.store.v16i32.p0(

target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

define float @f(float %x, float %k) {
entry:
  br label %loop
loop:
  %v = phi float [ %x, %entry ], [ %v1, %loop ]
  %i = phi i32 [ 0, %entry ], [ %i1, %loop ]
  %v1 = fmul float %v, %k
  %i1 = add i32 %i, 1
  %big = fcmp olt float %v1, 100.0
  %lim = icmp slt i32 %i1, 50
  %go = and i1 %big, %lim
  br i1 %go, label %loop, label %exit
exit:
  ret float %v1
}

define i32 @g(i32 %i, i32 %y) {
  %c = icmp sgt i32 %y, %i
  %s = select i1 %c, i32 %y, i32 %i
  ret i32 %s
}
