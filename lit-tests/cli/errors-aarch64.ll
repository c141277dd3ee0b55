; What stays unsupported on AArch64, and variants for another architecture
; than the module's: each one `batchify: error:` line, exit status 1, no
; output file.
;
; DEFINE: %{fails} = rm -f %t.out && not %batchify %s -o %t.out
; DEFINE: %{clean} = count 1 < %t.err && test ! -e %t.out
;
; SVE variants of a fixed length are not built; of scalable length (`x`)
; they are per-lane loops (transform/aarch64-sve.ll), which --no-fallback
; refuses.
; RUN: %{fails} --variant _ZGVsM4v_f 2> %t.err
; RUN: FileCheck %s --check-prefix=SVE-FIXED < %t.err
; RUN: %{clean}
; SVE-FIXED: {{^}}batchify: error: variant `_ZGVsM4v_f` does not fit its scalar function: fixed-length SVE variants are not supported; SVE variants of scalable length (`x`) are{{$}}
; RUN: %{fails} --variant _ZGVsMxv_f --no-fallback 2> %t.err
; RUN: FileCheck %s --check-prefix=SVE-STRICT < %t.err
; RUN: %{clean}
; SVE-STRICT: {{^}}batchify: error: cannot batchify `f`: scalable vectors are not vectorized yet (an SVE clone runs its `vscale x K` lanes one by one){{$}}
;
; An x86 variant in an AArch64 module.
; RUN: %{fails} --variant _ZGVbN4v_f 2> %t.err
; RUN: FileCheck %s --check-prefix=X86 < %t.err
; RUN: %{clean}
; X86: {{^}}batchify: error: {{.*}}_ZGVbN4v_f{{.*}}aarch64{{.*$}}
;
; An Advanced SIMD variant in an x86-64 module.
; RUN: sed -e 's/aarch64-unknown-linux-gnu/x86_64-unknown-linux-gnu/' %s > %t.x86.ll
; RUN: rm -f %t.out && not %batchify %t.x86.ll -o %t.out --variant _ZGVnN4v_f 2> %t.err
; RUN: FileCheck %s --check-prefix=NEON < %t.err
; RUN: %{clean}
; NEON: {{^}}batchify: error: {{.*}}_ZGVnN4v_f{{.*}}x86_64{{.*$}}

target triple = "aarch64-unknown-linux-gnu"

define float @f(float %x) {
  %r = fmul float %x, %x
  ret float %r
}
