; A phi where only the paths of a uniform branch meet stays uniform, even in
; a linearized level (the sync-dependence rule of Moll & Hack,
; analysis/divergence.rs `divergent_joins`): here the divergent branch on
; %x rejoins at %m before the uniform branch on %u, whose region holds a
; loop and is therefore linearized too. %k is a scalar in the clone: each
; edge into %k stores its value only if some lane takes it (`select i1`
; on an any-lane test), where a varying phi would blend vectors.
;
; RUN: %batchify %s -S -O0 -o %t.ll --variant _ZGV_LLVM_N4vu_f --print-analysis 2> %t.err
; RUN: FileCheck %s < %t.ll
; RUN: FileCheck %s --check-prefix=ANALYSIS < %t.err

declare float @g(float)

define float @f(float %x, i32 %u) {
entry:
  %pos = fcmp ogt float %x, 0.0
  br i1 %pos, label %then, label %m

then:
  %e = call float @g(float %x)
  br label %m

m:
  %v = phi float [ %e, %then ], [ %x, %entry ]
  %big = icmp sgt i32 %u, 3
  br i1 %big, label %loop, label %small

loop:
  %i = phi i32 [ 0, %m ], [ %i.next, %loop ]
  %acc = phi i32 [ 1, %m ], [ %acc.next, %loop ]
  %acc.next = mul i32 %acc, 3
  %i.next = add i32 %i, 1
  %more = icmp slt i32 %i.next, %u
  br i1 %more, label %loop, label %k.from.loop

k.from.loop:
  br label %k

small:
  %s = sub i32 7, %u
  br label %k

k:
  %k.v = phi i32 [ %acc.next, %k.from.loop ], [ %s, %small ]
  %kf = sitofp i32 %k.v to float
  %r = fmul float %v, %kf
  ret float %r
}

; ANALYSIS: varying %v = phi float
; ANALYSIS: uniform %k.v = phi i32

; CHECK-LABEL: define <4 x float> @_ZGV_LLVM_N4vu_f(
; CHECK:         select i1 {{%.*}}, i32 {{%.*}}, i32
; CHECK-NOT:     select <4 x i1> {{%.*}}, <4 x i32>
; CHECK:         sitofp i32
; CHECK:         {{^}}}
