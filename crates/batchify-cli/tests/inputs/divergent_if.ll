; A divergent if/else: `float sqrt_or_neg(float x) { return x > 0 ? sqrtf(x) : -x; }`
; as clang -O0 -fno-math-errno + mem2reg gives it (values named): a real
; branch on a varying compare, joined by a phi.
define float @sqrt_or_neg(float %x) {
entry:
  %pos = fcmp ogt float %x, 0.000000e+00
  br i1 %pos, label %then, label %else

then:
  %s = call float @llvm.sqrt.f32(float %x)
  br label %join

else:
  %n = fneg float %x
  br label %join

join:
  %r = phi float [ %s, %then ], [ %n, %else ]
  ret float %r
}

declare float @llvm.sqrt.f32(float)
