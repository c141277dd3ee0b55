; A tape (docs/internals.md, "Tapes"; Enzyme's cache shape): each call grows
; a buffer with realloc at the trips that are powers of two, stores the
; trip's value at element %i, and reads it back at a varying index. The
; clone shares one buffer between the lanes: the trip's store is one masked
; vector store (no scatter), realloc is called once for all lanes (behind a
; test of the capacity, with N times the size), and free runs once, before
; the return.
; RUN: %batchify %s -S -O0 -o %t.ll --variant _ZGV_LLVM_N4vv_cache --no-fallback --report 2> %t.report
; RUN: FileCheck %s --implicit-check-not=masked.scatter < %t.ll
; RUN: FileCheck %s --check-prefix=REPORT < %t.report

; REPORT: tape shared by the lanes (2 access(es), element `double`)
; REPORT: memory: vector access: `store double %x.i

; The slots of the buffer and its capacity are promoted to phis.
; CHECK-LABEL: define {{.*}} @_ZGV_LLVM_N4vv_cache(
; CHECK: call <4 x double> @llvm.masked.gather.v4f64
; CHECK-NEXT: call void @free(ptr %tape.buffer
; CHECK-NEXT: ret <4 x double>
; CHECK: phi ptr [ null,
; CHECK: call void @llvm.masked.store.v4f64
; CHECK: icmp ugt i64 %bytes, %tape.capacity
; CHECK: tape.grow:
; CHECK: mul i64 %bytes, 4
; CHECK: call ptr @realloc(ptr %tape.buffer
; CHECK: tape.grown:
; CHECK-NOT: @realloc
; CHECK-NOT: @free
; CHECK: }

declare ptr @realloc(ptr, i64)
declare void @free(ptr)

define double @cache(double %x, i64 %k) {
entry:
  br label %loop

loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %store ]
  %p = phi ptr [ null, %entry ], [ %p.cur, %store ]
  %x.i = phi double [ %x, %entry ], [ %x.next, %store ]
  %i.next = add nuw i64 %i, 1
  %pop = call i64 @llvm.ctpop.i64(i64 %i.next)
  %pow2 = icmp ult i64 %pop, 2
  br i1 %pow2, label %grow, label %store

grow:
  %bytes = shl i64 %i.next, 4
  %p.new = call ptr @realloc(ptr %p, i64 %bytes)
  br label %store

store:
  %p.cur = phi ptr [ %p.new, %grow ], [ %p, %loop ]
  %slot = getelementptr inbounds double, ptr %p.cur, i64 %i
  store double %x.i, ptr %slot
  %x.next = fmul double %x.i, 1.5
  %big = fcmp ogt double %x.next, 100.0
  %long = icmp ugt i64 %i.next, 40
  %stop = or i1 %big, %long
  br i1 %stop, label %done, label %loop

done:
  %j = urem i64 %k, %i.next
  %at = getelementptr inbounds double, ptr %p.cur, i64 %j
  %v = load double, ptr %at
  call void @free(ptr %p.cur)
  ret double %v
}

declare i64 @llvm.ctpop.i64(i64)
