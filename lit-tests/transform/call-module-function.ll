; Calls of functions defined in the module (issue 8, item 4): a varying call
; becomes one call of the callee's clone, an internal helper named
; `__batchify.<VFABI name>` with the caller's width, not one scalar call per
; lane. The callee clone is unmasked where every lane is active and masked
; (with the caller's execution mask) under a divergent branch; a uniform
; argument stays a scalar (`u`). A recursive function calls its own masked
; clone. A declared `vector-function-abi-variant` of the right shape is
; called directly. Callees that must stay per lane (a weak callee, a callee
; with effects batchify cannot see, a writer given the same pointer in every
; lane) keep one scalar call per lane, and `--report` says why.
;
; RUN: %batchify %s -S -o %t.ll -n 4 --function plain --function recursive --variant _ZGV_LLVM_N4vu_uniform_arg --variant _ZGV_LLVM_N4vu_kept --function variant --report 2> %t.err
; RUN: FileCheck %s < %t.ll
; RUN: FileCheck %s --check-prefix=REPORT < %t.err
;
; A clone of the callee that the run was asked for serves the call (it is
; built after its caller here): no helper. Requested clones of callees that
; may not be batched (a weak one, a writer given a uniform pointer) are not
; called in place of the scalar calls.
; RUN: %batchify %s -S -o %t.reuse.ll -n 4 --function plain --function clamp3 --variant _ZGV_LLVM_N4vu_kept --function replaceable --variant _ZGV_LLVM_N4uv_bump
; RUN: FileCheck %s --check-prefix=REUSE --implicit-check-not=__batchify < %t.reuse.ll

declare void @log_value(i32)

declare float @ext(float) #1
declare <4 x float> @ext_v4(<4 x float>)

define internal i32 @clamp3(i32 %x) #0 {
entry:
  %neg = icmp slt i32 %x, 0
  br i1 %neg, label %n, label %p
n:
  %m = mul i32 %x, -3
  br label %done
p:
  %d = udiv i32 %x, 7
  br label %done
done:
  %r = phi i32 [ %m, %n ], [ %d, %p ]
  ret i32 %r
}

define i32 @plain(i32 %x) {
  %r = call i32 @clamp3(i32 %x)
  ret i32 %r
}

define internal i32 @fact(i32 %n) #0 {
entry:
  %small = icmp ult i32 %n, 2
  br i1 %small, label %base, label %rec
base:
  ret i32 1
rec:
  %n1 = sub i32 %n, 1
  %f = call i32 @fact(i32 %n1)
  %r = mul i32 %n, %f
  ret i32 %r
}

define i32 @recursive(i32 %n) {
  %m = and i32 %n, 7
  %r = call i32 @fact(i32 %m)
  ret i32 %r
}

define internal i32 @scaled(i32 %x, i32 %k) #0 {
  %c = icmp sgt i32 %x, %k
  %a = mul i32 %x, %k
  %r = select i1 %c, i32 %a, i32 %x
  ret i32 %r
}

define i32 @uniform_arg(i32 %x, i32 %k) {
entry:
  %pos = icmp sgt i32 %x, 0
  br i1 %pos, label %call, label %done
call:
  %s = call i32 @scaled(i32 %x, i32 %k)
  br label %done
done:
  %r = phi i32 [ %s, %call ], [ 0, %entry ]
  ret i32 %r
}

define weak i32 @replaceable(i32 %x) {
  %r = add i32 %x, 1
  ret i32 %r
}

define internal i32 @logs(i32 %x) {
  call void @log_value(i32 %x)
  ret i32 %x
}

define internal void @bump(ptr %c, i32 %x) {
  %v = load i32, ptr %c
  %w = add i32 %v, %x
  store i32 %w, ptr %c
  ret void
}

define i32 @kept(i32 %x, ptr %c) {
  %a = call i32 @replaceable(i32 %x)
  %b = call i32 @logs(i32 %a)
  call void @bump(ptr %c, i32 %b)
  ret i32 %b
}

define float @variant(float %x) {
  %r = call float @ext(float %x)
  ret float %r
}

attributes #0 = { noinline }
attributes #1 = { "vector-function-abi-variant"="_ZGV_LLVM_N4v_ext(ext_v4)" }

