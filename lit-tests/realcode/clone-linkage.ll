; Issue 6, item 8: one rule for the clone's symbol (docs/semantics.md).
; The clone takes the scalar function's linkage, visibility, DLL storage,
; unnamed_addr and section; an `available_externally` scalar (defined
; elsewhere; its body here is only for inlining) gets a `weak_odr` clone,
; a real definition that still links if another module defines it too; a
; scalar in a comdat puts its clone into a comdat of the clone's own name.
;
; RUN: %batchify %s -S -o %t.ll --function ae --function lo --function in --function hid -n 4
; RUN: FileCheck %s < %t.ll
; The available_externally clone is really emitted:
; RUN: %clang -c %t.ll -o %t.o
; RUN: llvm-nm %t.o | FileCheck %s --check-prefix=NM

$lo = comdat any

define available_externally i32 @ae(i32 %x) {
  %r = add i32 %x, 1
  ret i32 %r
}

define linkonce_odr i32 @lo(i32 %x) comdat {
  %r = add i32 %x, 2
  ret i32 %r
}

define internal i32 @in(i32 %x) {
  %r = add i32 %x, 3
  ret i32 %r
}

define hidden i32 @hid(i32 %x) unnamed_addr section ".text.hot" {
  %r = add i32 %x, 4
  ret i32 %r
}

; CHECK: $_ZGV_LLVM_N4v_lo = comdat any
; CHECK-LABEL: define weak_odr <4 x i32> @_ZGV_LLVM_N4v_ae(
; CHECK-LABEL: define linkonce_odr <4 x i32> @_ZGV_LLVM_N4v_lo({{.*}}) {{.*}}comdat {
; CHECK-LABEL: define internal <4 x i32> @_ZGV_LLVM_N4v_in(
; CHECK-LABEL: define hidden <4 x i32> @_ZGV_LLVM_N4v_hid({{.*}}) unnamed_addr {{.*}}section ".text.hot"

; NM: W _ZGV_LLVM_N4v_ae
