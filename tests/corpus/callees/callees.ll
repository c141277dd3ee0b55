; Calls of module functions that the C and Rust corpus cannot express
; directly (see README.md). Every function that is not internal is a test
; target, so calls between targets also exercise a requested clone serving
; a call of its callee (and a requested masked clone calling itself).

; An aggregate result, from a helper called under a divergent branch: the
; helper clone returns a struct of vectors `{ <N x i32>, <N x float> }`.
define internal { i32, float } @pair(i32 %x, float %y) noinline {
entry:
  %c = icmp sgt i32 %x, 10
  br i1 %c, label %big, label %small
big:
  %a = mul i32 %x, 3
  %b = fmul float %y, 2.0
  br label %done
small:
  %a2 = sub i32 0, %x
  %b2 = fadd float %y, 1.0
  br label %done
done:
  %pa = phi i32 [ %a, %big ], [ %a2, %small ]
  %pb = phi float [ %b, %big ], [ %b2, %small ]
  %r0 = insertvalue { i32, float } poison, i32 %pa, 0
  %r1 = insertvalue { i32, float } %r0, float %pb, 1
  ret { i32, float } %r1
}

define float @use_pair(i32 %x, float %y) {
entry:
  %odd = and i32 %x, 1
  %t = icmp eq i32 %odd, 0
  br i1 %t, label %call, label %done
call:
  %p = call { i32, float } @pair(i32 %x, float %y)
  %i = extractvalue { i32, float } %p, 0
  %f = extractvalue { i32, float } %p, 1
  %fi = sitofp i32 %i to float
  %s = fadd float %fi, %f
  br label %done
done:
  %r = phi float [ %s, %call ], [ 0.0, %entry ]
  ret float %r
}

; A variadic callee stays per lane.
define internal i32 @va(i32 %n, ...) noinline {
  %m = mul i32 %n, 2
  ret i32 %m
}

define i32 @use_va(i32 %x) {
  %r = call i32 (i32, ...) @va(i32 %x, i32 1)
  ret i32 %r
}

; A weak callee (also a target) stays per lane: the linker may replace it.
define weak i32 @weak_abs(i32 %x) noinline {
  %c = icmp slt i32 %x, 0
  br i1 %c, label %neg, label %pos
neg:
  %n = sub i32 0, %x
  ret i32 %n
pos:
  ret i32 %x
}

define i32 @use_weak(i32 %x) {
  %r = call i32 @weak_abs(i32 %x)
  %s = add i32 %r, 1
  ret i32 %s
}

; A `linkonce_odr` callee (every definition is equivalent) is batched.
define linkonce_odr i32 @odr_step(i32 %x) noinline {
entry:
  %c = icmp ugt i32 %x, 1000
  br i1 %c, label %big, label %small
big:
  %h = lshr i32 %x, 3
  ret i32 %h
small:
  %m = mul i32 %x, 5
  ret i32 %m
}

define i32 @use_odr(i32 %x) {
entry:
  %c = icmp slt i32 %x, 0
  br i1 %c, label %call, label %done
call:
  %r = call i32 @odr_step(i32 %x)
  br label %done
done:
  %p = phi i32 [ %r, %call ], [ %x, %entry ]
  ret i32 %p
}

; A recursive target: its clone is requested, and its recursive call (under
; a divergent branch) goes to the masked clone.
define i32 @halvings(i32 %x, i32 %depth) noinline {
entry:
  %small = icmp ult i32 %x, 2
  %deep = icmp ugt i32 %depth, 40
  %stop = or i1 %small, %deep
  br i1 %stop, label %base, label %rec
base:
  ret i32 %depth
rec:
  %odd = and i32 %x, 1
  %isodd = icmp ne i32 %odd, 0
  %h = lshr i32 %x, 1
  %t = mul i32 %x, 3
  %t1 = add i32 %t, 1
  %next = select i1 %isodd, i32 %t1, i32 %h
  %d1 = add i32 %depth, 1
  %r = call i32 @halvings(i32 %next, i32 %d1)
  ret i32 %r
}

