; LLVM 22.1 x86 code generation never finishes on this function with an
; AVX2-class CPU: `llc-22 -O2 -mcpu=x86-64-v3` (also znver1..3, skylake)
; loops in SelectionDAG::Combine; `-mcpu=x86-64` and x86-64-v2 finish.
; Reduced with llvm-reduce from the scalar code of fuzz program seed
; 2076274 (no batchify output involved). Not run by any test: kept as the
; reproducer for docs/limits.md.

define fastcc i64 @fuzz_2076274(float %t71, i1 %t73, i1 %t74, i64 %t76, i64 %t77, i1 %t83) {
entry:
  %t711 = load float, ptr null, align 4
  %t72 = fcmp oge float 0.000000e+00, 0.000000e+00
  %t732 = fcmp olt float %t71, 0.000000e+00
  %t743 = and i1 true, %t73
  %t764 = select i1 %t73, i64 0, i64 -9223372036854775808
  %t775 = or i64 1, %t76
  %t78 = xor i64 9223372036854775807, -9223372036854775808
  %t79 = xor i64 %t76, %t78
  ret i64 %t79
}
