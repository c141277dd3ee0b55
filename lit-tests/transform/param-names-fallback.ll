; BUG (minor, batchify-core per-lane fallback): the per-lane fallback clone
; does not copy the scalar function's parameter names, so its parameters
; are `%0, %1, ...` (and a masked variant's mask is `%1`, not `%mask`),
; while every vectorized clone keeps them (param-names.ll). Remove the XFAIL
; once the fallback names its parameters too.
;
; RUN: %batchify %s -S -o %t.ll --variant _ZGVbN4uv_asm --variant _ZGVbM4uv_asm 2> %t.err
; RUN: FileCheck %s < %t.ll

define i32 @asm(ptr %p, i32 %x) {
  %r = call i32 asm "bswap $0", "=r,0"(i32 %x)
  ret i32 %r
}

; CHECK-LABEL: define <4 x i32> @_ZGVbN4uv_asm(ptr %p, <4 x i32> %x)
; CHECK-LABEL: define <4 x i32> @_ZGVbM4uv_asm(ptr %p, <4 x i32> %x, <4 x i32> %mask)
