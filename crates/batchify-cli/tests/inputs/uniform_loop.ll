; x^n by repeated multiplication; the trip count n is uniform.
define float @powi_loop(float %x, i32 %n) {
entry:
  %m = and i32 %n, 31
  %cmp0 = icmp sgt i32 %m, 0
  br i1 %cmp0, label %loop, label %exit

loop:
  %i = phi i32 [ 0, %entry ], [ %i.next, %loop ]
  %r = phi float [ 1.0, %entry ], [ %r.next, %loop ]
  %r.next = fmul float %r, %x
  %i.next = add nuw nsw i32 %i, 1
  %done = icmp eq i32 %i.next, %m
  br i1 %done, label %exit, label %loop

exit:
  %res = phi float [ 1.0, %entry ], [ %r.next, %loop ]
  ret float %res
}
