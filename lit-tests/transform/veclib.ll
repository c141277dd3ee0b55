; --veclib libmvec (emit/veclib.rs): `llvm.exp.f32` and a `memory(none)`
; call of libm's `sin` become calls of glibc's libmvec for the clone's ISA
; at that ISA's width: one `_ZGVdN8v_expf` for an 8-lane AVX2 clone, two
; `_ZGVdN4v_sin` for its 8 doubles, two `_ZGVbN4v_expf` for an 8-lane
; generic clone (SSE variants), and one padded `_ZGVbN4v_expf` for a 2-lane
; one. --report names each function with libmvec's 4-ulp bound. Without
; --veclib, `llvm.exp` keeps its exact lane-wise form and `sin` runs per
; lane.
;
; RUN: %batchify %s -S -o %t.ll --function f --function s --isa avx2 --veclib libmvec --report 2> %t.report
; RUN: FileCheck %s --check-prefix=AVX2 < %t.ll
; RUN: FileCheck %s --check-prefix=REPORT < %t.report
; RUN: %batchify %s -S -o %t.g.ll --function f -n 8 --veclib libmvec
; RUN: FileCheck %s --check-prefix=GENERIC < %t.g.ll
; RUN: %batchify %s -S -o %t.p.ll --function f -n 2 --veclib libmvec
; RUN: FileCheck %s --check-prefix=PAD < %t.p.ll
; RUN: %batchify %s -S -o %t.n.ll --function f --function s --isa avx2 --report 2> %t.n.report
; RUN: FileCheck %s --check-prefix=NONE < %t.n.ll
; RUN: FileCheck %s --check-prefix=NONE-REPORT < %t.n.report

define float @f(float %x) {
  %r = call float @llvm.exp.f32(float %x)
  ret float %r
}

define double @s(double %x) {
  %r = call double @sin(double %x) #0
  ret double %r
}

declare float @llvm.exp.f32(float)
declare double @sin(double)
attributes #0 = { nounwind willreturn memory(none) }

; AVX2-LABEL: define <8 x float> @_ZGVdN8v_f(
; AVX2:         call <8 x float> @_ZGVdN8v_expf(<8 x float>
; 8 doubles are wider than a ymm register: returned in memory (GCC's ABI).
; AVX2-LABEL: define void @_ZGVdN8v_s(ptr noalias sret(<8 x double>) align 32
; AVX2-COUNT-2: call <4 x double> @_ZGVdN4v_sin(<4 x double>

; REPORT: batchify: f -> _ZGVdN8v_f: 8 lanes, 1 vector instruction(s), 0 uniform, 0 per-lane
; REPORT-NEXT: batchify:   veclib: expf -> _ZGVdN8v_expf (libmvec, at most 4 ulp)
; REPORT:      batchify: s -> _ZGVdN8v_s: 8 lanes, 1 vector instruction(s), 0 uniform, 0 per-lane
; REPORT-NEXT: batchify:   veclib: sin -> _ZGVdN4v_sin (libmvec, at most 4 ulp)

; GENERIC-LABEL: define <8 x float> @_ZGV_LLVM_N8v_f(
; GENERIC-COUNT-2: call <4 x float> @_ZGVbN4v_expf(<4 x float>

; PAD-LABEL: define <2 x float> @_ZGV_LLVM_N2v_f(
; PAD:         shufflevector <2 x float> {{%.*}}, <2 x float> {{.*}}, <4 x i32> <i32 0, i32 1, i32 2, i32 2>
; PAD-NEXT:    call <4 x float> @_ZGVbN4v_expf(<4 x float>
; PAD-NEXT:    shufflevector <4 x float> {{%.*}}, <4 x float> poison, <2 x i32> <i32 0, i32 1>

; NONE-NOT:    _ZGVdN8v_expf
; NONE-LABEL: define <8 x float> @_ZGVdN8v_f(
; NONE:         call <8 x float> @llvm.exp.v8f32(
; NONE-LABEL: define void @_ZGVdN8v_s(
; NONE-COUNT-8: call double @sin(double
; NONE-NOT:    _ZGV{{.}}N{{[0-9]+}}v_{{exp|sin}}

; NONE-REPORT: batchify:   per-lane: call to `sin`
; NONE-REPORT-NOT: veclib
