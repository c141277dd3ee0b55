; A callee that allocates its own memory is batched (its clone is called
; once, not the callee once per lane): writes into memory that each lane
; allocated itself cannot conflict. Enzyme's reverse-mode derivatives keep
; their tape that way (a `realloc`ed buffer whose pointer lives in a stack
; slot). The allocation calls themselves run once per active lane, in lane
; order. Freeing memory received through a parameter counts as writing
; it (the pointers must differ between lanes, as for any writer). A callee
; that frees memory it loaded from a global stays one call per lane, and
; --report says why.
;
; RUN: %batchify %s -S -o %t.ll -n 4 --function grows --function frees --function frees_global --report 2> %t.err
; RUN: FileCheck %s < %t.ll
; RUN: FileCheck %s --check-prefix=REPORT < %t.err

declare noalias ptr @realloc(ptr, i64)
declare void @free(ptr)

define internal double @tape(double %x, i64 %n) noinline {
entry:
  %slot = alloca ptr, align 8
  store ptr null, ptr %slot, align 8
  %bytes = shl i64 %n, 3
  %t0 = load ptr, ptr %slot, align 8
  %t = call ptr @realloc(ptr %t0, i64 %bytes)
  store ptr %t, ptr %slot, align 8
  %buf = load ptr, ptr %slot, align 8
  store double %x, ptr %buf, align 8
  %v = load double, ptr %buf, align 8
  %r = fmul double %v, %v
  call void @free(ptr %buf)
  ret double %r
}

define double @grows(double %x) {
  %r = call double @tape(double %x, i64 4)
  ret double %r
}

define internal void @release(ptr %p) noinline {
  call void @free(ptr %p)
  ret void
}

define void @frees(ptr %p) {
  call void @release(ptr %p)
  ret void
}

@cache = global ptr null

define internal void @release_cache(i32 %k) noinline {
  %p = load ptr, ptr @cache, align 8
  call void @free(ptr %p)
  ret void
}

define void @frees_global(i32 %k) {
  call void @release_cache(i32 %k)
  ret void
}

; CHECK-LABEL: define <4 x double> @_ZGV_LLVM_N4v_grows(
; CHECK-NOT:     call double @tape(
; CHECK:         call <4 x double> @__batchify._ZGV_LLVM_N4vu_tape(
; CHECK-NOT:     call double @tape(
; CHECK-LABEL: define void @_ZGV_LLVM_N4v_frees(
; CHECK:         call void @__batchify._ZGV_LLVM_N4v_release(<4 x ptr> %p)
; CHECK-LABEL: define void @_ZGV_LLVM_N4v_frees_global(
; CHECK-COUNT-4: call void @release_cache(i32

; REPORT: batched: call to `tape` -> `__batchify._ZGV_LLVM_N4vu_tape`
; REPORT: per-lane: call to `realloc`
; REPORT: per-lane: call to `free`
; REPORT: batched: call to `release` -> `__batchify._ZGV_LLVM_N4v_release`
; REPORT: not batched: call to `release_cache`: `release_cache` calls `free` on memory it did not allocate
