; --print-plan: a call of a function whose clone of the same shape this run
; builds anyway calls that clone (not a helper); a varying argument that is
; linear with an exact step is passed as `l<step>` where the requested
; clone takes it so.
;
; RUN: %batchify %s -o /dev/null --print-plan --variant _ZGVdN8vu_caller --variant _ZGVdN8v_twice --variant _ZGVdN8ul_walk \
; RUN:   --variant _ZGVdN8l4_at 2> %t
; RUN: FileCheck %s < %t

define i32 @twice(i32 %x) {
  %r = shl i32 %x, 1
  ret i32 %r
}

define i32 @at(ptr %p) {
  %v = load i32, ptr %p, align 4
  ret i32 %v
}

define i32 @caller(i32 %x, ptr %base) {
  %t = call i32 @twice(i32 %x)
  ret i32 %t
}

define i32 @walk(ptr %base, i64 %i) {
  %p = getelementptr inbounds i32, ptr %base, i64 %i
  %v = call i32 @at(ptr %p)
  ret i32 %v
}

; CHECK-LABEL: plan of `caller` for `_ZGVdN8vu_caller`
; CHECK:         call requested clone `_ZGVdN8v_twice`: %t = call i32 @twice(i32 %x)
; CHECK-LABEL: plan of `walk` for `_ZGVdN8ul_walk`
; CHECK:         call requested clone `_ZGVdN8l4_at`: %v = call i32 @at(ptr %p)
