; 8-lane wrappers of `cargo xtask bench-autodiff` (xtask/src/bench_autodiff.rs):
; each takes 8 points (and writes 8 results) through pointers, so that the
; driver (C, another object) never passes an 8 x double vector by value.
; Written in IR because batchify's 8-lane double clones have types C cannot
; declare here: on AVX2 (`_ZGVd`), an <8 x double> parameter is passed as two
; <4 x double> halves and an <8 x double> result through a hidden `sret`
; pointer (GCC's lowering, docs/gcc-abi.md), and the `{double, double}`
; result of Enzyme's reverse derivative becomes {<8 x double>, <8 x double>},
; returned by value (GCC has no lowering for struct results).
;
; Linked into the module that Enzyme then processes (x8_primal is what
; benches/autodiff/enzyme_x8.c differentiates). The clones of Enzyme's
; derivative functions are declared here and defined by the second batchify
; run, after Enzyme.

target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

; batchify --for-autodiff --variant _ZGVdN8vv_smooth_mandel (before Enzyme)
declare void @_ZGVdN8vv_smooth_mandel(ptr sret(<8 x double>) align 32, <4 x double>, <4 x double>, <4 x double>, <4 x double>)
; batchify --variant _ZGVdN8vvvv_fwddiffesmooth_mandel (after Enzyme):
; (x, dx, y, dy) -> d smooth_mandel along (dx, dy)
declare void @_ZGVdN8vvvv_fwddiffesmooth_mandel(ptr sret(<8 x double>) align 32, <4 x double>, <4 x double>, <4 x double>, <4 x double>, <4 x double>, <4 x double>, <4 x double>, <4 x double>)
; batchify --variant _ZGVdN8vvv_diffesmooth_mandel (after Enzyme):
; (x, y, dret) -> {dret * d/dx, dret * d/dy}
declare { <8 x double>, <8 x double> } @_ZGVdN8vvv_diffesmooth_mandel(<4 x double>, <4 x double>, <4 x double>, <4 x double>, <4 x double>, <4 x double>)

; out[0..8] = smooth_mandel(x[k], y[k]) by the 8-lane clone.
define void @x8_primal(ptr %x, ptr %y, ptr %out) {
  %x0 = load <4 x double>, ptr %x, align 8
  %xh = getelementptr inbounds i8, ptr %x, i64 32
  %x1 = load <4 x double>, ptr %xh, align 8
  %y0 = load <4 x double>, ptr %y, align 8
  %yh = getelementptr inbounds i8, ptr %y, i64 32
  %y1 = load <4 x double>, ptr %yh, align 8
  %r = alloca <8 x double>, align 32
  call void @_ZGVdN8vv_smooth_mandel(ptr sret(<8 x double>) align 32 %r, <4 x double> %x0, <4 x double> %x1, <4 x double> %y0, <4 x double> %y1)
  %v = load <8 x double>, ptr %r, align 32
  store <8 x double> %v, ptr %out, align 8
  ret void
}

; fx[k] = d/dx, fy[k] = d/dy of smooth_mandel at (x[k], y[k]): two calls of
; the 8-lane clone of Enzyme's forward derivative, seeds (1, 0) and (0, 1).
define void @x8_bf_fwd(ptr %x, ptr %y, ptr %fx, ptr %fy) {
  %x0 = load <4 x double>, ptr %x, align 8
  %xh = getelementptr inbounds i8, ptr %x, i64 32
  %x1 = load <4 x double>, ptr %xh, align 8
  %y0 = load <4 x double>, ptr %y, align 8
  %yh = getelementptr inbounds i8, ptr %y, i64 32
  %y1 = load <4 x double>, ptr %yh, align 8
  %r = alloca <8 x double>, align 32
  call void @_ZGVdN8vvvv_fwddiffesmooth_mandel(ptr sret(<8 x double>) align 32 %r, <4 x double> %x0, <4 x double> %x1, <4 x double> splat (double 1.0), <4 x double> splat (double 1.0), <4 x double> %y0, <4 x double> %y1, <4 x double> zeroinitializer, <4 x double> zeroinitializer)
  %dx = load <8 x double>, ptr %r, align 32
  store <8 x double> %dx, ptr %fx, align 8
  call void @_ZGVdN8vvvv_fwddiffesmooth_mandel(ptr sret(<8 x double>) align 32 %r, <4 x double> %x0, <4 x double> %x1, <4 x double> zeroinitializer, <4 x double> zeroinitializer, <4 x double> %y0, <4 x double> %y1, <4 x double> splat (double 1.0), <4 x double> splat (double 1.0))
  %dy = load <8 x double>, ptr %r, align 32
  store <8 x double> %dy, ptr %fy, align 8
  ret void
}

; gx[k], gy[k] = gradient of smooth_mandel at (x[k], y[k]): one call of the
; 8-lane clone of Enzyme's reverse derivative, dret = 1.
define void @x8_bf_rev(ptr %x, ptr %y, ptr %gx, ptr %gy) {
  %x0 = load <4 x double>, ptr %x, align 8
  %xh = getelementptr inbounds i8, ptr %x, i64 32
  %x1 = load <4 x double>, ptr %xh, align 8
  %y0 = load <4 x double>, ptr %y, align 8
  %yh = getelementptr inbounds i8, ptr %y, i64 32
  %y1 = load <4 x double>, ptr %yh, align 8
  %g = call { <8 x double>, <8 x double> } @_ZGVdN8vvv_diffesmooth_mandel(<4 x double> %x0, <4 x double> %x1, <4 x double> %y0, <4 x double> %y1, <4 x double> splat (double 1.0), <4 x double> splat (double 1.0))
  %dx = extractvalue { <8 x double>, <8 x double> } %g, 0
  store <8 x double> %dx, ptr %gx, align 8
  %dy = extractvalue { <8 x double>, <8 x double> } %g, 1
  store <8 x double> %dy, ptr %gy, align 8
  ret void
}
