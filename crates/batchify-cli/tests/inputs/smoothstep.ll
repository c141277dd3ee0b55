; smoothstep with uniform edges (the classic `_ZGVdN8uuv_smoothstep`).
define float @smoothstep(float %e0, float %e1, float %x) {
entry:
  %d = fsub float %e1, %e0
  %n = fsub float %x, %e0
  %t = fdiv float %n, %d
  %c0 = call float @llvm.maxnum.f32(float %t, float 0.0)
  %c = call float @llvm.minnum.f32(float %c0, float 1.0)
  %a = fmul float %c, 2.0
  %b = fsub float 3.0, %a
  %cc = fmul float %c, %c
  %r = fmul float %cc, %b
  ret float %r
}

declare float @llvm.maxnum.f32(float, float)
declare float @llvm.minnum.f32(float, float)
