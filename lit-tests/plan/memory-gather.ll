; --print-plan: an address with no constant stride is a gather (load) and
; a scatter (store); a varying value stored at a uniform address keeps the
; last active lane's value; a small constant table read at a varying index
; is one register permute on AVX2 x8 and a gather on target-independent
; clones.
;
; RUN: %batchify %s -o /dev/null --print-plan --variant _ZGVdN8uv_indirect --variant _ZGVdM8uv_last \
; RUN:   --variant _ZGVdN8v_pick --variant _ZGV_LLVM_N8v_pick 2> %t
; RUN: FileCheck %s < %t

@w = internal constant [8 x float] [float 0.5, float -1.25, float 3.0, float 7.5, float -0.0, float 1.0, float 42.0, float -9.75]

define void @indirect(ptr %t, i32 %k) {
  %i = zext i32 %k to i64
  %j = mul i64 %i, %i
  %p = getelementptr inbounds float, ptr %t, i64 %j
  %v = load float, ptr %p, align 4
  %q = getelementptr inbounds float, ptr %t, i64 %i
  %r = getelementptr inbounds float, ptr %q, i64 %j
  store float %v, ptr %r, align 4
  ret void
}

define void @last(ptr %out, i32 %x) {
  store i32 %x, ptr %out, align 4
  ret void
}

define float @pick(i32 %k) {
  %m = and i32 %k, 7
  %i = zext nneg i32 %m to i64
  %p = getelementptr inbounds [8 x float], ptr @w, i64 0, i64 %i
  %t = load float, ptr %p, align 4
  ret float %t
}

; CHECK-LABEL: plan of `indirect` for `_ZGVdN8uv_indirect`
; CHECK:         load gather (the address has no constant stride): %v = load float
; CHECK:         store scatter (the address has no constant stride): store float %v

; A masked clone: no block's mask is known full.
; CHECK-LABEL: plan of `last` for `_ZGVdM8uv_last`
; CHECK-NEXT:  #0: mask partial
; CHECK-NEXT:    store last active lane's value: store i32 %x, ptr %out

; CHECK-LABEL: plan of `pick` for `_ZGVdN8v_pick`
; CHECK:         load table permute: %t = load float
; CHECK-LABEL: plan of `pick` for `_ZGV_LLVM_N8v_pick`
; CHECK:         load gather (the address has no constant stride): %t = load float
