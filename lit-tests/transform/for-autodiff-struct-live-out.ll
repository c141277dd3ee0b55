; --for-autodiff with a struct-typed value leaving a divergent loop: the
; live-out `%acc.next` ({double, double}, held as a struct of vectors) is
; blended on the exit edge leaf by leaf and lane by lane (scalar selects
; between extract/insertelement), as scalar floating-point live-outs are:
; Enzyme's reverse mode asserts on a loop phi fed by a vector select
; (docs/autodiff.md). The back edge holds finished lanes' values with one
; vector select per leaf, on the mask of the lanes that began the trip (the
; loop's header mask), which Enzyme accepts. The default mode blends
; the struct with vector selects.
;
; RUN: %batchify %s -S -o %t.ll --variant _ZGV_LLVM_N4vv_spin --for-autodiff --no-fallback
; RUN: FileCheck %s < %t.ll
; RUN: %batchify %s -S -o %t.default.ll --variant _ZGV_LLVM_N4vv_spin --no-fallback
; RUN: FileCheck %s --check-prefix=DEFAULT < %t.default.ll

define { double, double } @spin(double %x, i32 %n) {
entry:
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i.next, %loop ]
  %acc = phi { double, double } [ { double 1.0, double 0.0 }, %entry ], [ %acc.next, %loop ]
  %a = extractvalue { double, double } %acc, 0
  %b = extractvalue { double, double } %acc, 1
  %a2 = fmul double %a, %x
  %b2 = fadd double %b, %a
  %t = insertvalue { double, double } poison, double %a2, 0
  %acc.next = insertvalue { double, double } %t, double %b2, 1
  %i.next = add i32 %i, 1
  %c = icmp slt i32 %i.next, %n
  br i1 %c, label %loop, label %exit
exit:
  ret { double, double } %acc.next
}

; CHECK-LABEL: define { <4 x double>, <4 x double> } @_ZGV_LLVM_N4vv_spin(
; CHECK:         %[[HELD:[0-9]+]] = phi { <4 x double>, <4 x double> } [ poison, %entry ]
; CHECK:         select <4 x i1> %mask.loop{{[0-9]*}}, <4 x double> %a2, <4 x double> %a
; CHECK:         extractvalue { <4 x double>, <4 x double> } %[[HELD]], 0
; CHECK-COUNT-4: select i1 %{{[0-9]+}}, double %{{[0-9]+}}, double %{{[0-9]+}}
; CHECK:         extractvalue { <4 x double>, <4 x double> } %[[HELD]], 1
; CHECK-COUNT-4: select i1 %{{[0-9]+}}, double %{{[0-9]+}}, double %{{[0-9]+}}
; CHECK-NOT:     select <4 x i1> {{.*}} <4 x double> %a2, <4 x double> %{{[0-9]+}}
; CHECK:         ret

; DEFAULT-LABEL: define { <4 x double>, <4 x double> } @_ZGV_LLVM_N4vv_spin(
; DEFAULT-NOT:     select i1
; DEFAULT:         select <4 x i1> %{{[0-9a-z.]+}}, <4 x double> %a2, <4 x double> %{{[0-9]+}}
