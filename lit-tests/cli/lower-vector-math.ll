; --lower-vector-math --veclib libmvec picks libmvec's ISA from each
; function's target-features and the widest variant not wider than the
; vector: `<8 x double>` in an AVX-512 function calls `_ZGVeN8v_log`, a
; `<4 x double>` there `_ZGVdN4v_sin` (AVX2), `<8 x double>` in an AVX2
; function two `_ZGVdN4v_exp`, a function without features the SSE2 `b`
; variants. Scalar intrinsics and libm calls stay.
;
; RUN: %batchify %s -S -o %t.ll --lower-vector-math --veclib libmvec --report 2>&1 | FileCheck %s --check-prefix=REPORT
; RUN: FileCheck %s < %t.ll

target triple = "x86_64-unknown-linux-gnu"

define <8 x double> @wide512(<8 x double> %x) #0 {
  %r = call <8 x double> @llvm.log.v8f64(<8 x double> %x)
  ret <8 x double> %r
}

define <4 x double> @narrow512(<4 x double> %x) #0 {
  %r = call <4 x double> @llvm.sin.v4f64(<4 x double> %x)
  ret <4 x double> %r
}

define <8 x double> @wide2(<8 x double> %x) #1 {
  %r = call <8 x double> @llvm.exp.v8f64(<8 x double> %x)
  ret <8 x double> %r
}

define <4 x float> @plain(<4 x float> %x, float %s) {
  %r = call <4 x float> @llvm.tanh.v4f32(<4 x float> %x)
  %t = call float @llvm.tanh.f32(float %s)
  %v = insertelement <4 x float> %r, float %t, i64 0
  ret <4 x float> %v
}

declare <8 x double> @llvm.log.v8f64(<8 x double>)
declare <4 x double> @llvm.sin.v4f64(<4 x double>)
declare <8 x double> @llvm.exp.v8f64(<8 x double>)
declare <4 x float> @llvm.tanh.v4f32(<4 x float>)
declare float @llvm.tanh.f32(float)

attributes #0 = { "target-features"="+avx,+avx2,+avx512f" }
attributes #1 = { "target-features"="+avx,+avx2" }

; REPORT: batchify: lowered 4 vector math call(s) to libmvec
; REPORT: batchify: llvm.log.v8f64 -> _ZGVeN8v_log (libmvec, at most 4 ulp)
; REPORT: batchify: llvm.sin.v4f64 -> _ZGVdN4v_sin (libmvec, at most 4 ulp)
; REPORT: batchify: llvm.exp.v8f64 -> _ZGVdN4v_exp (libmvec, at most 4 ulp)
; REPORT: batchify: llvm.tanh.v4f32 -> _ZGVbN4v_tanhf (libmvec, at most 4 ulp)

; CHECK-LABEL: define <8 x double> @wide512(
; CHECK:       call <8 x double> @_ZGVeN8v_log(<8 x double>
; CHECK-LABEL: define <4 x double> @narrow512(
; CHECK:       call <4 x double> @_ZGVdN4v_sin(<4 x double>
; CHECK-LABEL: define <8 x double> @wide2(
; CHECK-COUNT-2: call <4 x double> @_ZGVdN4v_exp(<4 x double>
; CHECK-LABEL: define <4 x float> @plain(
; CHECK:       call <4 x float> @_ZGVbN4v_tanhf(<4 x float>
; CHECK:       call float @llvm.tanh.f32(float %s)
