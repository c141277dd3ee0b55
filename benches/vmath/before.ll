; The clones batchify built before the exact-math recipes: a full-mask
; `frem`/`sdiv`/`urem` on vectors, which the x86 backend runs one lane at a
; time (8 `fmodf` calls, 8 `idiv`s).
define <8 x float> @old_fm(<8 x float> %x, <8 x float> %y) #0 {
  %r = frem <8 x float> %x, %y
  ret <8 x float> %r
}
define <4 x double> @old_fmd(<4 x double> %x, <4 x double> %y) #0 {
  %r = frem <4 x double> %x, %y
  ret <4 x double> %r
}
define <8 x i32> @old_sdiv32(<8 x i32> %a, <8 x i32> %b) #0 {
  %r = sdiv <8 x i32> %a, %b
  ret <8 x i32> %r
}
define <8 x i32> @old_urem32(<8 x i32> %a, <8 x i32> %b) #0 {
  %r = urem <8 x i32> %a, %b
  ret <8 x i32> %r
}
attributes #0 = { "target-cpu"="x86-64-v3" }