; Calls a target under a divergent branch, once with a uniform argument.
; VARIANT-PARAMS: calls_target vu
define i32 @calls_target(i32 %x, i32 %d) {
entry:
  %c = icmp sgt i32 %x, 100
  br i1 %c, label %call, label %other
call:
  %r = call i32 @halvings(i32 %x, i32 %d)
  br label %done
other:
  %r2 = call i32 @halvings(i32 7, i32 %d)
  br label %done
done:
  %p = phi i32 [ %r, %call ], [ %r2, %other ]
  ret i32 %p
}

; Callees that allocate their own memory (issue 11: Enzyme's reverse-mode
; derivatives keep their tape in memory from malloc/realloc, the pointer in
; a stack slot). Writes into fresh memory cannot conflict between lanes, so
; the callee is batched; `realloc` and `free` of its own memory too.
declare noalias ptr @malloc(i64)
declare noalias ptr @realloc(ptr, i64)
declare void @free(ptr)

; Sums x, x-1, ..., 1 through a tape that grows by doubling, like Enzyme's
; __enzyme_exponentialallocation: the tape pointer lives in %slot.
define internal i32 @tape_sum(i32 %x) noinline {
entry:
  %slot = alloca ptr, align 8
  store ptr null, ptr %slot, align 8
  %n = and i32 %x, 15
  br label %fill

fill:
  %i = phi i32 [ 0, %entry ], [ %i.next, %grown ]
  %t = load ptr, ptr %slot, align 8
  %i64 = zext i32 %i to i64
  %pow2 = and i64 %i64, 3
  %grow = icmp eq i64 %pow2, 0
  br i1 %grow, label %do.grow, label %grown

do.grow:
  %bytes = add i64 %i64, 4
  %bytes4 = shl i64 %bytes, 2
  %r = call ptr @realloc(ptr %t, i64 %bytes4)
  store ptr %r, ptr %slot, align 8
  br label %grown

grown:
  %tape = load ptr, ptr %slot, align 8
  %cell = getelementptr i32, ptr %tape, i64 %i64
  %v = sub i32 %n, %i
  store i32 %v, ptr %cell, align 4
  %i.next = add i32 %i, 1
  %more = icmp ult i32 %i.next, %n
  br i1 %more, label %fill, label %sum

sum:
  %tape.end = load ptr, ptr %slot, align 8
  br label %loop

loop:
  %k = phi i32 [ 0, %sum ], [ %k.next, %loop ]
  %acc = phi i32 [ 0, %sum ], [ %acc.next, %loop ]
  %k64 = zext i32 %k to i64
  %at = getelementptr i32, ptr %tape.end, i64 %k64
  %e = load i32, ptr %at, align 4
  %acc.next = add i32 %acc, %e
  %k.next = add i32 %k, 1
  %again = icmp ult i32 %k.next, %n
  br i1 %again, label %loop, label %done

done:
  call void @free(ptr %tape.end)
  ret i32 %acc.next
}

define i32 @use_tape_sum(i32 %x) {
entry:
  %c = icmp sgt i32 %x, -50
  br i1 %c, label %call, label %other

call:
  %s = call i32 @tape_sum(i32 %x)
  ret i32 %s

other:
  ret i32 -1
}

; A scratch array from calloc, filled and read back, then freed.
define internal float @scratch_poly(float %x) noinline {
entry:
  %buf = call ptr @calloc(i64 4, i64 4)
  store float %x, ptr %buf, align 4
  %p1 = getelementptr float, ptr %buf, i64 1
  %x2 = fmul float %x, %x
  store float %x2, ptr %p1, align 4
  %a = load float, ptr %buf, align 4
  %b = load float, ptr %p1, align 4
  %r = fadd float %a, %b
  call void @free(ptr %buf)
  ret float %r
}

declare noalias ptr @calloc(i64, i64)

define float @use_scratch_poly(float %x) {
entry:
  %r = call float @scratch_poly(float %x)
  ret float %r
}


; A per-lane call with `half` arguments and result under a divergent
; branch (the callee is weak, so it stays per lane): the loop over the
; active lanes keeps them in `<N x half>` slots.
define weak half @weak_half(half %x) noinline {
entry:
  %y = fmul half %x, 0xH4000
  ret half %y
}

define half @use_weak_half(half %x, i32 %k) {
entry:
  %c = icmp sgt i32 %k, 0
  br i1 %c, label %call, label %join

call:
  %r = call half @weak_half(half %x)
  br label %join

join:
  %p = phi half [ %r, %call ], [ %x, %entry ]
  ret half %p
}
