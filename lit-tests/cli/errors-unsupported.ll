; Constructs this version does not support: a branch on a varying value
; (if/else or loop exit), masked variants, stack memory that mem2reg cannot
; remove, atomics, volatile accesses and inline assembly. Each is one
; `batchify: error: cannot batchify `NAME`: ...` line, exit status 1, and no
; output file. The same functions with the offending value uniform are fine.
;
; DEFINE: %{fails} = rm -f %t.out && not %batchify %s -o %t.out
; DEFINE: %{clean} = count 1 < %t.err && test ! -e %t.out
;
; RUN: %{fails} --function div 2> %t.err
; RUN: FileCheck %s --check-prefix=DIV < %t.err
; RUN: %{clean}
; DIV: {{^}}batchify: error: cannot batchify `div`: divergent branch `br i1 %c, label %neg, label %pos` (its condition differs between lanes) is not supported yet{{$}}
;
; RUN: %{fails} --function loopdiv 2> %t.err
; RUN: FileCheck %s --check-prefix=LOOPDIV < %t.err
; RUN: %{clean}
; LOOPDIV: {{^}}batchify: error: cannot batchify `loopdiv`: divergent branch `br i1 %c, label %loop, label %exit`
;
; One bad request fails the whole run, even after a good one.
; RUN: %{fails} --function two --function div 2> %t.err
; RUN: FileCheck %s --check-prefix=DIV < %t.err
; RUN: %{clean}
;
; RUN: %{fails} --variant _ZGVbM4vv_two 2> %t.err
; RUN: FileCheck %s --check-prefix=MASKED < %t.err
; RUN: %{clean}
; MASKED: {{^}}batchify: error: cannot batchify `two`: masked variant `_ZGVbM4vv_two` is not supported yet{{$}}
;
; RUN: %{fails} --function al 2> %t.err
; RUN: FileCheck %s --check-prefix=ALLOCA < %t.err
; RUN: %{clean}
; ALLOCA: {{^}}batchify: error: cannot batchify `al`: stack memory (`%a = alloca i32, align 4`) that mem2reg cannot remove is not supported yet{{$}}
;
; RUN: %{fails} --function at 2> %t.err
; RUN: FileCheck %s --check-prefix=ATOMIC < %t.err
; RUN: %{clean}
; ATOMIC: {{^}}batchify: error: cannot batchify `at`: `%o = atomicrmw add ptr {{.*}} seq_cst, align 4` is not supported yet{{$}}
;
; Volatile is refused even through a uniform pointer.
; RUN: %{fails} --variant _ZGVbN4uv_vol 2> %t.err
; RUN: FileCheck %s --check-prefix=VOLATILE < %t.err
; RUN: %{clean}
; VOLATILE: {{^}}batchify: error: cannot batchify `vol`: `%v = load volatile i32, ptr {{.*}}` is not supported yet{{$}}
;
; RUN: %{fails} --function asm 2> %t.err
; RUN: FileCheck %s --check-prefix=ASM < %t.err
; RUN: %{clean}
; ASM: {{^}}batchify: error: cannot batchify `asm`: inline assembly `%r = call i32 asm "bswap $0", "=r,0"(i32 {{.*}})` is not supported{{$}}
;
; With the branch conditions uniform, the same functions batchify.
; RUN: %batchify %s -S -o %t.ok.ll --variant _ZGVbN4u_div --variant _ZGVbN4u_loopdiv
; RUN: FileCheck %s --check-prefix=OK < %t.ok.ll
; OK: define <4 x float> @_ZGVbN4u_div(float
; OK: define <4 x i32> @_ZGVbN4u_loopdiv(i32

define float @div(float %x) {
entry:
  %c = fcmp olt float %x, 0.0
  br i1 %c, label %neg, label %pos
neg:
  %n = fneg float %x
  br label %pos
pos:
  %r = phi float [ %n, %neg ], [ %x, %entry ]
  ret float %r
}

define i32 @loopdiv(i32 %x) {
entry:
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i.next, %loop ]
  %i.next = add i32 %i, 1
  %c = icmp slt i32 %i.next, %x
  br i1 %c, label %loop, label %exit
exit:
  ret i32 %i
}

define i32 @two(i32 %a, i32 %b) {
  %r = add i32 %a, %b
  ret i32 %r
}

define i32 @al(i32 %x) {
  %a = alloca i32
  store volatile i32 %x, ptr %a
  %v = load i32, ptr %a
  ret i32 %v
}

define i32 @at(ptr %p, i32 %x) {
  %o = atomicrmw add ptr %p, i32 %x seq_cst
  ret i32 %o
}

define i32 @vol(ptr %p, i32 %x) {
  %v = load volatile i32, ptr %p
  %r = add i32 %v, %x
  ret i32 %r
}

define i32 @asm(i32 %x) {
  %r = call i32 asm "bswap $0", "=r,0"(i32 %x)
  ret i32 %r
}
