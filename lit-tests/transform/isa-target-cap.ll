; A variant's ISA fixes its target whatever the module's (shell/target.rs,
; docs/gcc-abi.md): from a function compiled with -march=x86-64-v3, the SSE2
; clone loses every AVX feature and the CPU (which implies AVX2), the AVX
; clone keeps FMA but not AVX2, the AVX2 clone keeps FMA. Vectors wider than
; the ISA's register travel in register-sized pieces, wider results through
; a hidden pointer (GCC 12's ABI).
;
; RUN: %batchify %s -S -o %t.ll --variant _ZGVbN4v_f --variant _ZGVcN4v_f --variant _ZGVdN4v_f --variant _ZGVbN4v_g
; RUN: FileCheck %s < %t.ll

define double @f(ptr %p) #0 {
  %x = load double, ptr %p, align 8
  %r = fadd double %x, 1.0
  ret double %r
}

define i64 @g(i64 %x) #0 {
  %r = mul i64 %x, 3
  ret i64 %r
}

attributes #0 = { nounwind "target-cpu"="x86-64-v3" "target-features"="+avx,+avx2,+bmi2,+f16c,+fma,+popcnt,+sse2,+sse4.2" }

; Four pointers under SSE2: two xmm pieces; four doubles returned in memory.
; CHECK: define void @_ZGVbN4v_f(ptr noalias sret(<4 x double>) align 16 %0, <2 x ptr> %1, <2 x ptr> %2) #[[B:[0-9]+]]
; Under AVX, pointers (integers) travel in 128-bit pieces, doubles in ymm.
; CHECK: define <4 x double> @_ZGVcN4v_f(<2 x ptr> %0, <2 x ptr> %1) #[[C:[0-9]+]]
; CHECK: define <4 x double> @_ZGVdN4v_f(<4 x ptr> {{%.*}}) #[[D:[0-9]+]]
; CHECK: define void @_ZGVbN4v_g(ptr noalias sret(<4 x i64>) align 16 %0, <2 x i64> %1, <2 x i64> %2) #[[B]]
; CHECK-DAG: attributes #[[B]] = { nounwind "min-legal-vector-width"="128" "target-cpu"="x86-64" "target-features"="+bmi2,+popcnt,+sse4.2,+sse2" "tune-cpu"="x86-64-v3" }
; CHECK-DAG: attributes #[[C]] = { nounwind "min-legal-vector-width"="256" "target-cpu"="x86-64" "target-features"="+bmi2,+f16c,+fma,+popcnt,+sse2,+sse4.2,+avx" "tune-cpu"="x86-64-v3" }
; CHECK-DAG: attributes #[[D]] = { nounwind "min-legal-vector-width"="256" "target-cpu"="x86-64" "target-features"="+avx,+bmi2,+f16c,+fma,+popcnt,+sse2,+sse4.2,+avx2" "tune-cpu"="x86-64-v3" }
