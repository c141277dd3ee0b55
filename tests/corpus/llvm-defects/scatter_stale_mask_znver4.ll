; LLVM 22.1's EVEX compression (x86-compress-evex) erases a mask register
; definition that a scatter still reads (llvm/llvm-project#198197, fixed in
; 23), reached here by a target-independent masked clone: `@clone` is
; batchify's `_ZGV_LLVM_M16vl16uvu_fuzz_553652672` (fuzz seed 553652672,
; `batchify-fuzz --seed 553652672 --count 1 --width 16 --cpu znver4
; --callees 0.5 --buffers 0.5 --records 0.08`). Its `<16 x i1>` mask arrives
; in an xmm register and becomes `vpmovb2m %xmm2, %k1`; the gather, which
; znver4's tuning scalarizes, needs the bits in a general register
; (`kmovd %k1, %eax`); the pass folds the two into `vpmovmskb %xmm2, %eax`
; and drops the vpmovb2m, but `vscatterdps ... {%k1}` still reads %k1: the
; scatter writes the lanes of a stale mask.
;
;   llc-22 -O2 -mcpu=znver4 scatter_stale_mask_znver4.ll -o - | sed -n '/^clone:/,/cfi_endproc/p' | grep k1
;     vscatterdps %zmm2, 4(%rdi,%zmm3) {%k1}      <- the only mention of %k1
;   llc-22 -O2 -mcpu=znver4 ... -print-before=x86-compress-evex -print-after=x86-compress-evex
;     before: $k1 = VPMOVB2MZ128kr $xmm2 ; $eax = KMOVDrk $k1 ; VSCATTERDPSZmr ... $k1
;     after:  $eax = VPMOVMSKBrr $xmm2 ;                        VSCATTERDPSZmr ... $k1
;
; The reproducer for docs/limits.md; batchify now reloads such mask
; parameters from a stack slot (finish/mask_params.rs).

target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"
define <16 x i32> @clone(<16 x ptr> %b0, ptr %b1, double %p0, <16 x float> %p1, float %p2, <16 x i1> %mask) {
entry:
  %0 = bitcast <16 x i1> %mask to i16
  %.not = icmp eq i16 %0, 0
  br i1 %.not, label %common.ret, label %edge10

common.ret:                                       ; preds = %entry, %edge10
  %common.ret.op = phi <16 x i32> [ %t33, %edge10 ], [ poison, %entry ]
  ret <16 x i32> %common.ret.op

edge10:                                           ; preds = %entry
  %1 = getelementptr i8, ptr %b1, <16 x i64> <i64 0, i64 16, i64 32, i64 48, i64 64, i64 80, i64 96, i64 112, i64 128, i64 144, i64 160, i64 176, i64 192, i64 208, i64 224, i64 240>
  %t1 = getelementptr inbounds i8, <16 x ptr> %1, i64 4
  %t12 = fcmp uno float %p2, 0.000000e+00
  %t13 = select i1 %t12, float -3.250000e+00, float %p2
  %2 = insertelement <16 x float> poison, float %t13, i64 0
  %3 = shufflevector <16 x float> %2, <16 x float> poison, <16 x i32> zeroinitializer
  call void @llvm.masked.scatter.v16f32.v16p0(<16 x float> %3, <16 x ptr> align 4 %t1, <16 x i1> %mask)
  %t32 = call <16 x i8> @llvm.masked.gather.v16i8.v16p0(<16 x ptr> align 1 %b0, <16 x i1> %mask, <16 x i8> zeroinitializer)
  %t33 = zext <16 x i8> %t32 to <16 x i32>
  br label %common.ret
}
define void @drive(ptr %b0s, ptr %b1, float %p2, i16 %m, ptr %out) {
  %mask = bitcast i16 %m to <16 x i1>
  %b0 = load <16 x ptr>, ptr %b0s
  %r = call <16 x i32> @clone(<16 x ptr> %b0, ptr %b1, double 0.0, <16 x float> zeroinitializer, float %p2, <16 x i1> %mask)
  store <16 x i32> %r, ptr %out
  ret void
}
