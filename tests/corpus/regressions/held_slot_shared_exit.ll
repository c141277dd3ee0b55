; Regression: fuzz program seed 553665025 (`batchify-fuzz --tunings`, every ISA
; and tuning), reduced with llvm-reduce. The exit block %irr.b9 of the divergent
; loop has two phis taking the header phi %x2.0: %x2.0.lcssa from both exit
; edges, %x1.1 from one edge and 0.0 from the other. The held live-outs of the
; loop (emit/control.rs, held_live_outs) put both in one slot, and the 0.0 of
; %x1.1's other edge overwrote %x2.0.lcssa's value in the lanes leaving there:
; the clone returned false for every lane (0.0 < 0.0) where the scalar code
; returns true (0.0 < 1.0). Fixed by keeping a mixed phi out of a group that has
; another phi in its block.


define i1 @held_slot_shared_exit(i32 %p0, i1 %t71, i1 %t72) {
entry:
  br label %loop.head1

loop.head1:                                       ; preds = %loop.latch3, %entry
  %x1.0 = phi double [ 0.000000e+00, %entry ], [ 0.000000e+00, %loop.latch3 ]
  %x2.0 = phi double [ 1.000000e+00, %entry ], [ 0.000000e+00, %loop.latch3 ]
  br i1 false, label %irr.a8, label %irr.b9

irr.a8:                                           ; preds = %loop.head1
  br i1 false, label %if.then11, label %if.end13

if.then11:                                        ; preds = %irr.a8
  br label %loop.latch3

if.end13:                                         ; preds = %irr.a8
  %t711 = icmp ult i32 0, %p0
  %t722 = and i1 false, %t71
  br i1 %t71, label %irr.b9, label %if.end7

irr.b9:                                           ; preds = %if.end13, %loop.head1
  %x1.1 = phi double [ %x2.0, %if.end13 ], [ 0.000000e+00, %loop.head1 ]
  %t82 = fcmp olt double 0.000000e+00, %x2.0
  ret i1 %t82

if.end7:                                          ; preds = %if.end13
  br label %loop.latch3

loop.latch3:                                      ; preds = %if.end7, %if.then11
  %x1.2 = phi double [ 0.000000e+00, %if.then11 ], [ 0.000000e+00, %if.end7 ]
  %x2.1 = phi double [ 0.000000e+00, %if.then11 ], [ 0.000000e+00, %if.end7 ]
  br label %loop.head1
}
