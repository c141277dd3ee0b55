; A heavy block of a linearized level runs behind an any-lane test: when no
; lane takes the divergent branch into it, the clone branches around it
; (`skip.run` / `skip.cont`), and its values reach later blocks through
; phis that are poison on the skipping path (no lane that reads them was
; there). A light block is not worth the test and runs under its mask as
; before. Checked after emission, before cleanup.
;
; RUN: %batchify %s -o /dev/null --variant _ZGV_LLVM_N8v_heavy --variant _ZGV_LLVM_N8v_light --print-after emit 2>&1 | FileCheck %s

declare float @llvm.sqrt.f32(float)

define float @heavy(float %x) {
entry:
  %c = fcmp olt float %x, 0.0
  br i1 %c, label %rare, label %join
rare:
  %a = fmul float %x, %x
  %b = fdiv float 1.0, %a
  %d = call float @llvm.sqrt.f32(float %b)
  %e = fdiv float %d, %x
  %f = fadd float %e, %b
  %g = fmul float %f, %f
  br label %join
join:
  %r = phi float [ %g, %rare ], [ %x, %entry ]
  ret float %r
}

; CHECK-LABEL: define <8 x float> @_ZGV_LLVM_N8v_heavy(
; CHECK:         [[ANY:%.*]] = call i1 @llvm.vector.reduce.or.v8i1(<8 x i1> %mask.rare{{[0-9]*}})
; CHECK-NEXT:    br i1 [[ANY]], label %skip.run, label %skip.cont
; CHECK:       skip.run:
; CHECK:         %b = fdiv <8 x float>
; CHECK:       skip.cont:
; CHECK:         phi <8 x float> [ %g, %skip.run ], [ poison, %{{.*}} ]
; CHECK-LABEL: {{^}}}

define float @light(float %x) {
entry:
  %c = fcmp olt float %x, 0.0
  br i1 %c, label %neg, label %join
neg:
  %n = fneg float %x
  br label %join
join:
  %r = phi float [ %n, %neg ], [ %x, %entry ]
  ret float %r
}

; CHECK-LABEL: define <8 x float> @_ZGV_LLVM_N8v_light(
; CHECK-NOT:     skip.run
; CHECK-LABEL: {{^}}}
