; --for-autodiff (docs/autodiff.md): the divergent loop's header phi `%x`
; is held for lanes that left (`select(trip mask, new, old)`, with the mask
; of the lanes that began the trip, so no exit test is on the loop-carried
; chain), the
; live-out `%r` is blended one lane at a time (scalar selects between
; extract/insertelement: no loop phi fed by a vector select), and loads at
; varying addresses are scalar loads per lane (behind a branch on the
; lane's mask bit under a partial mask), never llvm.masked.* intrinsics.
; A live-out that is a header phi (`%x` of @last) is read after the loop
; from a second loop-carried vector that takes the phi's value in the lanes
; that begin each trip (one vector select per trip, and no blend on the
; exit edge); the phi's back edge reads that vector for the lanes that did
; not begin the trip, so its loop phi is no conditional reduction for Enzyme.
; The default mode, for contrast, gathers and keeps finished lanes
; iterating.
;
; RUN: %batchify %s -S -o %t.ll --variant _ZGV_LLVM_N4vvv_escape --variant _ZGV_LLVM_N4vv_pick --variant _ZGV_LLVM_N4v_last --for-autodiff --no-fallback
; RUN: FileCheck %s < %t.ll
; RUN: %batchify %s -S -o %t.default.ll --variant _ZGV_LLVM_N4vvv_escape --variant _ZGV_LLVM_N4vv_pick --no-fallback
; RUN: FileCheck %s --check-prefix=DEFAULT < %t.default.ll
;
; The plugin's `for-autodiff` parameter and option build the same clones.
; RUN: %opt -load-pass-plugin=%plugin -passes='batchify<variant=_ZGV_LLVM_N4vv_pick;for-autodiff>' %s -S \
; RUN:   | FileCheck %s --check-prefix=PLUGIN
; RUN: %opt -load-pass-plugin=%plugin -passes=batchify -batchify-variant=_ZGV_LLVM_N4vv_pick \
; RUN:   -batchify-for-autodiff %s -S | FileCheck %s --check-prefix=PLUGIN
; PLUGIN-LABEL: define <4 x float> @_ZGV_LLVM_N4vv_pick(
; PLUGIN-NOT:     llvm.masked
; PLUGIN:       lane.load:

define float @escape(float %c, ptr %t, i32 %k) {
entry:
  %idx = mul i32 %k, 3
  %w = sext i32 %idx to i64
  %p = getelementptr float, ptr %t, i64 %w
  br label %head
head:
  %x = phi float [ 0.0, %entry ], [ %x.next, %latch ]
  %i = phi i32 [ 0, %entry ], [ %i.next, %latch ]
  %sq = fmul float %x, %x
  %x.next = fadd float %sq, %c
  %big = fcmp ogt float %x.next, 4.0
  br i1 %big, label %exit, label %latch
latch:
  %i.next = add nuw nsw i32 %i, 1
  %done = icmp eq i32 %i.next, 64
  br i1 %done, label %exit, label %head
exit:
  %r = phi float [ %x.next, %head ], [ 0.0, %latch ]
  %g = load float, ptr %p
  %s = fmul float %r, %g
  ret float %s
}

define float @pick(ptr %t, i32 %k) {
entry:
  %pos = icmp sgt i32 %k, 0
  br i1 %pos, label %load, label %done
load:
  %idx = mul i32 %k, 5
  %w = sext i32 %idx to i64
  %p = getelementptr float, ptr %t, i64 %w
  %v = load float, ptr %p
  br label %done
done:
  %r = phi float [ %v, %load ], [ 1.0, %entry ]
  ret float %r
}

define float @last(float %c) {
entry:
  br label %head
head:
  %x = phi float [ 0.0, %entry ], [ %x.next, %head ]
  %i = phi i32 [ 0, %entry ], [ %i.next, %head ]
  %sq = fmul float %x, %x
  %x.next = fadd float %sq, %c
  %i.next = add nuw nsw i32 %i, 1
  %big = fcmp ogt float %x.next, 4.0
  %cap = icmp eq i32 %i.next, 64
  %stop = or i1 %big, %cap
  br i1 %stop, label %exit, label %head
exit:
  %r = phi float [ %x, %head ]
  ret float %r
}

; CHECK-LABEL: define <4 x float> @_ZGV_LLVM_N4vvv_escape(
; CHECK-NOT:     llvm.masked
; CHECK:         extractelement <4 x ptr> %p, i64 0
; CHECK-NEXT:    load float, ptr
; CHECK:       loop.top:
; CHECK:         [[M:%.*]] = phi <4 x i1> [ splat (i1 true), %entry ]
; CHECK:         [[X:%.*]] = phi <4 x float> [ zeroinitializer, %entry ], [ [[HOLD:%.*]], %loop.top ]
; CHECK:         [[LIVE:%.*]] = phi <4 x float> [ poison, %entry ], [ [[LIVEOUT:%.*]], %loop.top ]
; CHECK:         %x.next = fadd <4 x float>
; CHECK:         extractelement <4 x float> [[LIVE]], i64 0
; CHECK:         select i1 {{%.*}}, float {{%.*}}, float {{%.*}}
; CHECK:         [[LIVEOUT]] = insertelement <4 x float> {{%.*}}, float {{%.*}}, i64 3
; CHECK:         [[HOLD]] = select <4 x i1> [[M]], <4 x float> %x.next, <4 x float> [[X]]
; CHECK:         br i1 {{%.*}}, label %loop.after, label %loop.top
; CHECK:       }

; CHECK-LABEL: define <4 x float> @_ZGV_LLVM_N4vv_pick(
; CHECK-NOT:     llvm.masked
; CHECK:       lane.load:
; CHECK-NEXT:    extractelement <4 x ptr> %p, i64 0
; CHECK-NEXT:    load float, ptr
; CHECK:       }

; DEFAULT-LABEL: define <4 x float> @_ZGV_LLVM_N4vvv_escape(
; DEFAULT:         call <4 x float> @llvm.masked.gather.v4f32.v4p0(
; DEFAULT:       loop.top:
; DEFAULT:         [[X:%.*]] = phi <4 x float> [ zeroinitializer, %entry ], [ %x.next, %loop.top ]
; DEFAULT-LABEL: define <4 x float> @_ZGV_LLVM_N4vv_pick(
; DEFAULT:         call <4 x float> @llvm.masked.gather.v4f32.v4p0(

; CHECK-LABEL: define <4 x float> @_ZGV_LLVM_N4v_last(
; CHECK:       loop.after:
; CHECK-NEXT:    ret <4 x float> [[KEPT:%.*]]
; CHECK:       loop.top:
; CHECK:         [[M:%.*]] = phi <4 x i1> [ splat (i1 true), %entry ]
; CHECK:         [[X:%.*]] = phi <4 x float> [ zeroinitializer, %entry ], [ [[HELD:%.*]], %loop.top ]
; CHECK:         [[EXIT:%.*]] = phi <4 x float> [ zeroinitializer, %entry ], [ [[KEPT]], %loop.top ]
; CHECK-NEXT:    [[KEPT]] = select <4 x i1> [[M]], <4 x float> [[X]], <4 x float> [[EXIT]]
; CHECK-NOT:     select i1
; CHECK:         [[HELD]] = select <4 x i1> [[M]], <4 x float> %x.next, <4 x float> [[EXIT]]
; CHECK-NOT:     select i1
; CHECK:       }
