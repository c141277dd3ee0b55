; Issue 6, defect 2: the clone must not keep `memory(argmem: ...)` when a
; pointer parameter became `<N x ptr>`: LLVM's alias analysis does not count
; a vector of pointers as a pointer argument, so callers' GVN/DSE dropped
; stores and loads around the call (zlib's `adler32_z`). The argument
; effects are granted on "other" memory too. A uniform pointer stays a
; pointer argument, so its clone keeps `argmem` as it is. Parameter and
; return attributes describe scalar values and are dropped.
;
; RUN: %batchify %s -S -o %t.ll --variant _ZGV_LLVM_N4vv_sum --variant _ZGV_LLVM_N4uv_sumu --variant _ZGV_LLVM_N4v_pure
; RUN: FileCheck %s < %t.ll
; And what the issue saw: at -O2 a caller's memset before the call survives.
; RUN: %opt -passes='default<O2>' -S %t.ll -o - | FileCheck %s --check-prefix=CALLER

define i32 @sum(ptr noalias nonnull readonly align 4 dereferenceable(16) captures(none) %p, i32 noundef %n) #0 {
  %v = load i32, ptr %p, align 4
  %r = add i32 %v, %n
  ret i32 %r
}

define i32 @sumu(ptr noalias readonly %p, i32 %n) #0 {
  %v = load i32, ptr %p, align 4
  %r = add i32 %v, %n
  ret i32 %r
}

define noundef range(i32 0, 10) i32 @pure(i32 noundef %x) #1 {
  %r = urem i32 %x, 10
  ret i32 %r
}

define i32 @caller(<4 x ptr> %ps) {
  %buf = alloca [16 x i8], align 4
  call void @llvm.memset.p0.i64(ptr %buf, i8 1, i64 16, i1 false)
  %p0 = insertelement <4 x ptr> %ps, ptr %buf, i64 0
  %r = call <4 x i32> @_ZGV_LLVM_N4vv_sum(<4 x ptr> %p0, <4 x i32> zeroinitializer)
  %e = extractelement <4 x i32> %r, i64 0
  ret i32 %e
}

declare <4 x i32> @_ZGV_LLVM_N4vv_sum(<4 x ptr>, <4 x i32>)
declare void @llvm.memset.p0.i64(ptr, i8, i64, i1)

attributes #0 = { nounwind willreturn memory(argmem: read) }
attributes #1 = { nounwind willreturn memory(none) }

; CHECK: define <4 x i32> @_ZGV_LLVM_N4vv_sum(<4 x ptr> %p, <4 x i32> %n) #[[SUM:[0-9]+]]
; CHECK: define <4 x i32> @_ZGV_LLVM_N4uv_sumu(ptr %p, <4 x i32> %n) #[[SUMU:[0-9]+]]
; CHECK: define <4 x i32> @_ZGV_LLVM_N4v_pure(<4 x i32> %x) #[[PURE:[0-9]+]]
; CHECK-DAG: attributes #[[SUM]] = { nounwind willreturn memory(read, inaccessiblemem: none, errnomem: none{{.*}}) {{.*}}}
; CHECK-DAG: attributes #[[SUMU]] = { nounwind willreturn memory(argmem: read) {{.*}}}
; CHECK-DAG: attributes #[[PURE]] = { nounwind willreturn memory(none) {{.*}}}

; CALLER-LABEL: define i32 @caller(
; CALLER:         call void @llvm.memset
; CALLER:         {{@_ZGV_LLVM_N4vv_sum|@llvm.masked.gather}}
