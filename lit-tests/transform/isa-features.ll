; x86 Vector Function ABI variants get their ISA's target features and a
; "min-legal-vector-width" as wide as their vector arguments, merged into
; the scalar function's own attributes; _LLVM_ variants get no features.
;
; RUN: %batchify %s -S -o %t.ll --variant _ZGVeN16v_f --variant _ZGVbN4v_f \
; RUN:   --variant _ZGVcN8v_f --variant _ZGVdN8v_f --variant _ZGV_LLVM_N4v_g \
; RUN:   --variant _ZGVbN2v_g
; RUN: FileCheck %s < %t.ll
; `--function` with `--isa` gives the same mangled name and attributes.
; RUN: %batchify %s -S -o %t2.ll --function g --isa avx512 -n 8
; RUN: FileCheck %s --check-prefix=ISA < %t2.ll

define float @f(float %x) #0 {
  %r = fmul float %x, %x
  ret float %r
}

define double @g(double %x) {
  %r = fadd double %x, 1.0
  ret double %r
}

attributes #0 = { nounwind "target-cpu"="x86-64" "target-features"="+cx8,+sse,+sse2" "min-legal-vector-width"="0" }

; The scalar function keeps its attributes.
; CHECK:       define float @f(float %x) #[[SCALAR:[0-9]+]]
; CHECK:       define <16 x float> @_ZGVeN16v_f(<16 x float> {{%.*}}) #[[AVX512:[0-9]+]]
; CHECK:       define <4 x float> @_ZGVbN4v_f(<4 x float> {{%.*}}) #[[SSE:[0-9]+]]
; CHECK:       define <8 x float> @_ZGVcN8v_f(<8 x float> {{%.*}}) #[[AVX:[0-9]+]]
; CHECK:       define <8 x float> @_ZGVdN8v_f(<8 x float> {{%.*}}) #[[AVX2:[0-9]+]]
; CHECK:       define <4 x double> @_ZGV_LLVM_N4v_g(<4 x double> {{%.*}}) #[[GEN:[0-9]+]]
; CHECK:       define <2 x double> @_ZGVbN2v_g(<2 x double> {{%.*}}) #[[SSEG:[0-9]+]]

; CHECK-DAG: attributes #[[SCALAR]] = { nounwind "min-legal-vector-width"="0" "target-cpu"="x86-64" "target-features"="+cx8,+sse,+sse2" }
; CHECK-DAG: attributes #[[AVX512]] = { nounwind "min-legal-vector-width"="512" "target-cpu"="x86-64" "target-features"="+cx8,+sse,+sse2,+avx512f" }
; CHECK-DAG: attributes #[[SSE]] = { nounwind "min-legal-vector-width"="128" "target-cpu"="x86-64" "target-features"="+cx8,+sse,+sse2{{(,\+sse2)?}}" }
; CHECK-DAG: attributes #[[AVX]] = { nounwind "min-legal-vector-width"="256" "target-cpu"="x86-64" "target-features"="+cx8,+sse,+sse2,+avx" }
; CHECK-DAG: attributes #[[AVX2]] = { nounwind "min-legal-vector-width"="256" "target-cpu"="x86-64" "target-features"="+cx8,+sse,+sse2,+avx2" }
; CHECK-DAG: attributes #[[GEN]] = { "min-legal-vector-width"="256" }
; CHECK-DAG: attributes #[[SSEG]] = { "min-legal-vector-width"="128" "target-features"="+sse2" }

; ISA:       define <8 x double> @_ZGVeN8v_g(<8 x double> {{%.*}}) #[[A:[0-9]+]]
; ISA:       attributes #[[A]] = { "min-legal-vector-width"="512" "target-features"="+avx512f" }
