; Calls to an external function: no vector form, so once per lane.
declare float @ext(float)

define float @callext(float %x, float %u) {
  %a = fadd float %x, 1.0
  %c = call float @ext(float %a)
  %d = call float @ext(float %u)
  %r = fmul float %c, %d
  ret float %r
}
