; A divergent while loop: the number of Collatz steps of x, capped at 1000.
; Each lane runs a different number of iterations.
;
; int collatz(int x) {
;   int steps = 0;
;   while (x != 1 && steps < 1000) { x = (x & 1) ? 3 * x + 1 : x / 2; steps++; }
;   return steps;
; }
define i32 @collatz(i32 %x0) {
entry:
  br label %head

head:
  %x = phi i32 [ %x0, %entry ], [ %x.next, %latch ]
  %steps = phi i32 [ 0, %entry ], [ %steps.next, %latch ]
  %ne1 = icmp ne i32 %x, 1
  %lt = icmp slt i32 %steps, 1000
  %go = and i1 %ne1, %lt
  br i1 %go, label %body, label %exit

body:
  %odd = and i32 %x, 1
  %isodd = icmp ne i32 %odd, 0
  br i1 %isodd, label %odd.bb, label %even.bb

odd.bb:
  %t = mul i32 %x, 3
  %t1 = add i32 %t, 1
  br label %latch

even.bb:
  %h = sdiv i32 %x, 2
  br label %latch

latch:
  %x.next = phi i32 [ %t1, %odd.bb ], [ %h, %even.bb ]
  %steps.next = add nsw i32 %steps, 1
  br label %head

exit:
  ret i32 %steps
}
