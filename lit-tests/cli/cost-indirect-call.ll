; The cost model prices a call through a pointer (zlib's `strm->zalloc`)
; as a call of an unknown body: it must not read the pointer as a
; function (the sweep of zlib crashed batchify here).
;
; RUN: %batchify %s -o %t.ll --function f --isa avx2 --report 2> %t.err
; RUN: FileCheck %s < %t.err

; CHECK: batchify: f -> _ZGVdN8vv_f: 8 lanes
; CHECK: batchify:   cost: function: est.

target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

define i32 @f(ptr %fp, i32 %x) {
entry:
  %c = icmp sgt i32 %x, 3
  br i1 %c, label %call, label %out
call:
  %r = call i32 %fp(i32 %x)
  br label %out
out:
  %v = phi i32 [ %r, %call ], [ 0, %entry ]
  ret i32 %v
}
