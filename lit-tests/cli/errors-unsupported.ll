; Constructs the vectorizer does not handle yet: stack memory that mem2reg
; cannot remove, atomics, volatile accesses and inline assembly (`invoke` is
; in invoke-error-one-line.ll, an irreducible CFG in transform/fallback.ll).
;
; With --no-fallback each is one
; `batchify: error: cannot batchify `NAME`: ...` line, exit status 1, and no
; output file. Without it, the clone is a per-lane loop over the scalar
; function (one call of it per lane, in lane order), batchify prints one
; `batchify: warning: ...` line naming the function, the clone and the
; construct, and exits 0.
;
; Divergent branches, divergent loops and masked variants used to be refused
; here too; they are supported now and build even with --no-fallback, with
; nothing on stderr.
;
; DEFINE: %{fails} = rm -f %t.out && not %batchify %s -o %t.out --no-fallback
; DEFINE: %{clean} = count 1 < %t.err && test ! -e %t.out
; DEFINE: %{falls-back} = rm -f %t.fb.ll && %batchify %s -S -o %t.fb.ll -n 4
;
; RUN: %{fails} --function al 2> %t.err
; RUN: FileCheck %s --check-prefix=ALLOCA < %t.err
; RUN: %{clean}
; ALLOCA: {{^}}batchify: error: cannot batchify `al`: stack memory of a computed size or outside the entry block (`%a = alloca i32, i32 %x, align 4`) is not supported yet{{$}}
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
; One bad request fails the whole run, even after a good one.
; RUN: %{fails} --function two --function asm 2> %t.err
; RUN: FileCheck %s --check-prefix=ASM < %t.err
; RUN: %{clean}
;
; Without --no-fallback: a warning, exit 0, and a per-lane clone.
; RUN: %{falls-back} --function al 2> %t.err
; RUN: count 1 < %t.err
; RUN: FileCheck %s --check-prefix=WALLOCA < %t.err
; RUN: FileCheck %s --check-prefix=FBALLOCA < %t.fb.ll
; WALLOCA: {{^}}batchify: warning: `al` -> `_ZGV_LLVM_N4v_al` is a per-lane loop over the scalar function: stack memory of a computed size or outside the entry block (`%a = alloca i32, i32 %x, align 4`) is not supported yet{{$}}
; FBALLOCA-LABEL: define <4 x i32> @_ZGV_LLVM_N4v_al(
; FBALLOCA-COUNT-4: call i32 @al(i32
; FBALLOCA-NOT:     call
; FBALLOCA:         ret <4 x i32>
;
; RUN: %{falls-back} --function at 2> %t.err
; RUN: count 1 < %t.err
; RUN: FileCheck %s --check-prefix=WATOMIC < %t.err
; RUN: FileCheck %s --check-prefix=FBATOMIC < %t.fb.ll
; WATOMIC: {{^}}batchify: warning: `at` -> `_ZGV_LLVM_N4vv_at` is a per-lane loop over the scalar function: `%o = atomicrmw add {{.*}}` is not supported yet{{$}}
; FBATOMIC-LABEL: define <4 x i32> @_ZGV_LLVM_N4vv_at(
; FBATOMIC-NOT:     atomicrmw
; FBATOMIC-COUNT-4: call i32 @at(ptr {{%[^,]+}}, i32
; FBATOMIC-NOT:     call
; FBATOMIC:         ret <4 x i32>
;
; The uniform pointer is passed as it is to every call.
; RUN: %{falls-back} --variant _ZGVbN4uv_vol 2> %t.err
; RUN: count 1 < %t.err
; RUN: FileCheck %s --check-prefix=WVOLATILE < %t.err
; RUN: FileCheck %s --check-prefix=FBVOLATILE < %t.fb.ll
; WVOLATILE: {{^}}batchify: warning: `vol` -> `_ZGVbN4uv_vol` is a per-lane loop over the scalar function: `%v = load volatile i32, ptr {{.*}}` is not supported yet{{$}}
; FBVOLATILE:       define <4 x i32> @_ZGVbN4uv_vol(ptr [[P:%[^,]+]], <4 x i32>
; FBVOLATILE-NOT:     load
; FBVOLATILE-COUNT-4: call i32 @vol(ptr [[P]], i32
; FBVOLATILE-NOT:     call
; FBVOLATILE:         ret <4 x i32>
;
; RUN: %{falls-back} --function asm 2> %t.err
; RUN: count 1 < %t.err
; RUN: FileCheck %s --check-prefix=WASM < %t.err
; RUN: FileCheck %s --check-prefix=FBASM < %t.fb.ll
; WASM: {{^}}batchify: warning: `asm` -> `_ZGV_LLVM_N4v_asm` is a per-lane loop over the scalar function: inline assembly `%r = call i32 asm "bswap $0", "=r,0"(i32 {{.*}})` is not supported{{$}}
; FBASM-LABEL: define <4 x i32> @_ZGV_LLVM_N4v_asm(
; FBASM-NOT:     asm
; FBASM-COUNT-4: call i32 @asm(i32
; FBASM-NOT:     call
; FBASM:         ret <4 x i32>
;
; Formerly refused, now built, even with --no-fallback and silently: a
; divergent if/else, a divergent loop exit, a masked variant.
; RUN: %batchify %s -S -o %t.ok.ll --no-fallback --function div --function loopdiv -n 4 \
; RUN:   --variant _ZGVbM4vv_two --variant _ZGVbN4u_div --variant _ZGVbN4u_loopdiv 2> %t.ok.err
; RUN: count 0 < %t.ok.err
; RUN: FileCheck %s --check-prefix=OK --implicit-check-not='call float @div' \
; RUN:   --implicit-check-not='call i32 @loopdiv' < %t.ok.ll
; OK-DAG: define <4 x float> @_ZGV_LLVM_N4v_div(<4 x float>
; OK-DAG: define <4 x i32> @_ZGV_LLVM_N4v_loopdiv(<4 x i32>
; OK-DAG: define <4 x i32> @_ZGVbM4vv_two(<4 x i32> {{%[^,]+}}, <4 x i32> {{%[^,]+}}, <4 x i32> {{%[^)]+}})
; OK-DAG: define <4 x float> @_ZGVbN4u_div(float
; OK-DAG: define <4 x i32> @_ZGVbN4u_loopdiv(i32

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

declare void @al_sink(ptr)

define i32 @al(i32 %x) {
  %a = alloca i32, i32 %x
  call void @al_sink(ptr %a)
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
