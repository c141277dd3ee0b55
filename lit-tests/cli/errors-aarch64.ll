; What stays unsupported on AArch64, and variants for another architecture
; than the module's: each one `batchify: error:` line, exit status 1, no
; output file.
;
; DEFINE: %{fails} = rm -f %t.out && not %batchify %s -o %t.out
; DEFINE: %{clean} = count 1 < %t.err && test ! -e %t.out
;
; SVE variants (scalable length `x`, or a fixed length) are not built yet.
; RUN: %{fails} --variant _ZGVsMxv_f 2> %t.err
; RUN: FileCheck %s --check-prefix=SVE < %t.err
; RUN: %{clean}
; RUN: %{fails} --variant _ZGVsM4v_f 2> %t.err
; RUN: FileCheck %s --check-prefix=SVE < %t.err
; RUN: %{clean}
; SVE: {{^}}batchify: error: {{.*}}SVE (`s`) variants are not supported yet{{.*$}}
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
