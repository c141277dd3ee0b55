; Unreadable or invalid input files: one `batchify: error:` line naming the
; file, exit status 1 (`not` without --crash fails on a crash), no output.
;
; RUN: rm -rf %t && mkdir -p %t
;
; RUN: not %batchify %t/missing.ll -o %t/out.bc --function f 2> %t/err
; RUN: FileCheck %s --check-prefix=MISSING < %t/err
; RUN: count 1 < %t/err
; MISSING: {{^}}batchify: error: cannot read `{{.*}}missing.ll`: No such file or directory
;
; RUN: not %batchify %t -o %t/out.bc --function f 2> %t/err
; RUN: FileCheck %s --check-prefix=DIR < %t/err
; RUN: count 1 < %t/err
; DIR: {{^}}batchify: error: cannot read `{{.*}}`: Is a directory
;
; RUN: echo 'this is not LLVM IR' > %t/text.ll
; RUN: not %batchify %t/text.ll -o %t/out.bc --function f 2> %t/err
; RUN: FileCheck %s --check-prefix=TEXT < %t/err
; RUN: count 1 < %t/err
; TEXT: {{^}}batchify: error: cannot parse `{{.*}}text.ll` as LLVM textual IR: {{.*}}text.ll:1:1: error: expected top-level entity{{$}}
;
; RUN: printf '\377\376\375\000\001binary' > %t/binary.bc
; RUN: not %batchify %t/binary.bc -o %t/out.bc --function f 2> %t/err
; RUN: FileCheck %s --check-prefix=BINARY < %t/err
; RUN: count 1 < %t/err
; BINARY: {{^}}batchify: error: `{{.*}}binary.bc` is neither LLVM bitcode nor textual IR{{$}}
;
; Truncated bitcode (the first 200 bytes of a valid module).
; RUN: %llvm-as %s -o %t/good.bc
; RUN: head -c 200 %t/good.bc > %t/trunc.bc
; RUN: not %batchify %t/trunc.bc -o %t/out.bc --function f 2> %t/err
; RUN: FileCheck %s --check-prefix=TRUNC < %t/err
; RUN: count 1 < %t/err
; TRUNC: {{^}}batchify: error: cannot parse `{{.*}}trunc.bc` as LLVM bitcode: {{.+$}}
;
; An output folder that does not exist.
; RUN: not %batchify %s -o %t/no/such/dir/out.bc --function f 2> %t/err
; RUN: FileCheck %s --check-prefix=OUTDIR < %t/err
; RUN: count 1 < %t/err
; OUTDIR: {{^}}batchify: error: cannot write `{{.*}}out.bc`:
;
; None of the failures wrote anything.
; RUN: ls -A %t | FileCheck %s --check-prefix=LS --implicit-check-not=out --implicit-check-not=.batchify-
; LS: binary.bc
; LS: err
; LS: good.bc
; LS: text.ll
; LS: trunc.bc
;
; The valid bitcode itself is fine.
; RUN: %batchify %t/good.bc -o %t/out.bc --function f
; RUN: %llvm-dis < %t/out.bc | FileCheck %s --check-prefix=OK
; OK: define <8 x float> @_ZGV_LLVM_N8v_f(<8 x float>

define float @f(float %x) {
  %r = fadd float %x, 1.0
  ret float %r
}
