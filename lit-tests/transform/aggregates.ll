; Varying aggregates are structs of vectors: a `{float, float}` is one
; `<N x float>` per field, built and taken apart with `insertvalue` /
; `extractvalue` of whole vectors, never lane by lane; the clone returns it
; as `{<N x float>, <N x float>}` (LLVM's widening of struct results). An
; overflow intrinsic's `{iN, i1}` is the same intrinsic on vectors.
;
; RUN: %batchify %s -S -O0 -o %t.ll --report --function pair --function checked --function use_pair --function whole_load 2> %t.report
; RUN: FileCheck %s < %t.ll
; RUN: FileCheck %s --check-prefix=REPORT < %t.report
; RUN: %batchify %s -S -o - --function pair | FileCheck %s --check-prefix=OPT

define { float, float } @pair(float %x, float %y) {
  %c = fcmp ogt float %x, %y
  %d = fsub float %x, %y
  %p = fmul float %x, %y
  %a = select i1 %c, float %d, float %y
  %s0 = insertvalue { float, float } poison, float %a, 0
  %s1 = insertvalue { float, float } %s0, float %p, 1
  %q0 = insertvalue { float, float } poison, float %y, 0
  %q1 = insertvalue { float, float } %q0, float %x, 1
  %r = select i1 %c, { float, float } %s1, { float, float } %q1
  ret { float, float } %r
}

; CHECK-LABEL: define { <8 x float>, <8 x float> } @_ZGV_LLVM_N8vv_pair(
; CHECK-NOT:     extractelement
; CHECK:         [[S0:%.*]] = insertvalue { <8 x float>, <8 x float> } poison, <8 x float> %a, 0
; CHECK-NEXT:    [[S1:%.*]] = insertvalue { <8 x float>, <8 x float> } [[S0]], <8 x float> %p, 1
; CHECK-NOT:     extractelement
; CHECK:         select <8 x i1> %c, <8 x float>
; CHECK:         select <8 x i1> %c, <8 x float>
; CHECK-NOT:     extractelement
; CHECK:         ret { <8 x float>, <8 x float> }

; After optimisation the result is two blends of whole vectors.
; OPT-LABEL: define { <8 x float>, <8 x float> } @_ZGV_LLVM_N8vv_pair(
; OPT-NOT:     extractelement
; OPT-NOT:     insertelement
; OPT:         ret { <8 x float>, <8 x float> }

define i32 @checked(i32 %x, i32 %y) {
  %m = call { i32, i1 } @llvm.smul.with.overflow.i32(i32 %x, i32 %y)
  %v = extractvalue { i32, i1 } %m, 0
  %o = extractvalue { i32, i1 } %m, 1
  %r = select i1 %o, i32 -1, i32 %v
  ret i32 %r
}

; CHECK-LABEL: define <8 x i32> @_ZGV_LLVM_N8vv_checked(
; CHECK:         [[M:%.*]] = call { <8 x i32>, <8 x i1> } @llvm.smul.with.overflow.v8i32(<8 x i32> %x, <8 x i32> %y)
; CHECK-NEXT:    %v = extractvalue { <8 x i32>, <8 x i1> } [[M]], 0
; CHECK-NEXT:    %o = extractvalue { <8 x i32>, <8 x i1> } [[M]], 1
; CHECK-NEXT:    %r = select <8 x i1> %o, <8 x i32> splat (i32 -1), <8 x i32> %v
; CHECK-NOT:     extractelement
; CHECK:         ret <8 x i32> %r

; A call of a function returning a struct gets the struct of vectors from
; the callee's clone, with no conversion.
define float @use_pair(float %x, float %y) {
  %s = call { float, float } @pair(float %x, float %y)
  %a = extractvalue { float, float } %s, 0
  %b = extractvalue { float, float } %s, 1
  %r = fadd float %a, %b
  ret float %r
}

; CHECK-LABEL: define <8 x float> @_ZGV_LLVM_N8vv_use_pair(
; CHECK:         [[S:%.*]] = call { <8 x float>, <8 x float> } @_ZGV_LLVM_N8vv_pair(<8 x float> %x, <8 x float> %y)
; CHECK-NEXT:    %a = extractvalue { <8 x float>, <8 x float> } [[S]], 0
; CHECK-NEXT:    %b = extractvalue { <8 x float>, <8 x float> } [[S]], 1
; CHECK-NEXT:    %r = fadd <8 x float> %a, %b

; REPORT: pair -> _ZGV_LLVM_N8vv_pair: 8 lanes, {{[0-9]+}} vector instruction(s), 0 uniform, 0 per-lane
; REPORT: checked -> _ZGV_LLVM_N8vv_checked: 8 lanes, 4 vector instruction(s), 0 uniform, 0 per-lane
; REPORT: use_pair -> _ZGV_LLVM_N8vv_use_pair: 8 lanes, {{[0-9]+}} vector instruction(s), 0 uniform, 0 per-lane

; A load of a whole aggregate at varying addresses runs per lane, and the
; report says so.
define float @whole_load(ptr %p) {
  %s = load { float, i32 }, ptr %p, align 4
  %f = extractvalue { float, i32 } %s, 0
  ret float %f
}

; REPORT: whole_load -> _ZGV_LLVM_N8v_whole_load: 8 lanes, {{[0-9]+}} vector instruction(s), 0 uniform, 1 per-lane
; REPORT-NEXT: per-lane: load of a whole `{ float, i32 }`

declare { i32, i1 } @llvm.smul.with.overflow.i32(i32, i32)
