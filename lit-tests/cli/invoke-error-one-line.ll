; BUG (batchify-core transform::widen, same cause as
; divergent-switch-one-line.ll): the error for an `invoke` quotes the
; instruction, which LLVM prints on two lines (`... to label %ok unwind
; label %bad` goes on the second), so stderr gets 2 lines instead of one.
; XFAIL: *
;
; RUN: rm -f %t.out
; RUN: not %batchify %s -o %t.out --function inv 2> %t.err
; RUN: FileCheck %s < %t.err
; RUN: count 1 < %t.err
; RUN: test ! -e %t.out
; CHECK: {{^}}batchify: error: cannot batchify `inv`: {{.*}}invoke

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