; A call of a non-recursive helper: one call of its unmasked clone.
; CHECK-LABEL: define <4 x i32> @_ZGV_LLVM_N4v_plain(
; CHECK-NOT:     @clamp3
; CHECK:         call <4 x i32> @__batchify._ZGV_LLVM_N4v_clamp3(<4 x i32> %x)
; CHECK-NOT:     @clamp3
; CHECK:         ret <4 x i32>
; CHECK-LABEL: define internal <4 x i32> @__batchify._ZGV_LLVM_N4v_clamp3(<4 x i32> %x)
; CHECK:         select <4 x i1>

; Recursion: the unmasked clone calls the masked one under the lanes that
; recurse; the masked clone calls itself and returns at once on an empty mask.
; CHECK-LABEL: define <4 x i32> @_ZGV_LLVM_N4v_recursive(
; CHECK:         call <4 x i32> @__batchify._ZGV_LLVM_N4v_fact(<4 x i32>
; CHECK-LABEL: define internal <4 x i32> @__batchify._ZGV_LLVM_N4v_fact(<4 x i32> %n)
; CHECK-NOT:     call i32 @fact
; CHECK:         [[SMALL:%.*]] = icmp ugt <4 x i32> %n, splat (i32 1)
; CHECK:         call <4 x i32> @__batchify._ZGV_LLVM_M4v_fact(<4 x i32> {{%.*}}, <4 x i1> [[SMALL]])
; CHECK-LABEL: define internal <4 x i32> @__batchify._ZGV_LLVM_M4v_fact(<4 x i32> %n, <4 x i1> %mask)
; CHECK:         bitcast <4 x i1> %mask to i4
; CHECK-NOT:     call i32 @fact
; CHECK:         call <4 x i32> @__batchify._ZGV_LLVM_M4v_fact(<4 x i32> {{%.*}}, <4 x i1> {{%.*}})
; CHECK-NOT:     call i32 @fact
; CHECK:       {{^}}}

; A declared vector variant of the right shape.
; CHECK-LABEL: define <4 x float> @_ZGV_LLVM_N4v_variant(
; CHECK-NEXT:  entry:
; CHECK-NEXT:    [[R:%.*]] = call <4 x float> @ext_v4(<4 x float> %x)
; CHECK-NEXT:    ret <4 x float> [[R]]

; Under a divergent branch: the masked clone, with the uniform `k` as a scalar.
; CHECK-LABEL: define <4 x i32> @_ZGV_LLVM_N4vu_uniform_arg(<4 x i32> %x, i32 %k)
; CHECK:         [[POS:%.*]] = icmp sgt <4 x i32> %x, zeroinitializer
; CHECK:         call <4 x i32> @__batchify._ZGV_LLVM_M4vu_scaled(<4 x i32> %x, i32 %k, <4 x i1> [[POS]])
; CHECK-LABEL: define internal <4 x i32> @__batchify._ZGV_LLVM_M4vu_scaled(<4 x i32> %x, i32 %k, <4 x i1> %mask)

; Per lane: a weak callee, a callee with unknown effects, and a writer given
; a uniform pointer, each called four times in lane order.
; CHECK-LABEL: define <4 x i32> @_ZGV_LLVM_N4vu_kept(
; CHECK-COUNT-4: call i32 @replaceable(i32
; CHECK-COUNT-4: call i32 @logs(i32
; CHECK-COUNT-4: call void @bump(ptr %c, i32
; CHECK-NOT:     __batchify
; CHECK:         ret <4 x i32>

; REPORT:      batchify: plain -> _ZGV_LLVM_N4v_plain: 4 lanes, 1 vector instruction(s), 0 uniform, 0 per-lane,
; REPORT-NEXT: batchify:   batched: call to `clamp3` -> `__batchify._ZGV_LLVM_N4v_clamp3`
; REPORT-NEXT: batchify:   callee clone: clamp3 -> __batchify._ZGV_LLVM_N4v_clamp3: 4 lanes,
; REPORT-NEXT: batchify: recursive -> _ZGV_LLVM_N4v_recursive: 4 lanes,
; REPORT-NEXT: batchify:   batched: call to `fact` -> `__batchify._ZGV_LLVM_N4v_fact`
; REPORT-NEXT: batchify:   callee clone: fact -> __batchify._ZGV_LLVM_N4v_fact: 4 lanes,
; REPORT-NEXT: batchify:     batched: call to `fact` -> `__batchify._ZGV_LLVM_M4v_fact`
; REPORT-NEXT: batchify:   callee clone: fact -> __batchify._ZGV_LLVM_M4v_fact: 4 lanes,
; REPORT-NEXT: batchify:     batched: call to `fact` -> `__batchify._ZGV_LLVM_M4v_fact`
; REPORT-NEXT: batchify: variant -> _ZGV_LLVM_N4v_variant: 4 lanes,
; REPORT-NEXT: batchify:   batched: call to `ext` -> `ext_v4`
; REPORT-NEXT: batchify: uniform_arg -> _ZGV_LLVM_N4vu_uniform_arg: 4 lanes,
; REPORT-NEXT: batchify:   batched: call to `scaled` -> `__batchify._ZGV_LLVM_M4vu_scaled`
; REPORT-NEXT: batchify:   callee clone: scaled -> __batchify._ZGV_LLVM_M4vu_scaled: 4 lanes,
; REPORT-NEXT: batchify: kept -> _ZGV_LLVM_N4vu_kept: 4 lanes, 0 vector instruction(s), 0 uniform, 3 per-lane,
; REPORT-NEXT: batchify:   per-lane: call to `replaceable`
; REPORT-NEXT: batchify:   per-lane: call to `logs`
; REPORT-NEXT: batchify:   per-lane: call to `bump`
; REPORT-NEXT: batchify:   not batched: call to `replaceable`: `replaceable` may be replaced at link time (weak or linkonce linkage), so its body here is not the one that runs
; REPORT-NEXT: batchify:   not batched: call to `logs`: `logs` calls `log_value`, whose effects batchify cannot see (they must stay in lane order)
; REPORT-NEXT: batchify:   not batched: call to `bump`: `bump` writes memory and gets a pointer that is the same in every lane: lanes' writes would conflict, so the calls stay in lane order

; REUSE-LABEL: define <4 x i32> @_ZGV_LLVM_N4v_plain(
; REUSE:         call <4 x i32> @_ZGV_LLVM_N4v_clamp3(<4 x i32> %x)
; REUSE-LABEL: define internal <4 x i32> @_ZGV_LLVM_N4v_clamp3(
; REUSE-LABEL: define <4 x i32> @_ZGV_LLVM_N4vu_kept(
; REUSE-COUNT-4: call i32 @replaceable(i32
; REUSE-COUNT-4: call i32 @logs(i32
; REUSE-COUNT-4: call void @bump(ptr %c, i32
; REUSE-NOT:     call {{.*}}@_ZGV
; REUSE:         ret <4 x i32>
