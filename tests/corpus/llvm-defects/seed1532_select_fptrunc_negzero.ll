; LLVM 22.1.8's instcombine: select (fcmp ogt %x, 0.0), 0.0, (fptrunc %x) becomes
; fptrunc (select (fcmp oge %x, 0.0), 0.0, %x), which gives +0.0 instead of -0.0 for
; %x = -0.0 (no nsz anywhere). Met by batchify-fuzz seed 1532 (every ISA and width:
; the clone's cleanup applies it, and 1/x then gives +inf for -inf); the same fold
; as seed 1025667 in docs/limits.md.
;
;   opt-22 -S -passes=instcombine seed1532_select_fptrunc_negzero.ll
;
; Not run by any test: the reproducer for docs/limits.md.

define float @f(double %x) {
  %c = fcmp ogt double %x, 0.0
  %z = fdiv float 0.0, 10.0
  %t = fptrunc double %x to float
  %s = select i1 %c, float %z, float %t
  ret float %s
}
define <8 x float> @v(<8 x double> %x) {
  %c = fcmp ogt <8 x double> %x, zeroinitializer
  %t = fptrunc <8 x double> %x to <8 x float>
  %s = select <8 x i1> %c, <8 x float> zeroinitializer, <8 x float> %t
  ret <8 x float> %s
}
