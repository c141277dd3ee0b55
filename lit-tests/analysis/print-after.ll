; --print-after shows the IR after a stage on stderr: the prepared copy
; (mem2reg has removed the stack slot), the clone as built, and the
; finished clone; the output module is unaffected. A bad stage name is a
; usage error.
;
; RUN: %batchify %s -o %t.ll -S --variant _ZGV_LLVM_N4v_f --print-after all 2> %t.err
; RUN: FileCheck %s < %t.err
; RUN: FileCheck %s --check-prefix=OUT < %t.ll
; RUN: not %batchify %s -o %t.ll --variant _ZGV_LLVM_N4v_f --print-after nonsense 2>&1 | FileCheck %s --check-prefix=BAD

define i32 @f(i32 %x) {
entry:
  %slot = alloca i32, align 4
  store i32 %x, ptr %slot, align 4
  %v = load i32, ptr %slot, align 4
  %r = mul i32 %v, 3
  ret i32 %r
}

; CHECK:      ; *** IR after prepare ***
; CHECK-NEXT: define internal i32 @__batchify_scratch.f(i32 %x) {
; CHECK-NOT:  alloca
; CHECK:      ; *** IR after emit ***
; CHECK-NEXT: define <4 x i32> @_ZGV_LLVM_N4v_f(<4 x i32> %x)
; CHECK:      ; *** IR after finish ***
; CHECK-NEXT: define <4 x i32> @_ZGV_LLVM_N4v_f(<4 x i32> %x)
; CHECK-NEXT: entry:
; CHECK-NEXT:   %r = mul <4 x i32> %x, splat (i32 3)
; CHECK-NEXT:   ret <4 x i32> %r

; OUT-NOT: __batchify_scratch
; OUT: define <4 x i32> @_ZGV_LLVM_N4v_f(

; BAD: error: invalid value 'nonsense' for '--print-after <STAGE>': unknown stage `nonsense`
