; Regression: fuzz program seed 3580, reduced. A uniform switch inside a uniform region of a
; linearized level switched on a value loaded under a guard (poison when no lane is
; active): branch on poison. Fixed by freezing uniform conditions where no lane may be active.

define double @fuzz_3580(double %p0, i1 %t164) {
entry:
  switch i64 0, label %sw.default2 [
    i64 5, label %sw.case1
    i64 2, label %sw.case1
  ]

sw.case1:                                         ; preds = %entry, %entry
  br i1 false, label %cvt.ok19, label %cvt.end20

cvt.ok19:                                         ; preds = %sw.case1
  br label %cvt.end20

cvt.end20:                                        ; preds = %cvt.ok19, %sw.case1
  br i1 %t164, label %if.then24, label %if.else25

if.then24:                                        ; preds = %cvt.end20
  %t167 = udiv i64 1, 9223372036854775807
  switch i64 %t167, label %sw.default28 [
    i64 3, label %sw.case27
    i64 2, label %sw.case27
  ]

sw.case27:                                        ; preds = %if.then24, %if.then24
  ret double 0.000000e+00

sw.default28:                                     ; preds = %if.then24
  ret double 0.000000e+00

if.else25:                                        ; preds = %cvt.end20
  ret double 0.000000e+00

sw.default2:                                      ; preds = %entry
  %t2256 = fsub double 0.000000e+00, %p0
  ret double %t2256
}
