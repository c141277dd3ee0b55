; A float function with a side effect under a divergent branch, for masked
; variants: negative inputs are recorded through a (uniform) pointer and
; clamped to 0.
;
; float clamp_log(float x, float *log) { if (x < 0) { *log = x; return 0; } return x; }
define float @clamp_log(float %x, ptr %log) {
entry:
  %neg = fcmp olt float %x, 0.000000e+00
  br i1 %neg, label %record, label %done

record:
  store float %x, ptr %log, align 4
  br label %done

done:
  %r = phi float [ 0.000000e+00, %record ], [ %x, %entry ]
  ret float %r
}
