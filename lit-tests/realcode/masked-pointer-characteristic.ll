; Issue 6, item 5: masked x86 variants whose characteristic type is a
; pointer (a pointer return, or a void return with a pointer first
; parameter) take their mask as pointer-sized integers, as GCC does;
; batchify used to bitcast a vector of pointers ("Invalid bitcast").
; `s` also covers `sret` in a masked variant.
;
; RUN: %batchify %s -S -o %t.ll --variant _ZGVdM4vv_f --variant _ZGVdM4v_p --variant _ZGVbM2vv_f --variant _ZGVdM4vv_s
; RUN: FileCheck %s < %t.ll

define void @f(ptr %p, i32 %x) {
  store i32 %x, ptr %p, align 4
  ret void
}

define ptr @p(ptr %q) {
  %r = getelementptr i8, ptr %q, i64 4
  ret ptr %r
}

%struct.P = type { i32, i32 }

define void @s(ptr sret(%struct.P) align 4 %out, i32 %x) {
  store i32 %x, ptr %out, align 4
  %y = getelementptr i8, ptr %out, i64 4
  store i32 %x, ptr %y, align 4
  ret void
}

; CHECK-LABEL: define void @_ZGVdM4vv_f(<4 x ptr> %p, <4 x i32> %x, <4 x i64> %mask)
; CHECK:         icmp ne <4 x i64> %mask, zeroinitializer
; CHECK:         call void @llvm.masked.scatter.v4i32.v4p0(
; CHECK-LABEL: define <4 x ptr> @_ZGVdM4v_p(<4 x ptr> %q, <4 x i64> %mask)
; CHECK-LABEL: define void @_ZGVbM2vv_f(<2 x ptr> %p, <2 x i32> %x, <2 x i64> %mask)
; CHECK-LABEL: define void @_ZGVdM4vv_s(<4 x ptr> %out, <4 x i32> %x, <4 x i64> %mask)
; CHECK-NOT:     sret
; CHECK:         ret void
