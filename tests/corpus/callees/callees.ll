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
