; --for-autodiff: a libm call of `log` that may write errno (clang's
; default -fmath-errno) becomes one `llvm.log.v4f64` call, which Enzyme
; differentiates as a whole and the backend lowers to one call of `log`
; per lane (the same values). Its operand is 1.0 in inactive lanes and in
; lanes whose input may set errno (x <= 0 or NaN: `fcmp ule`), where the
; real call runs, lane by lane, for the active ones. The default mode
; keeps one `log` call per active lane. `--lower-vector-math --veclib
; libmvec` then turns the intrinsic into libmvec's AVX2 function (the
; step after Enzyme, docs/autodiff.md).
;
; RUN: %batchify %s -S -o %t.ll --variant _ZGVdN4v_f --for-autodiff --no-fallback
; RUN: FileCheck %s < %t.ll
; RUN: grep -c 'call <4 x double> @llvm.log' %t.ll | FileCheck %s --check-prefix=ONE
; RUN: not grep '@_ZGV.N[0-9]*v_log' %t.ll
; RUN: %batchify %s -S -o %t.default.ll --variant _ZGVdN4v_f --no-fallback
; RUN: FileCheck %s --check-prefix=DEFAULT < %t.default.ll
; RUN: %batchify %t.ll -S -o %t.lowered.ll --lower-vector-math --veclib libmvec --report 2>&1 | FileCheck %s --check-prefix=REPORT
; RUN: FileCheck %s --check-prefix=LOWERED < %t.lowered.ll
; RUN: not %batchify %t.ll -S -o %t.none.ll --lower-vector-math 2>&1 | FileCheck %s --check-prefix=NOLIB

define double @f(double %x) {
entry:
  %c = fcmp olt double %x, 4.0
  br i1 %c, label %a, label %b
a:
  %l = call double @log(double %x) #1
  br label %b
b:
  %r = phi double [ %l, %a ], [ %x, %entry ]
  ret double %r
}

declare double @log(double) #0

attributes #0 = { nounwind willreturn memory(errnomem: write) }
attributes #1 = { nounwind }

; CHECK-LABEL: define <4 x double> @_ZGVdN4v_f(<4 x double> %x)
; CHECK:       %c = fcmp olt <4 x double> %x, splat (double 4.000000e+00)
; CHECK:       [[ERR:%[0-9]+]] = fcmp ule <4 x double> %x, zeroinitializer
; CHECK:       [[OFF:%[0-9]+]] = or <4 x i64> {{.*}}
; CHECK:       [[OFF1:%[0-9]+]] = icmp slt <4 x i64> [[OFF]], zeroinitializer
; CHECK:       [[ONES:%[0-9]+]] = uitofp <4 x i1> [[OFF1]] to <4 x double>
; CHECK:       [[SAFE:%[0-9]+]] = select <4 x i1> [[OFF1]], <4 x double> [[ONES]], <4 x double> %x
; CHECK:       call <4 x double> @llvm.log.v4f64(<4 x double> [[SAFE]])
; CHECK:       br i1 {{.*}}, label %errno.done, label %errno.calls
; CHECK:       errno.call:
; CHECK-NEXT:  extractelement <4 x double> %x, i64 0
; CHECK-NEXT:  call double @log(double

; ONE: 1

; DEFAULT-LABEL: define <4 x double> @_ZGVdN4v_f(
; DEFAULT-NOT:   @llvm.log.v4f64
; DEFAULT:       call double @log(double
; DEFAULT:       ret <4 x double>

; REPORT: batchify: lowered 1 vector math call(s) to libmvec
; REPORT: batchify: llvm.log.v4f64 -> _ZGVdN4v_log (libmvec, at most 4 ulp)

; LOWERED-LABEL: define <4 x double> @_ZGVdN4v_f(
; LOWERED:       call <4 x double> @_ZGVdN4v_log(<4 x double>
; LOWERED-NOT:   call <4 x double> @llvm.log.v4f64
; LOWERED:       call double @log(double
; LOWERED:       declare <4 x double> @_ZGVdN4v_log(<4 x double>)

; NOLIB: batchify: error: --lower-vector-math needs a vector math library: --veclib libmvec (or sleef)
