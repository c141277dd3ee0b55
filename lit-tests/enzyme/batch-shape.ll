; __enzyme_batch calls in IR (metadata markers, as Enzyme's own tests write
; them): each call becomes a call of `batch_<f>`, which packs the lanes into
; vectors and calls f's clone once; a lane-divergent branch stays vector code
; (Enzyme's batcher rejects it: its vec-branch.ll is XFAIL); the marker
; arguments and the `__enzyme_batch` declaration are gone.
; RUN: %batchify %s -o - -S --report 2>%t.err | FileCheck %s
; RUN: FileCheck --check-prefix=REPORT %s < %t.err
; The plugin gives the same result with no options.
; RUN: %opt -load-pass-plugin=%plugin -passes=batchify -S %s | FileCheck %s

declare [4 x double] @__enzyme_batch(...)

define double @branchy(double %x, double %a) {
entry:
  %c = fcmp ogt double %x, 0.0
  br i1 %c, label %pos, label %neg
pos:
  %m = fmul double %x, %a
  br label %done
neg:
  %n = fsub double %a, %x
  br label %done
done:
  %r = phi double [ %m, %pos ], [ %n, %neg ]
  ret double %r
}

define [4 x double] @caller(double %x1, double %x2, double %x3, double %x4, double %a) {
entry:
  %r = call [4 x double] (...) @__enzyme_batch(ptr @branchy, metadata !"enzyme_width", i64 4, metadata !"enzyme_vector", double %x1, double %x2, double %x3, double %x4, metadata !"enzyme_scalar", double %a)
  ret [4 x double] %r
}

; CHECK-NOT: __enzyme_batch
; CHECK-LABEL: define [4 x double] @caller(
; CHECK: call [4 x double] @batch_branchy([4 x double] %{{.*}}, double %a)
; CHECK-LABEL: define internal {{.*}}<4 x double> @_ZGV_LLVM_N4vu_branchy(<4 x double> {{.*}}, double {{.*}})
; CHECK-NOT: br i1
; CHECK: select <4 x i1>
; CHECK: ret <4 x double>
; CHECK-LABEL: define internal [4 x double] @batch_branchy([4 x double] %0, double %1)
; CHECK: call {{.*}}<4 x double> @_ZGV_LLVM_N4vu_branchy(<4 x double>
; CHECK-NOT: call
; CHECK: ret [4 x double]

; REPORT: caller: __enzyme_batch(branchy, width 4) -> `batch_branchy` (calls `_ZGV_LLVM_N4vu_branchy`)
