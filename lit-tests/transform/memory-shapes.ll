; Memory by shape: a varying load or store is one vector access where the
; lanes' addresses are contiguous, one wide access plus a shuffle where they
; are a small constant stride apart, a gather only where they have no
; constant stride, and a store at a uniform address stores the last active
; lane's value with one scalar store. Under a partial mask the vector
; accesses are masked. The execution oracle checks these functions' kind of
; code in crates/batchify-testkit/tests/memory_corpus.rs.
;
; RUN: %batchify %s -S -o %t.ll --report --variant _ZGV_LLVM_M8ul_contig --variant _ZGV_LLVM_N8ul_contig64 \
; RUN:   --variant _ZGV_LLVM_N8ul_aos --variant _ZGV_LLVM_M8ulv_store_masked --variant _ZGV_LLVM_N8uv_random \
; RUN:   --variant _ZGV_LLVM_M8uv_last 2> %t.report
; RUN: FileCheck %s < %t.ll
; RUN: FileCheck %s --check-prefix=REPORT < %t.report

%struct.P3 = type { float, float, float }

; A linear i32 index, sign-extended: a masked vector load, behind a run-time
; test that the extension did not wrap between the first and last active
; lanes (else the gather).
define float @contig(ptr %t, i32 %i) {
  %x = sext i32 %i to i64
  %p = getelementptr inbounds float, ptr %t, i64 %x
  %v = load float, ptr %p, align 4
  ret float %v
}

; CHECK-LABEL: define <8 x float> @_ZGV_LLVM_M8ul_contig(
; CHECK:         br i1 {{%.*}}, label %shape.fast, label %shape.slow
; CHECK:       shape.fast:
; CHECK:         {{%.*}} = call <8 x float> @llvm.masked.load.v8f32.p0(ptr {{(nonnull )?}}align 4 {{%.*}}, <8 x i1> {{%.*}}, <8 x float> poison)
; CHECK:       shape.slow:
; CHECK-NEXT:    {{%.*}} = call <8 x float> @llvm.masked.gather.v8f32.v8p0(
; CHECK-LABEL: {{^}}}

; A linear i64 index needs no run-time test: one plain vector load.
define double @contig64(ptr %t, i64 %i) {
  %p = getelementptr inbounds double, ptr %t, i64 %i
  %v = load double, ptr %p, align 8
  ret double %v
}

; CHECK-LABEL: define <8 x double> @_ZGV_LLVM_N8ul_contig64(
; CHECK-NOT:     gather
; CHECK:         {{%.*}} = load <8 x double>, ptr {{%.*}}, align 8
; CHECK-NOT:     gather
; CHECK-LABEL: {{^}}}

; A field of an array of 12-byte structs: one wide masked load of 24 floats
; with every third element enabled, and a shuffle that picks them; no
; scalar loads and no gather.
define float @aos(ptr %s, i64 %i) {
  %p = getelementptr inbounds %struct.P3, ptr %s, i64 %i, i32 1
  %v = load float, ptr %p, align 4
  ret float %v
}

; CHECK-LABEL: define <8 x float> @_ZGV_LLVM_N8ul_aos(
; CHECK-NOT:     load float
; CHECK-NOT:     gather
; CHECK:         [[W:%.*]] = call <24 x float> @llvm.masked.load.v24f32.p0(ptr {{(nonnull )?}}align 4 {{%.*}}, <24 x i1> <i1 true, i1 false, i1 false, i1 true,
; CHECK-NEXT:    {{%.*}} = shufflevector <24 x float> [[W]], <24 x float> poison, <8 x i32> <i32 0, i32 3, i32 6, i32 9, i32 12, i32 15, i32 18, i32 21>
; CHECK-NOT:     load float
; CHECK-NOT:     gather
; CHECK-LABEL: {{^}}}

; A store under a divergent branch through a linear index: a masked vector
; store (the other lanes' elements are not touched).
define void @store_masked(ptr %t, i64 %i, float %x) {
entry:
  %c = fcmp ogt float %x, 0.0
  br i1 %c, label %then, label %done
then:
  %p = getelementptr inbounds float, ptr %t, i64 %i
  store float %x, ptr %p, align 4
  br label %done
done:
  ret void
}

; CHECK-LABEL: define void @_ZGV_LLVM_M8ulv_store_masked(
; CHECK-NOT:     scatter
; CHECK:         call void @llvm.masked.store.v8f32.p0(<8 x float> {{%.*}}, ptr {{(nonnull )?}}align 4 {{%.*}}, <8 x i1> {{%.*}})
; CHECK-NOT:     scatter
; CHECK-LABEL: {{^}}}

; A data-dependent index: a gather.
define float @random(ptr %t, i32 %x) {
  %h = mul i32 %x, -1640531535
  %k = lshr i32 %h, 26
  %z = zext i32 %k to i64
  %p = getelementptr inbounds float, ptr %t, i64 %z
  %v = load float, ptr %p, align 4
  ret float %v
}

; CHECK-LABEL: define <8 x float> @_ZGV_LLVM_N8uv_random(
; CHECK:         call <8 x float> @llvm.masked.gather.v8f32.v8p0(
; CHECK-LABEL: {{^}}}

; A varying value stored at a uniform address: the last active lane's
; value, one scalar store, only if some lane is active.
define void @last(ptr %out, i32 %x) {
  store i32 %x, ptr %out, align 4
  ret void
}

; CHECK-LABEL: define void @_ZGV_LLVM_M8uv_last(
; CHECK-NOT:     scatter
; CHECK:         [[L:%.*]] = extractelement <8 x i32> {{%.*}}, i64 {{%.*}}
; CHECK-NEXT:    store i32 [[L]], ptr %out, align 4
; CHECK-NOT:     scatter
; CHECK-LABEL: {{^}}}

; REPORT: contig -> _ZGV_LLVM_M8ul_contig:
; REPORT-NEXT: memory: vector access, checked at run time: `%v = load float, ptr %p, align 4`
; REPORT: contig64 -> _ZGV_LLVM_N8ul_contig64:
; REPORT-NEXT: memory: vector access: `%v = load double, ptr %p, align 8`
; REPORT: aos -> _ZGV_LLVM_N8ul_aos:
; REPORT-NEXT: memory: wide access, stride 3 elements: `%v = load float, ptr %p, align 4`
; REPORT: store_masked -> _ZGV_LLVM_M8ulv_store_masked:
; REPORT-NEXT: memory: vector access: `store float %x, ptr %p, align 4`
; REPORT: random -> _ZGV_LLVM_N8uv_random:
; REPORT-NEXT: memory: gather: `%v = load float, ptr %p, align 4` (the address has no constant stride)
; REPORT: last -> _ZGV_LLVM_M8uv_last:
; REPORT-NEXT: memory: last active lane's value: `store i32 %x, ptr %out, align 4`
