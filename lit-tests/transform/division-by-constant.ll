; BUG (performance, batchify-core division guard): a division under a
; divergent branch gets its divisor guarded (`select mask, d, 1`) even when
; the divisor is a constant that cannot trap (nonzero, and not -1 for
; sdiv/srem). The guard turns `sdiv %x, 2` into a division by a variable
; vector, which x86 has no instruction for: llc emits 8 scalar `idiv`s
; instead of a shift. Expected: a constant safe divisor is used as is.
; Remove the XFAIL once safe constant divisors are not guarded.
;
; RUN: %batchify %s -S -o %t.ll --function half --function rem10 -n 8
; RUN: FileCheck %s < %t.ll

define i32 @half(i32 %x) {
entry:
  %c = icmp sgt i32 %x, 0
  br i1 %c, label %then, label %join
then:
  %h = sdiv i32 %x, 2
  br label %join
join:
  %r = phi i32 [ %h, %then ], [ %x, %entry ]
  ret i32 %r
}

define i32 @rem10(i32 %x) {
entry:
  %c = icmp ugt i32 %x, 100
  br i1 %c, label %then, label %join
then:
  %h = urem i32 %x, 10
  br label %join
join:
  %r = phi i32 [ %h, %then ], [ %x, %entry ]
  ret i32 %r
}

; CHECK-LABEL: define <8 x i32> @_ZGV_LLVM_N8v_half(
; CHECK-NOT:     splat (i32 1)
; CHECK:         sdiv <8 x i32> {{%.*}}, splat (i32 2)
; CHECK-LABEL: define <8 x i32> @_ZGV_LLVM_N8v_rem10(
; CHECK-NOT:     splat (i32 1)
; CHECK:         urem <8 x i32> {{%.*}}, splat (i32 10)
