; Issue 6, items 6, 7 and 10: constructs no clone can keep are either a
; per-lane fallback (the scalar function is called per lane and keeps
; them) or one clear error line, never an internal error or a clone that
; makes LLVM's code generator abort.
;
; musttail needs the caller's exact prototype; preallocated call setup is a
; token. Both fall back:
; RUN: %batchify %s -S -o %t.ll --function mt --function pa --function swcc -n 4 --report 2> %t.report
; RUN: FileCheck %s < %t.ll
; RUN: FileCheck %s --check-prefix=REPORT < %t.report
;
; Signatures that cannot be batched are errors:
; RUN: not %batchify %s -o %t.bc --function scal 2>&1 | FileCheck %s --check-prefix=SCAL
; RUN: not %batchify %s -o %t.bc --function swerr 2>&1 | FileCheck %s --check-prefix=SWERR
; RUN: not %batchify %s -o %t.bc --function inal 2>&1 | FileCheck %s --check-prefix=INAL
; RUN: not %batchify %s -o %t.bc --function prea 2>&1 | FileCheck %s --check-prefix=PREA
; RUN: not %batchify %s -o %t.bc --function intr 2>&1 | FileCheck %s --check-prefix=INTR

%struct.S = type { i32 }

define i32 @callee(i32 %x) {
  %r = add i32 %x, 1
  ret i32 %r
}

define i32 @mt(i32 %x) {
  %r = musttail call i32 @callee(i32 %x)
  ret i32 %r
}

define i32 @pa(i32 %x) {
  %t = call token @llvm.call.preallocated.setup(i32 1)
  %a = call ptr @llvm.call.preallocated.arg(token %t, i32 0) preallocated(%struct.S)
  store i32 %x, ptr %a, align 4
  %r = call i32 @prea(ptr preallocated(%struct.S) %a) ["preallocated"(token %t)]
  ret i32 %r
}

define swifttailcc i32 @swcc(i32 %x) {
  %r = call i32 @callee(i32 %x)
  %s = call i32 asm "", "=r,0"(i32 %r)
  ret i32 %s
}

define <vscale x 4 x float> @scal(<vscale x 4 x float> %x) {
  ret <vscale x 4 x float> %x
}

define swiftcc i32 @swerr(i32 %x, ptr swifterror %err) {
  store ptr null, ptr %err, align 8
  ret i32 %x
}

define i32 @inal(ptr inalloca(%struct.S) %s) {
  %v = load i32, ptr %s, align 4
  ret i32 %v
}

define i32 @prea(ptr preallocated(%struct.S) %s) {
  %v = load i32, ptr %s, align 4
  ret i32 %v
}

define x86_intrcc void @intr(ptr byval(i8) %frame) {
  ret void
}

declare token @llvm.call.preallocated.setup(i32)
declare ptr @llvm.call.preallocated.arg(token, i32)

; CHECK-LABEL: define <4 x i32> @_ZGV_LLVM_N4v_mt(
; CHECK-COUNT-4: call i32 @mt(i32
; CHECK-LABEL: define <4 x i32> @_ZGV_LLVM_N4v_pa(
; CHECK-COUNT-4: call i32 @pa(i32
; CHECK-LABEL: define <4 x i32> @_ZGV_LLVM_N4v_swcc(
; CHECK-COUNT-4: call swifttailcc i32 @swcc(i32

; REPORT: mt -> _ZGV_LLVM_N4v_mt: 4 lanes, per-lane fallback: `musttail` call
; REPORT: pa -> _ZGV_LLVM_N4v_pa: 4 lanes, per-lane fallback: {{.*}}token and scalable vector values are not supported

; SCAL: batchify: error: {{.*}}has a scalable vector, and batchify builds fixed-width clones only
; SWERR: batchify: error: {{.*}}parameter 1 is `swifterror`, which binds it to the caller and cannot be batched
; INAL: batchify: error: {{.*}}parameter 0 is `inalloca`
; PREA: batchify: error: {{.*}}parameter 0 is `preallocated`
; INTR: batchify: error: {{.*}}calling convention `x86_intrcc` cannot be called from a clone
