; The map tests' kernels (tests/map_entry.rs, tests/map_bucket.rs): a
; divergent loop (Collatz steps, capped), a uniform and a linear
; parameter, a recorder call under divergent control flow, an `i1` and an
; `i17` parameter (one and four bytes per array element), a loop over an
; `i17` with an `i1` parameter, and an escape-time loop whose trips wait on
; a chain of float operations (latency-bound).
declare void @batchify_record(i64, i64)

define i32 @steps(i32 %x, i32 %cap) {
entry:
  br label %loop
loop:
  %v = phi i32 [ %x, %entry ], [ %next, %body ]
  %n = phi i32 [ 0, %entry ], [ %n1, %body ]
  %done = icmp ule i32 %v, 1
  %over = icmp sge i32 %n, %cap
  %stop = or i1 %done, %over
  br i1 %stop, label %exit, label %body
body:
  %odd = and i32 %v, 1
  %isodd = icmp ne i32 %odd, 0
  %t = mul i32 %v, 3
  %t1 = add i32 %t, 1
  %h = lshr i32 %v, 1
  %next = select i1 %isodd, i32 %t1, i32 %h
  %n1 = add i32 %n, 1
  br label %loop
exit:
  ret i32 %n
}

define float @blend(float %x, i64 %i, i1 %neg) {
entry:
  %fi = sitofp i64 %i to float
  %s = fmul float %x, %fi
  br i1 %neg, label %flip, label %done
flip:
  %bits = fptosi float %s to i64
  call void @batchify_record(i64 7, i64 %bits)
  %f = fneg float %s
  br label %done
done:
  %r = phi float [ %s, %entry ], [ %f, %flip ]
  ret float %r
}

define i17 @odd(i17 %a, i17 %b) {
  %s = add i17 %a, %b
  %m = mul i17 %s, %a
  ret i17 %m
}

define i17 @odd_loop(i17 %a, i1 %neg) {
entry:
  br label %loop
loop:
  %v = phi i17 [ %a, %entry ], [ %h, %loop ]
  %k = phi i32 [ 0, %entry ], [ %k1, %loop ]
  %h = lshr i17 %v, 1
  %k1 = add i32 %k, 1
  %z = icmp eq i17 %h, 0
  br i1 %z, label %exit, label %loop
exit:
  %r = trunc i32 %k1 to i17
  %n = sub i17 0, %r
  %s = select i1 %neg, i17 %n, i17 %r
  ret i17 %s
}

define i32 @escape(float %cr, float %ci) {
entry:
  br label %loop
loop:
  %zr = phi float [ 0.0, %entry ], [ %nzr, %body ]
  %zi = phi float [ 0.0, %entry ], [ %nzi, %body ]
  %k = phi i32 [ 0, %entry ], [ %k1, %body ]
  %rr = fmul float %zr, %zr
  %ii = fmul float %zi, %zi
  %m = fadd float %rr, %ii
  %out = fcmp ogt float %m, 4.0
  br i1 %out, label %exit, label %body
body:
  %d = fsub float %rr, %ii
  %nzr = fadd float %d, %cr
  %ri = fmul float %zr, %zi
  %ri2 = fadd float %ri, %ri
  %nzi = fadd float %ri2, %ci
  %k1 = add i32 %k, 1
  %cap = icmp ult i32 %k1, 64
  br i1 %cap, label %loop, label %exit
exit:
  %r = phi i32 [ %k, %loop ], [ %k1, %body ]
  ret i32 %r
}

define void @effect(i32 %x) {
  %c = icmp sgt i32 %x, 0
  br i1 %c, label %yes, label %no
yes:
  %e = sext i32 %x to i64
  call void @batchify_record(i64 1, i64 %e)
  ret void
no:
  ret void
}
