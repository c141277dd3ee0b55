; Bad requests: unknown functions, malformed or ill-fitting variant names.
; Each fails with exit status 1, exactly one `batchify: error:` line on
; stderr naming what is wrong, nothing on stdout, and no output file.
;
; DEFINE: %{fails} = rm -f %t.out && not %batchify %s -o %t.out
; DEFINE: %{clean} = count 1 < %t.err && count 0 < %t.stdout && test ! -e %t.out
;
; RUN: %{fails} --function nosuch > %t.stdout 2> %t.err
; RUN: FileCheck %s --check-prefix=UNKNOWN < %t.err
; RUN: %{clean}
; UNKNOWN: {{^}}batchify: error: unknown function `nosuch`: no function of that name in the module{{$}}
;
; RUN: %{fails} --variant _ZGVbN4vv_nosuch > %t.stdout 2> %t.err
; RUN: FileCheck %s --check-prefix=UNKNOWN-V < %t.err
; RUN: %{clean}
; UNKNOWN-V: {{^}}batchify: error: unknown function `nosuch`
;
; RUN: %{fails} --function decl > %t.stdout 2> %t.err
; RUN: FileCheck %s --check-prefix=DECL < %t.err
; RUN: %{clean}
; DECL: {{^}}batchify: error: unknown function `decl`: it is only declared here; batchify needs its body{{$}}
;
; RUN: %{fails} --variant _ZGVxN4v_two > %t.stdout 2> %t.err
; RUN: FileCheck %s --check-prefix=BADISA < %t.err
; RUN: %{clean}
; BADISA: {{^}}batchify: error: malformed vector variant name `_ZGVxN4v_two` at byte 4: unknown ISA `x`
;
; RUN: %{fails} --variant two > %t.stdout 2> %t.err
; RUN: FileCheck %s --check-prefix=NOPREFIX < %t.err
; RUN: %{clean}
; NOPREFIX: {{^}}batchify: error: malformed vector variant name `two` at byte 0: expected the `_ZGV` prefix{{$}}
;
; RUN: %{fails} --variant _ZGVbN4vq_two > %t.stdout 2> %t.err
; RUN: FileCheck %s --check-prefix=BADTOKEN < %t.err
; RUN: %{clean}
; BADTOKEN: {{^}}batchify: error: malformed vector variant name `_ZGVbN4vq_two` at byte 8: unknown parameter token `q`
;
; RUN: %{fails} --variant _ZGVbN0vv_two > %t.stdout 2> %t.err
; RUN: FileCheck %s --check-prefix=ZEROLEN < %t.err
; RUN: %{clean}
; ZEROLEN: {{^}}batchify: error: malformed vector variant name `_ZGVbN0vv_two` at byte 6: vector length must be at least 1
;
; RUN: %{fails} --variant _ZGVbN4vv_ > %t.stdout 2> %t.err
; RUN: FileCheck %s --check-prefix=NONAME < %t.err
; RUN: %{clean}
; NONAME: {{^}}batchify: error: malformed vector variant name `_ZGVbN4vv_` at byte 10: empty scalar function name{{$}}
;
; RUN: %{fails} --variant _ZGVbN4v_two > %t.stdout 2> %t.err
; RUN: FileCheck %s --check-prefix=ARITY < %t.err
; RUN: %{clean}
; ARITY: {{^}}batchify: error: variant `_ZGVbN4v_two` does not fit its scalar function: it has 1 parameter kind(s) but `two` takes 2 parameter(s){{$}}
;
; RUN: %{fails} --function vec2 > %t.stdout 2> %t.err
; RUN: FileCheck %s --check-prefix=VECPARAM < %t.err
; RUN: %{clean}
; VECPARAM: {{^}}batchify: error: variant `_ZGV_LLVM_N8v_vec2` does not fit its scalar function: parameter 0 has type <2 x float> which cannot be a vector lane{{$}}
;
; RUN: %{fails} --variant _ZGV_LLVM_N4vv_two --variant _ZGV_LLVM_N4vv_two > %t.stdout 2> %t.err
; RUN: FileCheck %s --check-prefix=TWICE < %t.err
; RUN: %{clean}
; TWICE: {{^}}batchify: error: variant `_ZGV_LLVM_N4vv_two` {{.*}}already has a body in the module (requested twice?){{$}}
;
; No flags and no `declare simd` attributes in the module.
; RUN: %{fails} > %t.stdout 2> %t.err
; RUN: FileCheck %s --check-prefix=NOTHING < %t.err
; RUN: %{clean}
; NOTHING: {{^}}batchify: error: nothing to batchify: pass --function NAME or --variant VFABI_NAME

define i32 @two(i32 %a, i32 %b) {
  %r = add i32 %a, %b
  ret i32 %r
}

define <2 x float> @vec2(<2 x float> %x) {
  ret <2 x float> %x
}

declare float @decl(float)
