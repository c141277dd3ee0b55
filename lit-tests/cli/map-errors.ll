; Bad `--map` requests: one `batchify: error:` line, exit status 1, no
; output file.
;
; DEFINE: %{fails} = rm -f %t.out && not %batchify %s -o %t.out
; DEFINE: %{clean} = count 1 < %t.err && test ! -e %t.out
;
; No clone named: --map has nothing to build the map of.
; RUN: %{fails} --map 2> %t.err
; RUN: FileCheck %s --check-prefix=NONE < %t.err
; RUN: %{clean}
; NONE: {{^}}batchify: error: --map builds the maps of the clones named by --function or --variant; none is named{{$}}
;
; Two clones of one function would both be `f_map`.
; RUN: %{fails} --map --variant _ZGVdN8v_f --variant _ZGVdN4v_f 2> %t.err
; RUN: FileCheck %s --check-prefix=TWO < %t.err
; RUN: %{clean}
; TWO: {{^}}batchify: error: cannot build the map `f_map`: one map per function, but both `_ZGVdN8v_f` and `_ZGVdN4v_f` are named{{$}}
;
; The module defines a function named like the map already.
; RUN: %{fails} --map --function g 2> %t.err
; RUN: FileCheck %s --check-prefix=TAKEN < %t.err
; RUN: %{clean}
; TAKEN: {{^}}batchify: error: cannot build the map `g_map`: the module defines a function named `g_map` already{{$}}
;
; A declaration of the map (a caller in the module) must have its type.
; RUN: %{fails} --map --function h 2> %t.err
; RUN: FileCheck %s --check-prefix=DECL < %t.err
; RUN: %{clean}
; DECL: {{^}}batchify: error: cannot build the map `h_map`: its type is `void (i64)`, the map of `_ZGV_LLVM_N8v_h` is `void (i64, ptr, ptr)`{{$}}

target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

define float @f(float %x) {
  %r = fmul float %x, %x
  ret float %r
}

define i32 @g(i32 %x) {
  %r = add i32 %x, 1
  ret i32 %r
}

define void @g_map() {
  ret void
}

define i32 @h(i32 %x) {
  %r = add i32 %x, 2
  ret i32 %r
}

declare void @h_map(i64)
