; A linear index (step 4 in the variant) and a linear pointer (step 4 bytes,
; one float per lane) next to a uniform scale.
define float @scaled_load(ptr %base, i32 %i, float %scale) {
  %idx = mul i32 %i, 3
  %f = sitofp i32 %idx to float
  %v = load float, ptr %base
  %m = fmul float %v, %scale
  %r = fadd float %m, %f
  ret float %r
}
