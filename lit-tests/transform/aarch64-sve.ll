; SVE variants of scalable length (`_ZGVsMx...`, what clang asks for with
; -march=armv8-a+sve): values are <vscale x K x T> with K lanes per 128 bits
; of the widest varying type (4 for float, 2 for double, pointers and i64),
; the mask is the predicate <vscale x K x i1>, uniform and linear parameters
; stay scalar, and the clone gets `+sve`. The vectorizer builds fixed-width
; clones only, so an SVE clone is a per-lane loop over its vscale x K lanes
; (read at run time: correct at every vector length), with a warning. The
; execution test is crates/batchify-cli/tests/aarch64_sve.rs (qemu, 128 to
; 2048-bit vectors).
;
; RUN: %batchify %s -S -o %t.ll --variant _ZGVsMxvv_f --variant _ZGVsMxl8u_g \
; RUN:   --variant _ZGVsNxvv_mixed 2> %t.err
; RUN: FileCheck %s < %t.ll
; RUN: FileCheck %s --check-prefix=WARN < %t.err
;
; Without names, the variants clang's attributes ask for: `h` asks for a
; scalable and a fixed-length one (clang's choice under `simdlen(4)` with
; +sve); the fixed-length one is skipped with a warning and the rest built.
; RUN: %batchify %s -S -o %t.auto.ll 2> %t.auto.err
; RUN: FileCheck %s --check-prefix=AUTO < %t.auto.ll
; RUN: FileCheck %s --check-prefix=AUTO-WARN < %t.auto.err

target datalayout = "e-m:e-i8:8:32-i16:16:32-i64:64-i128:128-n32:64-S128-Fn32"
target triple = "aarch64-unknown-linux-gnu"

define float @f(float %x, float %y) #0 {
  %r = fmul float %x, %y
  ret float %r
}

define double @g(ptr %p, double %a) #0 {
  %v = load double, ptr %p
  %r = fmul double %v, %a
  ret double %r
}

; An i16 and an i64: 2 lanes per 128 bits (the widest type), unpacked i16s.
define i64 @mixed(i16 %s, i64 %k) #0 {
  %w = sext i16 %s to i64
  %r = mul i64 %w, %k
  ret i64 %r
}

define float @h(float %x) #1 {
  %r = fadd float %x, 1.0
  ret float %r
}

attributes #1 = { "_ZGVsMxv_h" "_ZGVsM4v_h" "target-features"="+v8a" }
attributes #0 = { vscale_range(1,16) "target-cpu"="generic" "target-features"="+fp-armv8,+v8a" }

; CHECK:       define <vscale x 4 x float> @_ZGVsMxvv_f(<vscale x 4 x float> %x, <vscale x 4 x float> %y, <vscale x 4 x i1> %mask) #[[SVE:[0-9]+]]
; CHECK:         [[VSCALE:%.*]] = call i64 @llvm.vscale.i64()
; CHECK-NEXT:    [[LANES:%.*]] = mul i64 [[VSCALE]], 4
; CHECK:       lane.head:
; CHECK-NEXT:    [[LANE:%.*]] = phi i64
; CHECK:         [[ON:%.*]] = extractelement <vscale x 4 x i1> %mask, i64 [[LANE]]
; CHECK-NEXT:    br i1 [[ON]], label %lane, label %lane.next
; CHECK:       lane:
; CHECK:         call float @f(float
; CHECK:         insertelement <vscale x 4 x float> {{.*}}, i64 [[LANE]]
; CHECK:         icmp ult i64 {{.*}}, [[LANES]]
; CHECK-LABEL: define <vscale x 2 x double> @_ZGVsMxl8u_g(ptr %p, double %a, <vscale x 2 x i1> %mask)
; CHECK:         [[OFF:%.*]] = mul i64 [[L:%.*]], 8
; CHECK-NEXT:    [[PTR:%.*]] = getelementptr i8, ptr %p, i64 [[OFF]]
; CHECK-NEXT:    call double @g(ptr [[PTR]], double %a)
; CHECK-LABEL: define <vscale x 2 x i64> @_ZGVsNxvv_mixed(<vscale x 2 x i16> %s, <vscale x 2 x i64> %k)
; CHECK-NOT:     %mask
; CHECK:         mul i64 {{.*}}, 2
; CHECK:       attributes #[[SVE]] = { vscale_range(1,16) {{.*}}"target-features"="+fp-armv8,+v8a,+sve" }

; WARN: batchify: warning: `f` -> `_ZGVsMxvv_f` is a per-lane loop over the scalar function: scalable vectors are not vectorized yet (an SVE clone runs its `vscale x K` lanes one by one)
; WARN: batchify: warning: `g` -> `_ZGVsMxl8u_g` is a per-lane loop
; WARN: batchify: warning: `mixed` -> `_ZGVsNxvv_mixed` is a per-lane loop

; AUTO: define <vscale x 4 x float> @_ZGVsMxv_h(<vscale x 4 x float> %x, <vscale x 4 x i1> %mask)
; AUTO-NOT: @_ZGVsM4v_h
; AUTO-WARN: batchify: warning: variant `_ZGVsM4v_h` does not fit its scalar function: fixed-length SVE variants are not supported; SVE variants of scalable length (`x`) are; the variant is not built
; AUTO-WARN: batchify: warning: `h` -> `_ZGVsMxv_h` is a per-lane loop
