; The plugin's `batchify-lower-vector-math<libmvec>` pass does what
; `batchify --lower-vector-math --veclib libmvec` does (so that one opt
; command can run Enzyme and then the lowering: -passes='enzyme,
; batchify-lower-vector-math<libmvec>', docs/autodiff.md). Without a
; parameter it lowers to libmvec; an unknown library is refused.
;
; RUN: %opt -load-pass-plugin=%plugin -passes='batchify-lower-vector-math<libmvec>' %s -S | FileCheck %s
; RUN: %opt -load-pass-plugin=%plugin -passes=batchify-lower-vector-math %s -S | FileCheck %s
; RUN: %batchify %s -S -o - --lower-vector-math --veclib libmvec | FileCheck %s
; RUN: not %opt -load-pass-plugin=%plugin -passes='batchify-lower-vector-math<foo>' %s -S -o /dev/null 2>&1 \
; RUN:   | FileCheck %s --check-prefix=BAD

target triple = "x86_64-unknown-linux-gnu"

define <4 x double> @f(<4 x double> %x) #0 {
  %l = call <4 x double> @llvm.log.v4f64(<4 x double> %x)
  %c = call <4 x double> @llvm.cos.v4f64(<4 x double> %l)
  ret <4 x double> %c
}

declare <4 x double> @llvm.log.v4f64(<4 x double>)
declare <4 x double> @llvm.cos.v4f64(<4 x double>)

attributes #0 = { "target-features"="+avx,+avx2" }

; CHECK-LABEL: define <4 x double> @f(
; CHECK:       [[L:%[0-9]+]] = call <4 x double> @_ZGVdN4v_log(<4 x double>
; CHECK:       call <4 x double> @_ZGVdN4v_cos(<4 x double>
; CHECK-NOT:   call <4 x double> @llvm.

; BAD: batchify: error: batchify-lower-vector-math: unknown vector math library `foo` (expected libmvec or sleef)
