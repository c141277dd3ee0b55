; Output format: bitcode by default, text with -S or a `.ll` output name.
; The input format is detected from the content, not the file name.
;
; Default: bitcode (whatever the name), which llvm-dis and opt read back.
; RUN: rm -f %t.out %t.bc %t.ll %t.txt
; RUN: %batchify %s -o %t.out --function sq -n 4
; RUN: od -An -c -N4 %t.out | FileCheck %s --check-prefix=MAGIC
; RUN: %llvm-dis < %t.out | FileCheck %s
; RUN: %opt -S %t.out | FileCheck %s
;
; -S: text, even with a .bc name.
; RUN: %batchify %s -S -o %t.bc --function sq -n 4
; RUN: FileCheck %s < %t.bc
; RUN: od -An -c -N4 %t.bc | FileCheck %s --check-prefix=TEXT
;
; A .ll output name alone selects text.
; RUN: %batchify %s -o %t.ll --function sq -n 4
; RUN: FileCheck %s < %t.ll
;
; Bitcode input (even named .txt) is read back; the round trip gives the same clone.
; RUN: %llvm-as %s -o %t.txt
; RUN: %batchify %t.txt -S -o %t.rt.ll --function sq -n 4
; RUN: FileCheck %s < %t.rt.ll

define float @sq(float %x) {
  %r = fmul float %x, %x
  ret float %r
}

; MAGIC: {{^ +B +C +300 +336$}}
; TEXT-NOT: {{^ +B +C +300 +336$}}
; TEXT: {{^ +; +M +o$}}

; CHECK-LABEL: define float @sq(float %x)
; CHECK-NEXT:    %r = fmul float %x, %x
; CHECK-LABEL: define <4 x float> @_ZGV_LLVM_N4v_sq(
; CHECK-SAME:    <4 x float> [[X:%[^)]+]])
; CHECK-NEXT:  {{^}}entry:
; CHECK-NEXT:    [[R:%.*]] = fmul <4 x float> [[X]], [[X]]
; CHECK-NEXT:    ret <4 x float> [[R]]
; CHECK-NEXT:  }
