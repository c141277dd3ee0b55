; SVE variants of scalable length (`_ZGVsMx...`, what clang asks for with
; -march=armv8-a+sve): values are <vscale x K x T> with K lanes per 128 bits
; of the widest varying type (4 for float, 2 for double, pointers and i64),
; the mask is the predicate <vscale x K x i1>, uniform and linear parameters
; stay scalar, and the clone gets `+sve`. The clone reads vscale and calls
; the vectorized body for 128, 256 or 512-bit vectors: a fixed-width clone
; of vscale x K lanes with `+sve`, noinline and vscale_range(v,v) (LLVM
; then uses SVE registers of that length), except a body of fewer than 8
; lanes (64-bit lanes at 256 bits), which keeps the scalar's range (LLVM
; 22's backend aborts on some 4-lane vectors at 256 bits, see scalable.rs),
; entered through llvm.vector.extract at 0 and
; left through llvm.vector.insert at 0; an unused parameter (f's predicate)
; is not converted. Other vector lengths run a per-lane
; loop over the vscale x K lanes. The execution tests are
; crates/batchify-cli/tests/aarch64_sve.rs (qemu, 128 to 2048-bit vectors)
; and batchify-fuzz's SVE mode.
;
; RUN: %batchify %s -S -o %t.ll --variant _ZGVsMxvv_f --variant _ZGVsMxl8u_g \
; RUN:   --variant _ZGVsNxvv_mixed 2> %t.err
; RUN: FileCheck %s < %t.ll
; RUN: FileCheck %s --check-prefix=WARN --allow-empty < %t.err
; RUN: %batchify %s -o /dev/null --variant _ZGVsMxvv_f --report 2>&1 | FileCheck %s --check-prefix=REPORT
;
; Without names, the variants clang's attributes ask for: `h` asks for a
; scalable and a fixed-length one (clang's choice under `simdlen(4)` with
; +sve); the fixed-length one is skipped with a warning and the rest built.
; RUN: %batchify %s -S -o %t.auto.ll 2> %t.auto.err
; RUN: FileCheck %s --check-prefix=AUTO < %t.auto.ll
; RUN: FileCheck %s --check-prefix=AUTO-WARN < %t.auto.err

; A function whose vector form fails (inline assembly) is a per-lane loop at
; every vector length, with a warning, and no body is left behind.
; RUN: %batchify %s -S -o %t.fb.ll --variant _ZGVsMxv_opaque 2> %t.fb.err
; RUN: FileCheck %s --check-prefix=FB < %t.fb.ll
; RUN: FileCheck %s --check-prefix=FB-WARN < %t.fb.err

; A function compiled for one vector length (clang's -msve-vector-bits=512:
; vscale_range(4,4)) gets the body for that length only.
; RUN: %batchify %s -S -o - --variant _ZGVsMxv_at512 | FileCheck %s --check-prefix=AT512
; `--function f --isa sve`: the unmasked scalable variant, all varying.
; RUN: %batchify %s -S -o - --function f --isa sve | FileCheck %s --check-prefix=FUNC
; RUN: %opt -load-pass-plugin=%plugin -passes='batchify<function=f;isa=sve>' %s -S -o - | FileCheck %s --check-prefix=FUNC
; One compiled for 1024 bits gets none: the per-lane loop, with a warning.
; RUN: %batchify %s -S -o /dev/null --variant _ZGVsMxv_at1024 2>&1 | FileCheck %s --check-prefix=AT1024

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

define i32 @opaque(i32 %x) #0 {
  %v = call i32 asm "", "=r,0"(i32 %x)
  ret i32 %v
}

define float @at512(float %x) #2 {
  %r = fmul float %x, %x
  ret float %r
}

define float @at1024(float %x) #3 {
  %r = fmul float %x, %x
  ret float %r
}

attributes #2 = { vscale_range(4,4) "target-features"="+sve" }
attributes #3 = { vscale_range(8,8) "target-features"="+sve" }
attributes #1 = { "_ZGVsMxv_h" "_ZGVsM4v_h" "target-features"="+v8a" }
attributes #0 = { vscale_range(1,16) "target-cpu"="generic" "target-features"="+fp-armv8,+v8a" }

