; C++ reference parameters in `declare simd`: GCC mangles `linear(ref(x):1)`
; on `float &x` as `R4` and passes one pointer (lane k's reference is 4k bytes
; further), and `linear(val(x))` as `L` with one pointer per lane. `R4` is a
; linear pointer: its loads and stores are single vector accesses. `L` is a
; vector of pointers (a gather). `U` (linear(uval)) is refused with one error line.
;
; RUN: %batchify %s -o - -S --variant _ZGVdN8R4__Z1fRf --variant _ZGVdN8L__Z1gRi | FileCheck %s
; RUN: not %batchify %s -o /dev/null --variant _ZGVdN8U__Z1gRi 2>&1 | FileCheck %s --check-prefix=UVAL

; CHECK-LABEL: define <8 x float> @_ZGVdN8R4__Z1fRf(ptr %x)
; CHECK: load <8 x float>, ptr %x, align 4
; CHECK: store <8 x float> {{.*}}, ptr %x, align 4
; GCC passes the 8 references in two ymm registers (see docs/gcc-abi.md).
; CHECK-LABEL: define <8 x i32> @_ZGVdN8L__Z1gRi(<4 x ptr> %0, <4 x ptr> %1)
; CHECK: @llvm.masked.gather
; UVAL: batchify: error: {{.*}}`U (linear(uval))` linear references are not supported
; UVAL-NOT: error

define float @_Z1fRf(ptr %x) {
  %v = load float, ptr %x, align 4
  %d = fmul float %v, 2.0
  store float %d, ptr %x, align 4
  %r = fadd float %v, 1.0
  ret float %r
}

define i32 @_Z1gRi(ptr %x) {
  %v = load i32, ptr %x, align 4
  %r = add i32 %v, 1
  ret i32 %r
}
