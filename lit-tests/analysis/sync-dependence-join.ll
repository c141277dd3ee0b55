; Sync dependence: the phi where lanes that took different sides of a
; divergent branch meet is varying, although both incoming values are
; uniform constants (`f`). The same diamond on a uniform condition, in a
; function without divergent branches, keeps its join phi uniform and its
; real control flow (`g`).
;
; RUN: %batchify %s -o /dev/null --variant _ZGV_LLVM_N4vu_f --variant _ZGV_LLVM_N4vu_g --print-analysis 2>&1 | FileCheck %s

define i32 @f(i32 %x, i32 %u) {
entry:
  %c = icmp sgt i32 %x, 0
  br i1 %c, label %a, label %b
a:
  br label %join
b:
  br label %join
join:
  %p = phi i32 [ 1, %a ], [ 2, %b ]
  %r = add i32 %p, %u
  ret i32 %r
}

define i32 @g(i32 %x, i32 %u) {
entry:
  %cu = icmp sgt i32 %u, 0
  br i1 %cu, label %ua, label %ub
ua:
  br label %ujoin
ub:
  br label %ujoin
ujoin:
  %q = phi i32 [ 3, %ua ], [ 4, %ub ]
  %r = add i32 %x, %q
  ret i32 %r
}

; CHECK-LABEL: ; *** analysis of `f` for `_ZGV_LLVM_N4vu_f` ***
; CHECK:      params:
; CHECK-NEXT:   %x: varying
; CHECK-NEXT:   %u: uniform
; CHECK:        varying %c = icmp sgt i32 %x, 0
; CHECK:        varying br i1 %c, label %a, label %b
; CHECK:        varying %p = phi i32 [ 1, %a ], [ 2, %b ]
; CHECK:      plan:
; CHECK-NEXT:   function: linearized:

; CHECK-LABEL: ; *** analysis of `g` for `_ZGV_LLVM_N4vu_g` ***
; CHECK:        uniform %cu = icmp sgt i32 %u, 0
; CHECK:        uniform br i1 %cu, label %ua, label %ub
; CHECK:        uniform %q = phi i32 [ 3, %ua ], [ 4, %ub ]
; CHECK:        varying %r = add i32 %x, %q
; CHECK:      plan:
; CHECK-NEXT:   function: real control flow:
