; A per-lane call under a partial mask (a masked clone, a divergent branch)
; is one loop over the mask's set bits (`emit/lane_loop.rs`): the argument
; vectors are stored to stack slots once, each trip takes the lowest set
; bit (`cttz`), loads that lane's arguments, calls, stores the result to
; the result slot, and clears the bit; the result vector is loaded once
; after the loop. The back edge is marked `llvm.loop.unroll.disable`, so
; the user's -O2 keeps the loop. With every lane active the call stays
; unrolled straight-line code (no branch at all; see per-lane.ll).
; Checked at the default -O2.
;
; RUN: %batchify %s -S -o %t.ll --variant _ZGV_LLVM_M4vu_masked \
; RUN:   --variant _ZGV_LLVM_N4v_branchy --variant _ZGV_LLVM_N4v_full \
; RUN:   --variant _ZGV_LLVM_M4v_voidcall --report 2> %t.report
; RUN: FileCheck %s < %t.ll
; RUN: FileCheck %s --check-prefix=REPORT < %t.report
;
; The user's -O2 keeps the loop (one call of @ext, not four).
; RUN: %opt -O2 -S %t.ll -o - | FileCheck %s --check-prefix=OPT

declare float @ext(float)
declare void @sink(i32)

define float @masked(float %x, float %u) {
  %c = call float @ext(float %x)
  %r = fmul float %c, %u
  ret float %r
}

define float @branchy(float %x) {
entry:
  %p = fcmp ogt float %x, 0.0
  br i1 %p, label %then, label %join
then:
  %c = call float @ext(float %x)
  br label %join
join:
  %r = phi float [ %c, %then ], [ %x, %entry ]
  ret float %r
}

define float @full(float %x) {
  %c = call float @ext(float %x)
  ret float %c
}

define void @voidcall(i32 %k) {
  call void @sink(i32 %k)
  ret void
}

; CHECK-LABEL: define <4 x float> @_ZGV_LLVM_M4vu_masked(
; CHECK-SAME:    <4 x float> [[X:%[^,]+]], float [[U:%[^,]+]], <4 x i1> [[M:%[^)]+]])
; CHECK:         [[BITS0:%.*]] = bitcast <4 x i1> [[M]] to i4
; CHECK:         [[ARG:%lane.arg]] = alloca <4 x float>
; CHECK:         [[RES:%lane.res]] = alloca <4 x float>
; CHECK:         store <4 x float> [[X]], ptr [[ARG]]
; CHECK:       {{^}}lanes:
; CHECK-NEXT:    [[BITS:%lanes.bits]] = phi i4 [ [[BITS0]], %{{.*}} ], [ [[REST:%.*]], %lanes ]
; CHECK-NEXT:    [[TZ:%.*]] = call {{.*}}i4 @llvm.cttz.i4(i4 [[BITS]], i1 true)
; CHECK-NEXT:    [[LANE:%lane]] = zext {{.*}}i4 [[TZ]] to i64
; CHECK-NEXT:    [[PA:%.*]] = getelementptr float, ptr [[ARG]], i64 [[LANE]]
; CHECK-NEXT:    [[A:%.*]] = load float, ptr [[PA]]
; CHECK-NEXT:    [[C:%.*]] = call float @ext(float [[A]])
; CHECK-NEXT:    [[PR:%.*]] = getelementptr float, ptr [[RES]], i64 [[LANE]]
; CHECK-NEXT:    store float [[C]], ptr [[PR]]
; CHECK-NEXT:    [[LESS:%.*]] = add i4 [[BITS]], -1
; CHECK-NEXT:    [[REST]] = and i4 [[BITS]], [[LESS]]
; CHECK-NEXT:    [[DONE:%.*]] = icmp eq i4 [[REST]], 0
; CHECK-NEXT:    br i1 [[DONE]], label %{{.*}}, label %lanes, !llvm.loop [[LOOP:![0-9]+]]
; CHECK:         load <4 x float>, ptr [[RES]]
; CHECK-NOT:     call float @ext
; CHECK:       {{^}}}

; In a divergent branch the mask is the branch's condition.
; CHECK-LABEL: define <4 x float> @_ZGV_LLVM_N4v_branchy(
; CHECK:         [[P:%.*]] = fcmp ogt <4 x float>
; CHECK:         bitcast <4 x i1> [[P]] to i4
; CHECK:       {{^}}lanes:
; CHECK:         call float @ext(
; CHECK:         br i1 {{.*}}, label %lanes, !llvm.loop
; CHECK-NOT:     call float @ext
; CHECK:       {{^}}}

; CHECK-LABEL: define <4 x float> @_ZGV_LLVM_N4v_full(
; CHECK-NOT:     lanes
; CHECK-COUNT-4: call float @ext(
; CHECK-NOT:     lanes
; CHECK:       {{^}}}

; A void call has no result slot.
; CHECK-LABEL: define void @_ZGV_LLVM_M4v_voidcall(
; CHECK-NOT:     lane.res
; CHECK:       {{^}}lanes:
; CHECK:         call void @sink(i32
; CHECK-NOT:     call void @sink
; CHECK:       {{^}}}

; CHECK:       [[LOOP]] = distinct !{[[LOOP]], [[DISABLE:![0-9]+]]}
; CHECK:       [[DISABLE]] = !{!"llvm.loop.unroll.disable"}

; REPORT:      batchify: masked -> _ZGV_LLVM_M4vu_masked: 4 lanes, {{.*}} 1 per-lane,
; REPORT-NEXT: batchify:   per-lane: call to `ext`

; OPT-LABEL:   define <4 x float> @_ZGV_LLVM_M4vu_masked(
; OPT:           call float @ext(
; OPT-NOT:       call float @ext(
; OPT:         {{^}}}
