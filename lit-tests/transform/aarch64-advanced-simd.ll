; AArch64 Advanced SIMD variants (`_ZGVn…`, docs/aarch64-abi.md): values are
; 128-bit (or 64-bit) vectors of the parameter's type, the mask of an `M`
; variant is a vector of the characteristic type (a lane is active when any
; bit of its element is set, as for x86 `b`/`c`/`d`), clones follow the
; vector procedure call standard (`aarch64_vector_pcs`, as GCC's `.variant_pcs`
; clones do) and get `+neon` added to the scalar function's features. A
; uniform parameter stays scalar; a linear pointer is one vector access.
;
; RUN: %batchify %s -S -o %t.ll --variant _ZGVnN4v_f --variant _ZGVnM4v_f \
; RUN:   --variant _ZGVnN2vu_g --variant _ZGVnM2vu_g --variant _ZGVnN4l4v_h \
; RUN:   --variant _ZGVnN4v_k --no-fallback 2> %t.err
; RUN: count 0 < %t.err
; RUN: FileCheck %s < %t.ll
;
; Every call of a clone carries the clone's convention: a call whose
; convention differs from its callee's is undefined behaviour, and LLVM's
; -O2 used to delete the path through the masked callee clone (the clone
; then never returned). After -O2 the clone still returns the callee's
; result.
; RUN: %opt -passes='default<O2>' -S %t.ll | FileCheck %s --check-prefix=O2
;
; `--function` with `--isa neon` names and builds the same variant.
; RUN: %batchify %s -S -o %t2.ll --function f --isa neon -n 4
; RUN: FileCheck %s --check-prefix=ISA < %t2.ll

target datalayout = "e-m:e-i8:8:32-i16:16:32-i64:64-i128:128-n32:64-S128-Fn32"
target triple = "aarch64-unknown-linux-gnu"

define float @f(float %x) #0 {
  %r = fmul float %x, %x
  ret float %r
}

define double @g(double %x, double %a) #0 {
  %c = fcmp ogt double %x, %a
  br i1 %c, label %t, label %e
t:
  %y = fsub double %x, %a
  br label %e
e:
  %r = phi double [ %y, %t ], [ %x, %0 ]
  ret double %r
}

define float @h(ptr %p, float %x) #0 {
  %v = load float, ptr %p
  %r = fadd float %v, %x
  ret float %r
}

define internal i32 @helper(i32 %x) noinline {
  %r = mul i32 %x, 7
  ret i32 %r
}

define i32 @k(i32 %x) #0 {
  %c = icmp sgt i32 %x, 0
  br i1 %c, label %t, label %e
t:
  %y = call i32 @helper(i32 %x)
  br label %e
e:
  %r = phi i32 [ %y, %t ], [ 0, %0 ]
  ret i32 %r
}

attributes #0 = { "target-cpu"="generic" "target-features"="+fp-armv8,+v8a" }

; CHECK:       define aarch64_vector_pcs <4 x float> @_ZGVnN4v_f(<4 x float> %x) #[[NEON:[0-9]+]]
; CHECK:         fmul <4 x float> %x, %x
; CHECK:       define aarch64_vector_pcs <4 x float> @_ZGVnM4v_f(<4 x float> %x, <4 x float> %mask) #[[NEON]]
; CHECK:       define aarch64_vector_pcs <2 x double> @_ZGVnN2vu_g(<2 x double> %x, double %a) #[[NEON]]
; CHECK:         fcmp ogt <2 x double>
; CHECK:       define aarch64_vector_pcs <2 x double> @_ZGVnM2vu_g(<2 x double> %x, double %a, <2 x double> %mask) #[[NEON]]
; A double mask lane is active unless it is +0.0 (all bits clear).
; CHECK:         call <2 x i1> @llvm.is.fpclass.v2f64(<2 x double> %mask, i32 959)
; CHECK:       define aarch64_vector_pcs <4 x float> @_ZGVnN4l4v_h(ptr %p, <4 x float> %x) #[[NEON]]
; CHECK:         load <4 x float>, ptr %p
; CHECK:       define aarch64_vector_pcs <4 x i32> @_ZGVnN4v_k(<4 x i32> %x) #[[NEON]]
; CHECK:         call aarch64_vector_pcs <4 x i32> @__batchify._ZGVnM4v_helper(<4 x i32> %x, <4 x i32>
; CHECK-LABEL: define internal aarch64_vector_pcs <4 x i32> @__batchify._ZGVnM4v_helper(<4 x i32> %x, <4 x i32> %mask)
; CHECK:       attributes #[[NEON]] = { {{.*}}"target-cpu"="generic" "target-features"="+fp-armv8,+v8a,+neon" }

; O2-LABEL: define aarch64_vector_pcs <4 x i32> @_ZGVnN4v_k(
; O2-NOT:     store i1 true, ptr poison
; O2:         ret <4 x i32> %{{.+}}

; ISA: define aarch64_vector_pcs <4 x float> @_ZGVnN4v_f(<4 x float> %x)
