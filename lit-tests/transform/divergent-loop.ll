; A divergent while loop (Collatz steps with a cap: each lane needs a
; different number of iterations) runs while any lane is still active. At
; -O2 it is one loop block whose back edge is a `br i1` on an any-lane test
; of the `<8 x i1>` mask of the lanes that go on (here
; `bitcast <8 x i1> ... to i8` + `icmp eq i8 ..., 0`), the body is vector
; code (`<8 x i32>` arithmetic, the odd/even if/else inside it linearized to
; selects), and each lane's result is captured with a select when it
; leaves. The step counter is the same in every lane still in the loop, so
; it stays a scalar `i32` there; a lane's count is the counter's value (a
; splat) at the iteration where the lane leaves.
;
; RUN: %batchify %s -S -o %t.ll --variant _ZGV_LLVM_N8v_collatz --no-fallback --report 2> %t.report
; RUN: FileCheck %s < %t.ll
; RUN: FileCheck %s --check-prefix=REPORT < %t.report
; RUN: %batchify %s -S -O0 -o %t0.ll --variant _ZGV_LLVM_N8v_collatz
; RUN: FileCheck %s --check-prefix=O0 < %t0.ll

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

; CHECK-LABEL: define <8 x i32> @_ZGV_LLVM_N8v_collatz(
; CHECK-SAME:    <8 x i32> [[X0:%[^)]+]])
; CHECK:         br label %[[LOOP:[^ ]+]]
; CHECK:       {{^}}[[LOOP]]:
; The active-lane mask and the varying x are vector phis; the counter is scalar.
; CHECK-DAG:     [[ACTIVE:%.*]] = phi <8 x i1> [ splat (i1 true), %entry ], [ [[GO_ON:%[^,]+]], %[[LOOP]] ]
; CHECK-DAG:     [[X:%.*]] = phi <8 x i32> [ [[X0]], %entry ], [ {{%[^,]+}}, %[[LOOP]] ]
; CHECK-DAG:     [[STEPS:%.*]] = phi i32 [ 0, %entry ], [ {{%[^,]+}}, %[[LOOP]] ]
; The loop condition per lane, and the lanes that go on.
; CHECK-DAG:     [[NE1:%.*]] = icmp ne <8 x i32> [[X]], splat (i32 1)
; CHECK-DAG:     [[GO:%.*]] = and <8 x i1> [[NE1]], {{%.*}}
; CHECK-DAG:     [[GO_ON]] = select <8 x i1> [[ACTIVE]], <8 x i1> [[GO]], <8 x i1> zeroinitializer
; The body works on all lanes; the inner if/else is a select.
; CHECK-DAG:     mul <8 x i32> [[X]], splat (i32 3)
; CHECK-DAG:     sdiv <8 x i32> [[X]],
; CHECK-DAG:     add {{.*}}i32 [[STEPS]], 1
; The back edge: any lane still going on?
; CHECK:         [[BITS:%.*]] = bitcast <8 x i1> [[GO_ON]] to i8
; CHECK-NEXT:    [[NONE:%.*]] = icmp eq i8 [[BITS]], 0
; CHECK-NEXT:    br i1 [[NONE]], label %{{[^,]+}}, label %[[LOOP]]
; CHECK:       {{^}}}

; The back edge is the clone's only conditional branch, and nothing goes per
; lane (no lane extracts; the one `insertelement` is the counter's splat):
; checked on the clone alone.
; RUN: llvm-extract --func=_ZGV_LLVM_N8v_collatz -S %t.ll -o %t.clone.ll
; RUN: grep -c 'br i1' %t.clone.ll | FileCheck %s --check-prefix=ONEBR
; RUN: FileCheck %s --check-prefix=NOLANE --implicit-check-not=extractelement < %t.clone.ll
; ONEBR: {{^}}1{{$}}
; NOLANE: define <8 x i32> @_ZGV_LLVM_N8v_collatz(
; NOLANE: insertelement <8 x i32> poison, i32 {{%[^,]+}}, i64 0
; NOLANE-NEXT: shufflevector <8 x i32> {{%[^,]+}}, <8 x i32> poison, <8 x i32> zeroinitializer

; REPORT: batchify: collatz -> _ZGV_LLVM_N8v_collatz: 8 lanes, {{.*}}, 0 per-lane, 1 divergent loop(s), {{[1-9]}} linearized level(s), 0 uniform branch region(s) kept

; At -O0 (before InstCombine) the any-lane test of the back edge is an
; `llvm.vector.reduce.or` of the `<8 x i1>` mask that the loop header's mask
; phi takes from the back edge.
; O0-LABEL: define <8 x i32> @_ZGV_LLVM_N8v_collatz(
; O0:         phi <8 x i1> [ splat (i1 true), %{{[^ ]+}} ], [ [[NEXT:%[^,]+]], %[[TOP:[^ ]+]] ]
; O0:         [[ANY:%.*]] = call i1 @llvm.vector.reduce.or.v8i1(<8 x i1> [[NEXT]])
; O0-NEXT:    br i1 [[ANY]], label %[[TOP]], label
