; The shape of Enzyme's reverse-derivative caches (inlined
; __enzyme_exponentialallocation): a buffer grown by realloc at the trips
; that are powers of two, the trip's value stored at element %i, a reverse
; sweep that reads the lane's elements back from its own last trip down,
; and a read at a varying index; freed at the end. The clone shares one
; buffer between the lanes (docs/internals.md, "Tapes"). Hand-written.

declare ptr @realloc(ptr, i64)
declare void @free(ptr)
declare i64 @llvm.ctpop.i64(i64)

define double @tape_cache(double %x, i64 %k) {
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
  br i1 %stop, label %reverse, label %loop

reverse:
  %j = phi i64 [ %i, %store ], [ %j.next, %reverse ]
  %acc = phi double [ 0.0, %store ], [ %acc.next, %reverse ]
  %at.j = getelementptr inbounds double, ptr %p.cur, i64 %j
  %v.j = load double, ptr %at.j
  %acc.half = fmul double %acc, 0.5
  %acc.next = fadd double %acc.half, %v.j
  %j.next = add i64 %j, -1
  %more = icmp sgt i64 %j, 0
  br i1 %more, label %reverse, label %done

done:
  %m = urem i64 %k, %i.next
  %at = getelementptr inbounds double, ptr %p.cur, i64 %m
  %v = load double, ptr %at
  call void @free(ptr %p.cur)
  %r = fadd double %acc.next, %v
  ret double %r
}
