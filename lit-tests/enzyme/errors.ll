; Malformed __enzyme_batch calls: one clear error line each, a non-zero
; exit, no output file written (the checks of Enzyme's HandleBatch).
; RUN: rm -f %t.out
; RUN: split-file %s %t
; RUN: not %batchify %t/nowidth.ll -o %t.out 2>&1 | FileCheck --check-prefix=NOWIDTH %s
; RUN: not %batchify %t/twice.ll -o %t.out 2>&1 | FileCheck --check-prefix=TWICE %s
; RUN: not %batchify %t/few.ll -o %t.out 2>&1 | FileCheck --check-prefix=FEW %s
; RUN: not %batchify %t/many.ll -o %t.out 2>&1 | FileCheck --check-prefix=MANY %s
; RUN: not %batchify %t/marker.ll -o %t.out 2>&1 | FileCheck --check-prefix=MARKER %s
; RUN: not %batchify %t/nonconst.ll -o %t.out 2>&1 | FileCheck --check-prefix=NONCONST %s
; RUN: not %batchify %t/nobody.ll -o %t.out 2>&1 | FileCheck --check-prefix=NOBODY %s
; RUN: not %batchify %t/type.ll -o %t.out 2>&1 | FileCheck --check-prefix=TYPE %s
; RUN: not %batchify %t/ret.ll -o %t.out 2>&1 | FileCheck --check-prefix=RET %s
; RUN: not test -e %t.out
; The plugin reports the same as an error diagnostic.
; RUN: not %opt -load-pass-plugin=%plugin -passes=batchify -disable-output %t/few.ll 2>&1 | FileCheck --check-prefix=FEW %s

; NOWIDTH: batchify: error: `__enzyme_batch` call in `caller`: `__enzyme_batch(sq, ...)`: no `enzyme_width, N` argument
; TWICE: error: `__enzyme_batch` call in `caller`: `__enzyme_batch(sq, ...)`: `enzyme_width` is given twice
; FEW: {{batchify: error|error: batchify}}: `__enzyme_batch` call in `caller`: `__enzyme_batch(add, ...)`: parameter 1 of `add`: missing lanes: 2 arguments are needed, 1 are left
; MANY: error: `__enzyme_batch` call in `caller`: `__enzyme_batch(sq, ...)`: too many arguments: `sq` takes 1 parameter(s)
; MARKER: error: `__enzyme_batch` call in `caller`: `__enzyme_batch(sq, ...)`: unknown marker `enzyme_dup`
; NONCONST: error: `__enzyme_batch` call in `caller`: `__enzyme_batch(sq, ...)`: the width after `enzyme_width` must be a constant integer
; NOBODY: error: `__enzyme_batch` call in `caller`: `ext` has no body in this module
; TYPE: error: `__enzyme_batch` call in `caller`: `__enzyme_batch(sq, ...)`: parameter 0 of `sq` is `double`, the argument is `ptr`
; RET: error: `__enzyme_batch` call in `caller`: `__enzyme_batch(sq, ...)`: the result `[2 x double]` (16 bytes) cannot be returned as `double` (8 bytes)

;--- nowidth.ll
declare [2 x double] @__enzyme_batch(...)
define double @sq(double %x) {
  %m = fmul double %x, %x
  ret double %m
}
define [2 x double] @caller(double %a, double %b) {
  %r = call [2 x double] (...) @__enzyme_batch(ptr @sq, double %a, double %b)
  ret [2 x double] %r
}
;--- twice.ll
declare [2 x double] @__enzyme_batch(...)
define double @sq(double %x) {
  %m = fmul double %x, %x
  ret double %m
}
define [2 x double] @caller(double %a, double %b) {
  %r = call [2 x double] (...) @__enzyme_batch(ptr @sq, metadata !"enzyme_width", i64 2, metadata !"enzyme_width", i64 2, double %a, double %b)
  ret [2 x double] %r
}
;--- few.ll
declare [2 x double] @__enzyme_batch(...)
define double @add(double %x, double %y) {
  %m = fadd double %x, %y
  ret double %m
}
define [2 x double] @caller(double %a, double %b) {
  %r = call [2 x double] (...) @__enzyme_batch(ptr @add, metadata !"enzyme_width", i64 2, double %a, double %b, double %a)
  ret [2 x double] %r
}
;--- many.ll
declare [2 x double] @__enzyme_batch(...)
define double @sq(double %x) {
  %m = fmul double %x, %x
  ret double %m
}
define [2 x double] @caller(double %a, double %b) {
  %r = call [2 x double] (...) @__enzyme_batch(ptr @sq, metadata !"enzyme_width", i64 2, double %a, double %b, metadata !"enzyme_scalar", double %a)
  ret [2 x double] %r
}
;--- marker.ll
declare [2 x double] @__enzyme_batch(...)
define double @sq(double %x) {
  %m = fmul double %x, %x
  ret double %m
}
define [2 x double] @caller(double %a, double %b) {
  %r = call [2 x double] (...) @__enzyme_batch(ptr @sq, metadata !"enzyme_width", i64 2, metadata !"enzyme_dup", double %a, double %b)
  ret [2 x double] %r
}
;--- nonconst.ll
declare [2 x double] @__enzyme_batch(...)
define double @sq(double %x) {
  %m = fmul double %x, %x
  ret double %m
}
define [2 x double] @caller(double %a, double %b, i64 %n) {
  %r = call [2 x double] (...) @__enzyme_batch(ptr @sq, metadata !"enzyme_width", i64 %n, double %a, double %b)
  ret [2 x double] %r
}
;--- nobody.ll
declare [2 x double] @__enzyme_batch(...)
declare double @ext(double)
define [2 x double] @caller(double %a, double %b) {
  %r = call [2 x double] (...) @__enzyme_batch(ptr @ext, metadata !"enzyme_width", i64 2, double %a, double %b)
  ret [2 x double] %r
}
;--- type.ll
declare [2 x double] @__enzyme_batch(...)
define double @sq(double %x) {
  %m = fmul double %x, %x
  ret double %m
}
define [2 x double] @caller(ptr %a, ptr %b) {
  %r = call [2 x double] (...) @__enzyme_batch(ptr @sq, metadata !"enzyme_width", i64 2, ptr %a, ptr %b)
  ret [2 x double] %r
}
;--- ret.ll
declare double @__enzyme_batch(...)
define double @sq(double %x) {
  %m = fmul double %x, %x
  ret double %m
}
define double @caller(double %a, double %b) {
  %r = call double (...) @__enzyme_batch(ptr @sq, metadata !"enzyme_width", i64 2, double %a, double %b)
  ret double %r
}
