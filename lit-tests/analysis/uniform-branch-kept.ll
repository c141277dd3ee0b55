; A uniform branch inside a linearized level keeps real control flow when
; its region has one entry and one exit inside the level: the function body
; is linearized (the branch on %x), and the branch on the uniform %u is
; listed as kept, with its region and join. Its join phi %m is uniform:
; only the uniform branch's paths meet there (no divergent branch comes
; before it), the sync-dependence rule of analysis/divergence.rs. %end is
; the join of the divergent branch on %c, so %r is varying.
;
; RUN: %batchify %s -o /dev/null --variant _ZGV_LLVM_N4vu_f --print-analysis 2>&1 | FileCheck %s

define i32 @f(i32 %x, i32 %u) {
entry:
  %cu = icmp sgt i32 %u, 0
  br i1 %cu, label %then, label %join
then:
  %t = mul i32 %u, 3
  br label %join
join:
  %m = phi i32 [ %t, %then ], [ 0, %entry ]
  %c = icmp sgt i32 %x, %m
  br i1 %c, label %a, label %end
a:
  %y = add i32 %x, 1
  br label %end
end:
  %r = phi i32 [ %y, %a ], [ %x, %join ]
  ret i32 %r
}

; CHECK:      values:
; CHECK:        uniform %cu = icmp sgt i32 %u, 0
; CHECK:        uniform %m = phi i32 [ %t, %then ], [ 0, %entry ]
; CHECK:        varying %c = icmp sgt i32 %x, %m
; CHECK:        varying %r = phi i32 [ %y, %a ], [ %x, %join ]
; CHECK:      plan:
; CHECK-NEXT:   function: linearized: %entry %then %join %a %end
; CHECK-NEXT:     uniform branch kept at %entry: %then -> join %join
