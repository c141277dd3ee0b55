; An `invoke` is not supported by the vectorizer. LLVM prints an invoke on
; two lines (`... to label %ok unwind label %bad` goes on the second); the
; message that quotes it must still be one line (this used to be 2 lines).
;
; With --no-fallback: one error line, exit 1, no output file.
; RUN: rm -f %t.out
; RUN: not %batchify %s -o %t.out --function inv --no-fallback 2> %t.err
; RUN: FileCheck %s < %t.err
; RUN: count 1 < %t.err
; RUN: test ! -e %t.out
; CHECK: {{^}}batchify: error: cannot batchify `inv`: {{.*}}`%r = invoke i32 @may_throw(i32 %x) to label %ok unwind label %bad` is not supported{{$}}
;
; Without it: one warning line, exit 0, and a clone that calls the scalar
; function once per lane (the scalar function keeps its invoke).
; RUN: %batchify %s -S -o %t.ll --function inv -n 4 2> %t.werr
; RUN: count 1 < %t.werr
; RUN: FileCheck %s --check-prefix=WARN < %t.werr
; RUN: FileCheck %s --check-prefix=CLONE < %t.ll
; WARN: {{^}}batchify: warning: `inv` -> `_ZGV_LLVM_N4v_inv` is a per-lane loop over the scalar function: {{.*}}invoke{{.*}}unwind label %bad` is not supported{{$}}
; CLONE-LABEL: define i32 @inv(
; CLONE:         invoke i32 @may_throw(
; CLONE-LABEL: define <4 x i32> @_ZGV_LLVM_N4v_inv(
; CLONE-NOT:     invoke
; CLONE-COUNT-4: call i32 @inv(i32
; CLONE-NOT:     call
; CLONE:         ret <4 x i32>

declare i32 @may_throw(i32)
declare i32 @__gxx_personality_v0(...)

define i32 @inv(i32 %x) personality ptr @__gxx_personality_v0 {
entry:
  %r = invoke i32 @may_throw(i32 %x) to label %ok unwind label %bad
ok:
  ret i32 %r
bad:
  %lp = landingpad { ptr, i32 } cleanup
  ret i32 0
}
