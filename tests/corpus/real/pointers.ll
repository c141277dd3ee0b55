; Pointer parameters: loads and stores through varying, uniform and linear
; pointers, negative offsets, returned pointers, dereferenceable, byval and
; sret. Checked by crates/batchify-testkit/tests/oracle_real.rs, which
; gives the variants (v varying, u uniform, l4 linear with a 4-byte step).

%struct.S = type { i32, i32, i32, i32 }

; v v: a gather.
define i32 @load_v(ptr %p, i32 %i) {
  %m = and i32 %i, 15
  %q = getelementptr inbounds i32, ptr %p, i32 %m
  %v = load i32, ptr %q, align 4
  %r = add i32 %v, %i
  ret i32 %r
}

; v v: scatters, one of them conditional.
define void @store_v(ptr %p, i32 %x) {
  store i32 %x, ptr %p, align 4
  %c = icmp sgt i32 %x, 0
  br i1 %c, label %then, label %done
then:
  %q = getelementptr inbounds i32, ptr %p, i64 1
  %d = shl i32 %x, 1
  store i32 %d, ptr %q, align 4
  br label %done
done:
  ret void
}

; u v: a loop over a uniform array with a varying trip count.
define float @sum_u(ptr %p, i32 %n) {
entry:
  %m = and i32 %n, 7
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i1, %body ]
  %acc = phi float [ 0.0, %entry ], [ %acc1, %body ]
  %c = icmp ult i32 %i, %m
  br i1 %c, label %body, label %done
body:
  %q = getelementptr inbounds float, ptr %p, i32 %i
  %v = load float, ptr %q, align 4
  %acc1 = fadd float %acc, %v
  %i1 = add i32 %i, 1
  br label %loop
done:
  ret float %acc
}

; l4 v: lane k's element is p + 4k (contiguous).
define void @scale_l(ptr %p, float %s) {
  %v = load float, ptr %p, align 4
  %m = fmul float %v, %s
  store float %m, ptr %p, align 4
  ret void
}

; u v v: lanes may store to the same element (conflicting writes).
define void @write_u(ptr %p, i32 %i, i32 %x) {
  %m = and i32 %i, 31
  %q = getelementptr inbounds i32, ptr %p, i32 %m
  store i32 %x, ptr %q, align 4
  ret void
}

; v: reads before and after the pointer.
define i32 @neg_offset(ptr %p) {
  %a = getelementptr inbounds i8, ptr %p, i64 -64
  %b = getelementptr inbounds i8, ptr %p, i64 60
  %x = load i32, ptr %a, align 4
  %y = load i32, ptr %b, align 4
  %r = sub i32 %x, %y
  ret i32 %r
}

; v v: returns a pointer into the buffer.
define ptr @ptr_ret(ptr %p, i32 %i) {
  %m = and i32 %i, 7
  %q = getelementptr inbounds i32, ptr %p, i32 %m
  ret ptr %q
}

; v: reads the last word of a 16-byte object.
define i32 @deref16(ptr dereferenceable(16) %p) {
  %q = getelementptr inbounds i8, ptr %p, i64 12
  %v = load i32, ptr %q, align 4
  ret i32 %v
}

; v v: the callee works on its own copy of *s; the caller's object must
; stay unchanged.
define i32 @byval_sum(ptr byval(%struct.S) align 4 %s, i32 %x) {
  %a = load i32, ptr %s, align 4
  %a1 = add i32 %a, %x
  store i32 %a1, ptr %s, align 4
  %bp = getelementptr inbounds i8, ptr %s, i64 4
  %b = load i32, ptr %bp, align 4
  %r = add i32 %a1, %b
  ret i32 %r
}

; v v: fills the result object.
define void @sret_make(ptr sret(%struct.S) align 4 %out, i32 %x) {
  store i32 %x, ptr %out, align 4
  %b = getelementptr inbounds i8, ptr %out, i64 4
  %x2 = mul i32 %x, %x
  store i32 %x2, ptr %b, align 4
  %c = getelementptr inbounds i8, ptr %out, i64 8
  store i32 -1, ptr %c, align 4
  %d = getelementptr inbounds i8, ptr %out, i64 12
  %x3 = xor i32 %x, 255
  store i32 %x3, ptr %d, align 4
  ret void
}

; v: null is a valid input.
define i32 @nullable(ptr %p) {
  %z = icmp eq ptr %p, null
  br i1 %z, label %null, label %load
null:
  ret i32 -1
load:
  %v = load i32, ptr %p, align 4
  ret i32 %v
}

; ls1 u v: a pointer whose linear step is in parameter 1: refused (the
; step counts elements of the pointee type, as GCC's clones read it, and
; IR does not say their size; oracle_real.rs checks the error).
define void @store_ls(ptr %p, i64 %step, i32 %x) {
  %v = load i32, ptr %p, align 4
  %s = add i32 %v, %x
  store i32 %s, ptr %p, align 4
  ret void
}
