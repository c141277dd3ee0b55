; What stays unsupported on AArch64, and variants for another architecture
; than the module's: each one `batchify: error:` line, exit status 1, no
; output file.
;
; DEFINE: %{fails} = rm -f %t.out && not %batchify %s -o %t.out
; DEFINE: %{clean} = count 1 < %t.err && test ! -e %t.out
;
; SVE variants of a fixed length are not built; of scalable length (`x`)
; they are (transform/aarch64-sve.ll), unless the function's vector form
; fails: then the clone is a per-lane loop, which --no-fallback refuses.
; RUN: %{fails} --variant _ZGVsM4v_f 2> %t.err
; RUN: FileCheck %s --check-prefix=SVE-FIXED < %t.err
; RUN: %{clean}
; SVE-FIXED: {{^}}batchify: error: variant `_ZGVsM4v_f` does not fit its scalar function: fixed-length SVE variants are not supported; SVE variants of scalable length (`x`) are{{$}}
; RUN: %{fails} --variant _ZGVsMxv_opaque --no-fallback 2> %t.err
; RUN: FileCheck %s --check-prefix=SVE-STRICT < %t.err
; RUN: %{clean}
; SVE-STRICT: {{^}}batchify: error: cannot batchify `opaque`: inline assembly `{{.*}}` is not supported{{$}}
;
; Cross-lane operations need every lane of the group in one vector form;
; SVE clones have none at the vector lengths without a body.
; RUN: %{fails} --variant _ZGVsMxv_group 2> %t.err
; RUN: FileCheck %s --check-prefix=SVE-GROUP < %t.err
; RUN: %{clean}
; SVE-GROUP: {{^}}batchify: error: {{.*}}`group` calls the cross-lane operation `batchify_any`; SVE clones of such functions are not built{{.*$}}
;
; A vector math library of the other architecture: libmvec is x86-64's,
; SLEEF (`--veclib sleef`) is wired for AArch64 only.
; RUN: %{fails} --variant _ZGVnN4v_f --veclib libmvec 2> %t.err
; RUN: FileCheck %s --check-prefix=MVEC < %t.err
; RUN: %{clean}
; MVEC: {{^}}batchify: error: variant `_ZGVnN4v_f` does not fit its scalar function: `--veclib libmvec` is for x86-64 modules, and this module's target is `aarch64-unknown-linux-gnu`{{$}}
; RUN: sed -e 's/aarch64-unknown-linux-gnu/x86_64-unknown-linux-gnu/' %s > %t.x86sleef.ll
; RUN: rm -f %t.out && not %batchify %t.x86sleef.ll -o %t.out --variant _ZGVbN4v_f --veclib sleef 2> %t.err
; RUN: FileCheck %s --check-prefix=SLEEF-X86 < %t.err
; RUN: %{clean}
; SLEEF-X86: {{^}}batchify: error: variant `_ZGVbN4v_f` does not fit its scalar function: `--veclib sleef` is for AArch64 modules, and this module's target is `x86_64-unknown-linux-gnu`{{$}}
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

define i32 @opaque(i32 %x) {
  %v = call i32 asm "", "=r,0"(i32 %x)
  ret i32 %v
}

declare zeroext i1 @batchify_any(i1 zeroext) convergent

define i32 @group(i32 %x) {
  %c = icmp sgt i32 %x, 0
  %a = call zeroext i1 @batchify_any(i1 zeroext %c) convergent
  %r = select i1 %a, i32 %x, i32 0
  ret i32 %r
}