; CHECK:       define internal <vscale x 4 x float> @__batchify.body._ZGVsMxvv_f.vscale2(<vscale x 4 x float> %0, <vscale x 4 x float> %1, <vscale x 4 x i1> %2) #[[VS2:[0-9]+]]
; CHECK-NEXT:  entry:
; CHECK-NEXT:    [[X:%.*]] = call <8 x float> @llvm.vector.extract.v8f32.nxv4f32(<vscale x 4 x float> %0, i64 0)
; CHECK-NEXT:    [[Y:%.*]] = call <8 x float> @llvm.vector.extract.v8f32.nxv4f32(<vscale x 4 x float> %1, i64 0)
; CHECK-NEXT:    [[R:%.*]] = fmul <8 x float> [[X]], [[Y]]
; CHECK-NEXT:    [[W:%.*]] = call <vscale x 4 x float> @llvm.vector.insert.nxv4f32.v8f32(<vscale x 4 x float> poison, <8 x float> [[R]], i64 0)
; CHECK-NEXT:    ret <vscale x 4 x float> [[W]]
;
; CHECK:       define <vscale x 4 x float> @_ZGVsMxvv_f(<vscale x 4 x float> %x, <vscale x 4 x float> %y, <vscale x 4 x i1> %mask) #[[SVE:[0-9]+]]
; CHECK:         [[VSCALE:%.*]] = call i64 @llvm.vscale.i64()
; CHECK-NEXT:    switch i64 [[VSCALE]], label %lanes [
; CHECK-NEXT:      i64 1, label %vscale1
; CHECK-NEXT:      i64 2, label %vscale2
; CHECK-NEXT:      i64 4, label %vscale4
; CHECK-NEXT:    ]
; CHECK:       lanes:
; CHECK-NEXT:    [[LANES:%.*]] = mul i64 [[VSCALE]], 4
; CHECK:       vscale2:
; CHECK-NEXT:    [[C:%.*]] = call <vscale x 4 x float> @__batchify.body._ZGVsMxvv_f.vscale2(<vscale x 4 x float> %x, <vscale x 4 x float> %y, <vscale x 4 x i1> %mask)
; CHECK-NEXT:    ret <vscale x 4 x float> [[C]]
; CHECK:       lane.head:
; CHECK-NEXT:    [[LANE:%.*]] = phi i64
; CHECK:         [[ON:%.*]] = extractelement <vscale x 4 x i1> %mask, i64 [[LANE]]
; CHECK-NEXT:    br i1 [[ON]], label %lane, label %lane.next
; CHECK:       lane:
; CHECK:         call float @f(float
; CHECK:         insertelement <vscale x 4 x float> {{.*}}, i64 [[LANE]]
; CHECK:         icmp ult i64 {{.*}}, [[LANES]]
;
; 4 doubles at 256 bits: the scalar's vscale_range.
; CHECK:       define internal <vscale x 2 x double> @__batchify.body._ZGVsMxl8u_g.vscale2(ptr %0, double %1, <vscale x 2 x i1> %2) #[[WIDE:[0-9]+]]
; A linear pointer: one masked vector load of vscale x 2 doubles.
; The predicate enters as a register of integers compared with zero (LLVM
; keeps that in SVE registers; an <8 x i1> taken from the predicate is
; rebuilt lane by lane).
; CHECK-LABEL: define internal <vscale x 2 x double> @__batchify.body._ZGVsMxl8u_g.vscale4(ptr %0, double %1, <vscale x 2 x i1> %2)
; CHECK-NEXT:  entry:
; CHECK-NEXT:    [[INTS:%.*]] = sext <vscale x 2 x i1> %2 to <vscale x 2 x i64>
; CHECK-NEXT:    [[PART:%.*]] = call <8 x i64> @llvm.vector.extract.v8i64.nxv2i64(<vscale x 2 x i64> [[INTS]], i64 0)
; CHECK-NEXT:    icmp ne <8 x i64> [[PART]], zeroinitializer
; CHECK:         call <8 x double> @llvm.masked.load.v8f64.p0(ptr align 8 {{%.*}}, <8 x i1> {{%.*}}, <8 x double> poison)
; CHECK-LABEL: define <vscale x 2 x double> @_ZGVsMxl8u_g(ptr %p, double %a, <vscale x 2 x i1> %mask)
; CHECK:         [[OFF:%.*]] = mul i64 [[L:%.*]], 8
; CHECK-NEXT:    [[PTR:%.*]] = getelementptr i8, ptr %p, i64 [[OFF]]
; CHECK-NEXT:    call double @g(ptr [[PTR]], double %a)
;
; Unpacked i16 lanes (<vscale x 2 x i16>) become <8 x i16> at 512 bits.
; CHECK-LABEL: define internal <vscale x 2 x i64> @__batchify.body._ZGVsNxvv_mixed.vscale4(<vscale x 2 x i16> %0, <vscale x 2 x i64> %1)
; CHECK-NEXT:  entry:
; CHECK-NEXT:    call <8 x i16> @llvm.vector.extract.v8i16.nxv2i16(<vscale x 2 x i16> %0, i64 0)
; CHECK:         sext <8 x i16> {{.*}} to <8 x i64>
; CHECK-LABEL: define <vscale x 2 x i64> @_ZGVsNxvv_mixed(<vscale x 2 x i16> %s, <vscale x 2 x i64> %k)
; CHECK-NOT:     %mask
; CHECK:         mul i64 {{.*}}, 2
; CHECK:       attributes #[[VS2]] = { noinline vscale_range(2,2) {{.*}}"target-features"="+fp-armv8,+v8a,+sve" }
; CHECK-DAG:   attributes #[[WIDE]] = { noinline vscale_range(1,16) {{.*}}"target-features"="+fp-armv8,+v8a,+sve" }
; CHECK-DAG:   attributes #[[SVE]] = { vscale_range(1,16) {{.*}}"target-features"="+fp-armv8,+v8a,+sve" }

; WARN-NOT: warning
; REPORT: f -> _ZGVsMxvv_f: vscale x 4 lanes, 1 vector instruction(s)
; REPORT: note: vectorized for 128, 256, 512-bit vectors (4 lanes per 128 bits); other vector lengths run the lanes one by one

; AUTO: define <vscale x 4 x float> @_ZGVsMxv_h(<vscale x 4 x float> %x, <vscale x 4 x i1> %mask)
; AUTO-NOT: @_ZGVsM4v_h
; AUTO-WARN: batchify: warning: variant `_ZGVsM4v_h` does not fit its scalar function: fixed-length SVE variants are not supported; SVE variants of scalable length (`x`) are; the variant is not built
; AUTO-WARN-NOT: warning

; FB-NOT:      __batchify.body
; FB-LABEL:    define <vscale x 4 x i32> @_ZGVsMxv_opaque(<vscale x 4 x i32> %x, <vscale x 4 x i1> %mask)
; FB:          call i64 @llvm.vscale.i64()
; FB-NEXT:     switch i64 {{%.*}}, label %lanes [
; FB-NEXT:     ]
; FB:          call i32 @opaque(i32
; FB-NOT:      __batchify.body
; FB-WARN:     batchify: warning: `opaque` -> `_ZGVsMxv_opaque` is a per-lane loop over the scalar function: inline assembly

; AT512-NOT:   vscale1
; AT512-NOT:   vscale2
; AT512:       define internal <vscale x 4 x float> @__batchify.body._ZGVsMxv_at512.vscale4(
; AT512:       define <vscale x 4 x float> @_ZGVsMxv_at512(
; AT512:         switch i64 {{%.*}}, label %lanes [
; AT512-NEXT:      i64 4, label %vscale4
; AT512-NEXT:    ]

; AT1024: batchify: warning: `at1024` -> `_ZGVsMxv_at1024` is a per-lane loop over the scalar function: none of the vector lengths batchify vectorizes SVE clones for (128, 256 and 512 bits) is in the function's `vscale_range`

; FUNC: define <vscale x 4 x float> @_ZGVsNxvv_f(<vscale x 4 x float> %x, <vscale x 4 x float> %y)
; FUNC: call <vscale x 4 x float> @__batchify.body._ZGVsNxvv_f.vscale4(
