; LLVM 22.1's x86 back end drops a volatile store and load of an <N x i1>
; whose value arrived on the stack, and reads the caller's <N x i16> there
; as packed bits. `@f` should return the mask's bits, as `@g` does; it
; returns the first byte of the in-memory <8 x i16> (lanes 0 and half of 1)
; and neither the volatile store nor the volatile load is in the code.
; Met by finish/mask_params.rs's first form (a volatile <N x i1> slot) on a
; reverse derivative's clone whose mask was the ninth vector argument
; (enzyme_fuzz seed 14811141, a SIGSEGV); the slot is an integer now.
;
;   llc-22 -O2 -mcpu=rocketlake volatile_mask_on_stack.ll -o -
;     f:  movzbl 8(%rsp), %eax                  <- the volatile pair is gone
;     g:  vpsllw $15, 8(%rsp), %xmm0 ; vpmovw2m %xmm0, %k0 ; kmovd %k0, %eax
;
; Not run by any test: the reproducer for docs/limits.md.

target triple = "x86_64-unknown-linux-gnu"
define i8 @f(<8 x double> %a0, <8 x double> %a1, <8 x double> %a2, <8 x double> %a3, <8 x double> %a4, <8 x double> %a5, <8 x double> %a6, <8 x double> %a7, <8 x i1> %mask) {
  %slot = alloca <8 x i1>
  store volatile <8 x i1> %mask, ptr %slot
  %m = load volatile <8 x i1>, ptr %slot
  %b = bitcast <8 x i1> %m to i8
  ret i8 %b
}
define i8 @g(<8 x double> %a0, <8 x double> %a1, <8 x double> %a2, <8 x double> %a3, <8 x double> %a4, <8 x double> %a5, <8 x double> %a6, <8 x double> %a7, <8 x i1> %mask) {
  %b = bitcast <8 x i1> %mask to i8
  ret i8 %b
}
