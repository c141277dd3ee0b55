; Maps through the plugin: the `map` parameter (and -batchify-map) builds
; `<f>_map` for the named clones, as the CLI's --map does; a module that
; defines `__batchify_map_<variant>` gets its body replaced by the map
; (both twins are built). Running the pass twice changes nothing more.
;
; RUN: %opt -load-pass-plugin=%plugin -passes='batchify<function=twice;width=4;isa=avx2;map>' %s -S \
; RUN:   | FileCheck %s --check-prefix=NAMED
; RUN: %opt -load-pass-plugin=%plugin -passes=batchify -batchify-function=twice -batchify-width=4 \
; RUN:   -batchify-isa=avx2 -batchify-map %s -S | FileCheck %s --check-prefix=NAMED
; NAMED-DAG: define <4 x float> @_ZGVdN4v_twice(
; NAMED-DAG: define <4 x float> @_ZGVdM4v_twice(
; NAMED-DAG: define void @twice_map(i64 %n, ptr %x, ptr %out)
; NAMED-DAG: call <4 x float> @_ZGVdN4v_twice(<4 x float>
; NAMED-DAG: call <4 x float> @_ZGVdM4v_twice(<4 x float>
;
; RUN: %opt -load-pass-plugin=%plugin -passes=batchify %s -S -o %t.once.ll
; RUN: FileCheck %s --check-prefix=REQUEST < %t.once.ll
; REQUEST-LABEL: define void @__batchify_map__ZGVdN8vu_scale(
; REQUEST: group:
; REQUEST: load <8 x i32>
; REQUEST: call <8 x i32> @_ZGVdN8vu_scale(
; REQUEST: tail:
; REQUEST: call <8 x i32> @llvm.masked.load.v8i32.p0(
; REQUEST: call <8 x i32> @_ZGVdM8vu_scale(
; REQUEST-NOT: call i32 @scale(
; REQUEST: ret void
; REQUEST-DAG: define <8 x i32> @_ZGVdN8vu_scale(
; REQUEST-DAG: define <8 x i32> @_ZGVdM8vu_scale(
; RUN: %opt -load-pass-plugin=%plugin -passes=batchify %t.once.ll -S -o %t.twice.ll
; RUN: %opt -S %t.once.ll -o %t.once.norm.ll
; RUN: diff %t.once.norm.ll %t.twice.ll
;
; `map` is a flag parameter.
; RUN: not %opt -load-pass-plugin=%plugin -passes='batchify<map=1>' %s -disable-output 2>&1 \
; RUN:   | FileCheck %s --check-prefix=FLAG
; FLAG: batchify: error: unknown pass parameter `map=1` (expected {{.*}} or map)

target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

define float @twice(float %x) {
  %r = fadd float %x, %x
  ret float %r
}

define i32 @scale(i32 %x, i32 %k) {
  %r = mul i32 %x, %k
  ret i32 %r
}

; The request: its scalar loop is the body until batchify replaces it.
define void @__batchify_map__ZGVdN8vu_scale(i64 %n, ptr %x, i32 %k, ptr %out) {
entry:
  %any = icmp ne i64 %n, 0
  br i1 %any, label %loop, label %done
loop:
  %i = phi i64 [ 0, %entry ], [ %i1, %loop ]
  %p = getelementptr i32, ptr %x, i64 %i
  %v = load i32, ptr %p
  %s = call i32 @scale(i32 %v, i32 %k)
  %q = getelementptr i32, ptr %out, i64 %i
  store i32 %s, ptr %q
  %i1 = add i64 %i, 1
  %more = icmp ult i64 %i1, %n
  br i1 %more, label %loop, label %done
done:
  ret void
}
