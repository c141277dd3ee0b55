; The plugin's map forms and lane instrumentation (docs/plugin.md): the
; pass parameters `map-form=`, `refill-groups=` and `instrument-lanes`, and
; the same as command-line options (`-batchify-map-form=`,
; `-batchify-refill-groups=`, `-batchify-instrument-lanes`).
; Execution checks of every form: crates/batchify-testkit/tests/map_entry.rs;
; of an instrumented map: lit-tests/cli/instrument-lanes.c.
;
; RUN: %opt -load-pass-plugin=%plugin -passes='batchify<function=steps;width=8;isa=avx2;map;map-form=refill>' %s -S \
; RUN:   | FileCheck %s --check-prefix=REFILL
; RUN: %opt -load-pass-plugin=%plugin -passes=batchify -batchify-function=steps -batchify-width=8 \
; RUN:   -batchify-isa=avx2 -batchify-map -batchify-map-form=grouped %s -S | FileCheck %s --check-prefix=GROUPED
; RUN: %opt -load-pass-plugin=%plugin -passes='batchify<function=steps;width=8;isa=avx2;instrument-lanes>' %s -S \
; RUN:   | FileCheck %s --check-prefix=LANES
; RUN: %opt -load-pass-plugin=%plugin -passes=batchify -batchify-function=steps -batchify-width=8 \
; RUN:   -batchify-isa=avx2 -batchify-instrument-lanes %s -S | FileCheck %s --check-prefix=LANES
; RUN: not %opt -load-pass-plugin=%plugin -passes='batchify<map-form=sometimes>' %s -disable-output 2>&1 \
; RUN:   | FileCheck %s --check-prefix=BAD
; RUN: %opt -load-pass-plugin=%plugin -passes='batchify<function=steps;width=8;isa=avx2;map;map-form=refill;refill-groups=2>' %s -S \
; RUN:   | FileCheck %s --check-prefix=TWO
; RUN: %opt -load-pass-plugin=%plugin -passes=batchify -batchify-function=steps -batchify-width=8 \
; RUN:   -batchify-isa=avx2 -batchify-map -batchify-refill-groups=2 %s -S | FileCheck %s --check-prefix=TWO
; RUN: not %opt -load-pass-plugin=%plugin -passes='batchify<refill-groups=4>' %s -disable-output 2>&1 \
; RUN:   | FileCheck %s --check-prefix=BAD-GROUPS

; REFILL: define internal void @_ZGVdN8uuuul___batchify_refill.steps_map(
; REFILL: call {{.*}} @llvm.ctpop.i8(
; REFILL-LABEL: define void @steps_map(i64 %n, ptr %x, ptr %out)
; REFILL: call void @_ZGVdN8uuuul___batchify_refill.steps_map(

; GROUPED-NOT: __batchify_refill
; GROUPED-LABEL: define void @steps_map(i64 %n, ptr %x, ptr %out)
; GROUPED: call <8 x i32> @_ZGVdN8v_steps(
; GROUPED: call <8 x i32> @_ZGVdM8v_steps(

; LANES: @__batchify_lanes.c0 = internal global [11 x i64] zeroinitializer
; LANES: define <8 x i32> @_ZGVdN8v_steps(
; LANES: call i32 @atexit(ptr {{(nonnull )?}}@__batchify_lanes.report)
; LANES: call {{.*}} @llvm.ctpop.i8(
; LANES: define internal void @__batchify_lanes.report()

; Two lane groups per trip: a 16-lane worker for the 8-lane map.
; TWO: define internal void @_ZGVdN16uuuul___batchify_refill.steps_map(
; TWO: call {{.*}} @llvm.ctpop.i16(
; TWO-LABEL: define void @steps_map(i64 %n, ptr %x, ptr %out)
; TWO: call void @_ZGVdN16uuuul___batchify_refill.steps_map(

; BAD-GROUPS: batchify: error: pass parameter `refill-groups=4` is not 1 or 2

; BAD: batchify: error: unknown map form `sometimes` in pass parameter `map-form` (expected adaptive, refill or grouped)

target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

define i32 @steps(i32 %x) {
entry:
  br label %loop
loop:
  %v = phi i32 [ %x, %entry ], [ %next, %body ]
  %n = phi i32 [ 0, %entry ], [ %n1, %body ]
  %done = icmp ule i32 %v, 1
  br i1 %done, label %exit, label %body
body:
  %odd = and i32 %v, 1
  %isodd = icmp ne i32 %odd, 0
  %t = mul i32 %v, 3
  %t1 = add i32 %t, 1
  %h = lshr i32 %v, 1
  %next = select i1 %isodd, i32 %t1, i32 %h
  %n1 = add i32 %n, 1
  %cap = icmp ult i32 %n1, 1000
  br i1 %cap, label %loop, label %exit
exit:
  %r = phi i32 [ %n, %loop ], [ %n1, %body ]
  ret i32 %r
}
