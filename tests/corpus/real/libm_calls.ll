; libm *calls* (not intrinsics) under divergent control flow, for the
; exact-math recipes (crates/batchify-core/src/emit/libm.rs). Checked by the
; oracle, masked and unmasked, in crates/batchify-testkit/tests/exact_math.rs.
;
; * `memory(none)` calls (clang -fno-math-errno): fmodf, fmod, fdimf, ldexpf,
;   scalbn, sqrt and the always-exact ones become vector code;
; * `memory(errnomem: write)` calls (clang's default -fmath-errno) of
;   functions that may set errno stay per-lane calls; exact ones that never
;   set errno (floorf) are vectorized anyway;
; * `@my_floorf` is defined here: a user function, called per lane; and
;   `@nb_floorf` is a libm declaration called `nobuiltin`: per lane too.

define float @fmodf_branch(float %x, float %y) {
entry:
  %c = fcmp ogt float %x, 0.0
  br i1 %c, label %a, label %b
a:
  %r1 = call float @fmodf(float %x, float %y) #0
  br label %join
b:
  %r2 = call float @fmodf(float %y, float %x) #0
  br label %join
join:
  %r = phi float [ %r1, %a ], [ %r2, %b ]
  ret float %r
}

define double @fmod_loop(double %x, double %y) {
entry:
  br label %head
head:
  %v = phi double [ %x, %entry ], [ %v2, %body ]
  %n = phi i32 [ 0, %entry ], [ %n2, %body ]
  %a = call double @llvm.fabs.f64(double %v)
  %big = fcmp ogt double %a, 1.0
  %more = icmp slt i32 %n, 8
  %go = and i1 %big, %more
  br i1 %go, label %body, label %exit
body:
  %t = fmul double %v, 3.0
  %v2 = call double @fmod(double %t, double %y) #0
  %n2 = add i32 %n, 1
  br label %head
exit:
  ret double %v
}

define float @dim_ldexp(float %x, float %y, i32 %k) {
entry:
  %c = fcmp olt float %x, %y
  br i1 %c, label %a, label %b
a:
  %e = and i32 %k, 511
  %e2 = sub i32 %e, 255
  %r1 = call float @ldexpf(float %x, i32 %e2) #0
  br label %join
b:
  %r2 = call float @fdimf(float %x, float %y) #0
  br label %join
join:
  %r = phi float [ %r1, %a ], [ %r2, %b ]
  ret float %r
}

define double @minmax_sqrt(double %x, double %y) {
entry:
  %c = fcmp uno double %x, %y
  br i1 %c, label %a, label %b
a:
  %r1 = call double @fmax(double %x, double %y) #0
  br label %join
b:
  %m = call double @fmin(double %x, double %y) #0
  %s = call double @sqrt(double %m) #0
  %k = fptosi double %y to i32
  %l = call double @scalbn(double %s, i32 7) #0
  %r2 = fadd double %l, %m
  br label %join
join:
  %r = phi double [ %r1, %a ], [ %r2, %b ]
  ret double %r
}

define float @rounding_calls(float %x, i32 %k) {
entry:
  %s = and i32 %k, 3
  switch i32 %s, label %d [ i32 0, label %f
                            i32 1, label %c
                            i32 2, label %t ]
f:
  %r0 = call float @floorf(float %x) #1
  br label %join
c:
  %r1 = call float @ceilf(float %x) #0
  br label %join
t:
  %r2 = call float @roundevenf(float %x) #0
  %r2b = call float @nearbyintf(float %r2) #0
  br label %join
d:
  %r3 = call float @copysignf(float %x, float -0.0) #0
  %r3b = call float @fabsf(float %r3) #0
  br label %join
join:
  %r = phi float [ %r0, %f ], [ %r1, %c ], [ %r2b, %t ], [ %r3b, %d ]
  ret float %r
}

define i64 @abs_calls(i32 %a, i64 %b) {
entry:
  %c = icmp sgt i32 %a, 100
  br i1 %c, label %x, label %y
x:
  %r1 = call i32 @abs(i32 %a) #0
  %w = sext i32 %r1 to i64
  br label %join
y:
  %w2 = call i64 @labs(i64 %b) #0
  br label %join
join:
  %r = phi i64 [ %w, %x ], [ %w2, %y ]
  ret i64 %r
}

; errno-setting calls without -fno-math-errno: stay per lane.
define float @errno_calls(float %x, float %y) {
entry:
  %c = fcmp ogt float %x, %y
  br i1 %c, label %a, label %join
a:
  %r1 = call float @fmodf(float %x, float %y) #1
  %r2 = call float @sqrtf(float %r1) #1
  br label %join
join:
  %r = phi float [ %r2, %a ], [ %y, %entry ]
  ret float %r
}

define float @my_floorf(float %x) {
  %r = fadd float %x, 1.0
  ret float %r
}

define float @not_libm(float %x, float %y) {
entry:
  %c = fcmp ogt float %x, %y
  br i1 %c, label %a, label %join
a:
  %r1 = call float @my_floorf(float %x) #0
  %r2 = call float @ceilf(float %r1) #2
  br label %join
join:
  %r = phi float [ %r2, %a ], [ %y, %entry ]
  ret float %r
}

declare float @fmodf(float, float)
declare double @fmod(double, double)
declare float @fdimf(float, float)
declare float @ldexpf(float, i32)
declare double @scalbn(double, i32)
declare double @fmin(double, double)
declare double @fmax(double, double)
declare double @sqrt(double)
declare float @sqrtf(float)
declare float @floorf(float)
declare float @ceilf(float)
declare float @roundevenf(float)
declare float @nearbyintf(float)
declare float @copysignf(float, float)
declare float @fabsf(float)
declare i32 @abs(i32)
declare i64 @labs(i64)
declare double @llvm.fabs.f64(double)

attributes #0 = { nounwind willreturn memory(none) }
attributes #1 = { nounwind willreturn memory(errnomem: write) }
attributes #2 = { nobuiltin nounwind willreturn memory(none) }
